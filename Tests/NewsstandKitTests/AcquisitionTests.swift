@testable import NewsstandKit
import Foundation
import TestSupport
import XCTest

/// Which link of an OPDS entry is the issue, as the spec orders them: open access and plain
/// acquisitions first, then borrow, buy and subscribe (a shop's page through its indirect
/// acquisitions, shown as needing a browser), never a sample; templates this client cannot fill left out.
final class AcquisitionTests: XCTestCase {
    private let document = URL(string: "http://books.example/opds/new")!

    private func catalog(_ text: String, type: String) throws -> Catalog {
        CatalogValidator().catalog(from: [try CatalogReader().page(Data(text.utf8), url: document, contentType: type)])
    }

    private let atom = """
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog" xmlns:dcterms="http://purl.org/dc/terms/">
          <id>f</id><title>Shop</title>
          <entry><id>sample-then-buy</id><title>Harbour Review 12</title><updated>2026-01-01T00:00:00Z</updated>
            <link rel="http://opds-spec.org/acquisition/sample" type="application/epub+zip" href="/sample/12.epub"/>
            <link rel="http://opds-spec.org/acquisition/buy" type="text/html" href="/shop/12">
              <opds:price currencycode="EUR">4.99</opds:price>
              <opds:indirectAcquisition type="application/epub+zip"/></link></entry>
          <entry><id>sample-only</id><title>Preview</title><updated>2026-01-01T00:00:00Z</updated>
            <link rel="http://opds-spec.org/acquisition/preview" type="application/pdf" href="/preview/p.pdf"/></entry>
          <entry><id>borrow-and-open</id><title>Both</title><updated>2026-01-01T00:00:00Z</updated>
            <link rel="http://opds-spec.org/acquisition/borrow" type="text/html" href="/loan/b">
              <opds:indirectAcquisition type="application/atom+xml;type=entry;profile=opds-catalog">
                <opds:indirectAcquisition type="application/pdf"/></opds:indirectAcquisition></link>
            <link rel="http://opds-spec.org/acquisition/open-access" type="application/pdf" href="/free/b.pdf"/></entry>
          <entry><id>dated</id><title>Dated</title><updated>2026-05-05T00:00:00Z</updated>
            <dcterms:issued>2001-02-03</dcterms:issued><published>2020-01-01T00:00:00Z</published>
            <link rel="http://opds-spec.org/acquisition" type="application/pdf" href="/d.pdf"/></entry>
        </feed>
        """

    func testSamplesAreNeverTheIssueAndAShopPageIsShownAsNeedingABrowser() throws {
        let read = try catalog(atom, type: "application/atom+xml;profile=opds-catalog")
        let byID = Dictionary(uniqueKeysWithValues: read.entries.map { ($0.id, $0) })
        XCTAssertEqual(Set(byID.keys), ["sample-then-buy", "borrow-and-open", "dated"], "an item with only a sample is not an issue")
        let bought = try XCTUnwrap(byID["sample-then-buy"])
        XCTAssertEqual(bought.downloadAddress, "http://books.example/shop/12", "the buy link, not the sample")
        XCTAssertTrue(bought.acquisition.throughWebPage)
        XCTAssertEqual(bought.mediaType, .epub)
        XCTAssertFalse(bought.isFree)
        XCTAssertEqual(bought.price, "4.99 EUR")
        XCTAssertEqual(byID["borrow-and-open"]?.downloadAddress, "http://books.example/free/b.pdf", "open access before a loan")
        XCTAssertEqual(byID["borrow-and-open"]?.isFree, true)
        XCTAssertEqual(byID["dated"]?.releaseDate, FeedDate.iso8601("2001-02-03T00:00:00Z"), "dcterms:issued, wherever it stands")
        XCTAssertEqual(read.remarks, [.samplesOnly(count: 1)])
        XCTAssertEqual(read.remarks.first?.description, "1 item offers only a sample, which is not the issue: not listed.")

        // The cached snapshot keeps what needs a browser.
        let snapshot = CatalogSnapshot.data(of: read, masking: [])
        let reread = try CatalogReader().catalog(snapshot, url: document)
        XCTAssertEqual(reread.entries.first { $0.id == "sample-then-buy" }?.acquisition.throughWebPage, true)
        XCTAssertEqual(reread.entries.first { $0.id == "dated" }?.acquisition.throughWebPage, false)
    }

    func testOPDS2TemplatedLinksAreLeftOutWithANoteAndSearchTemplatesStillWork() throws {
        let opds2 = """
            {"metadata": {"title": "Library"},
             "links": [{"rel": "self", "href": "/opds2"}, {"rel": "search", "href": "/search{?query}", "type": "application/opds+json", "templated": true},
                       {"rel": "http://opds-spec.org/shelf", "href": "/shelf?token={authentication_token}", "templated": true}],
             "publications": [
               {"metadata": {"identifier": "urn:x:1", "title": "Templated"},
                "links": [{"rel": "http://opds-spec.org/acquisition", "type": "application/pdf", "href": "/get/1?token={authentication_token}", "templated": true},
                          {"rel": "preview", "type": "application/pdf", "href": "/preview/1.pdf"}]},
               {"metadata": {"identifier": "urn:x:2", "title": "Plain"},
                "links": [{"rel": "http://opds-spec.org/acquisition/open-access", "type": "application/pdf", "href": "/get/2.pdf"}]}]}
            """
        let read = try catalog(opds2, type: "application/opds+json")
        XCTAssertEqual(read.entries.map(\.id), ["urn:x:2"])
        XCTAssertFalse(read.entries.contains { $0.downloadAddress.contains("%7B") })
        XCTAssertTrue(read.remarks.contains(.templatedLinks(count: 2)), "\(read.remarks)")
        XCTAssertTrue(CatalogRemark.templatedLinks(count: 2).description.hasPrefix("2 links are templates"))
        XCTAssertEqual(read.search, .template("http://books.example/search{?query}".replacingOccurrences(of: "{?query}", with: "?query={searchTerms}")))
    }

    func testAnIssueThroughAWebPageIsNeverFetchedAndSaysWhereToGo() throws {
        let harness = try StoreHarness()
        harness.server.serve("/opds/new", .init(body: Data(atom.utf8), contentType: "application/atom+xml;profile=opds-catalog"))
        let store = harness.makeStore(catalog: "/opds/new")
        XCTAssertNoThrow(try store.refreshAndWait().get())
        let issue = try XCTUnwrap(store.issue(withID: "sample-then-buy"))
        harness.newsstand.download(issue)
        guard case .failed(let error) = harness.waitUntilFinished(issue) else { return XCTFail("state \(issue.state)") }
        XCTAssertEqual(error.code, .notDownloadable)
        XCTAssertTrue(error.message.contains("through the publisher's web page") && error.message.contains("/shop/12"), error.message)
        XCTAssertTrue(harness.server.requests(for: "/shop/12").isEmpty && harness.server.requests(for: "/sample/12.epub").isEmpty)
    }
}
