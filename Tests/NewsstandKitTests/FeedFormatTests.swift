import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Each format read from fixtures shaped like what real servers send, through the one reader
/// and validator the store uses.
final class FeedFormatTests: XCTestCase {
    private let reader = CatalogReader()

    private func catalog(_ name: String, at address: String, contentType: String? = nil) throws -> (Catalog, FeedPage) {
        let url = try XCTUnwrap(URL(string: address))
        let data = Fixtures.feed(name)
        let page = try reader.page(data, url: url, contentType: contentType)
        return (CatalogValidator().catalog(from: [page]), page)
    }

    private func day(_ text: String) -> Date { FeedDate.iso8601(text)! }

    func testCalibresNavigationRootListsItsSectionsAndItsSearchTemplate() throws {
        let (catalog, page) = try catalog("calibre-root.xml", at: "http://127.0.0.1:8080/opds", contentType: "application/atom+xml; charset=utf-8")
        XCTAssertEqual(page.format, .opds1)
        XCTAssertEqual(catalog.entries.count, 0)
        XCTAssertEqual(catalog.navigation.map(\.title), ["By Newest", "By Title", "By Author"])
        XCTAssertEqual(catalog.navigation[0].address, "http://127.0.0.1:8080/opds/navcatalog/4f6e6577657374")
        XCTAssertEqual(catalog.navigation.map(\.isAcquisitionFeed), [true, true, false])
        XCTAssertEqual(catalog.search, .template("http://127.0.0.1:8080/opds/search/{searchTerms}"))
    }

    func testCalibresAcquisitionFeedGivesIDsSizesCoversAndTheNextPage() throws {
        let (catalog, page) = try catalog("calibre-newest-1.xml", at: "http://127.0.0.1:8080/opds/navcatalog/4f6e6577657374")
        XCTAssertEqual(page.next, "http://127.0.0.1:8080/opds/navcatalog/4f6e6577657374?offset=2")
        XCTAssertEqual(catalog.format, .opds1)
        XCTAssertEqual(catalog.title, "calibre Library :: By Newest")
        XCTAssertEqual(catalog.entries.count, 2)
        let first = catalog.entries[0]
        XCTAssertEqual(first.id, "urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a01")
        XCTAssertEqual(first.title, "Byte Review — November 2026")
        XCTAssertEqual(first.releaseDate, day("2026-11-01T00:00:00Z"), "published beats updated")
        XCTAssertEqual(first.summary, "Terminals & tools. Second paragraph.")
        XCTAssertEqual(first.authors, "Byte Review Editors")
        XCTAssertEqual(first.downloadAddress, "http://127.0.0.1:8080/get/pdf/101/Calibre_Library")
        XCTAssertEqual(first.mediaType, .pdf)
        XCTAssertEqual(first.size, 41234, "calibre's non-standard length attribute")
        XCTAssertEqual(first.coverAddress, "http://127.0.0.1:8080/get/thumb/101/Calibre_Library", "rel=…/thumbnail, calibre's variant")
        XCTAssertTrue(first.isFree)
        let second = catalog.entries[1]
        XCTAssertEqual(second.mediaType, .epub, "the feed's first acquisition is preferred")
        XCTAssertEqual(second.alternatives.map(\.mediaType), [.pdf])
        XCTAssertEqual(second.coverAddress, "http://127.0.0.1:8080/get/cover/102/Calibre_Library", "rel=…/cover, calibre's variant")
    }

    func testAnAcquisitionOfAKindNoReaderOpensIsCountedNotListed() throws {
        let (catalog, _) = try catalog("calibre-newest-2.xml", at: "http://127.0.0.1:8080/opds/navcatalog/4f6e6577657374?offset=2")
        XCTAssertEqual(catalog.entries.map(\.mediaType), [.cbz], "application/x-cbz")
        XCTAssertEqual(catalog.itemsWithoutDownload, 1, "the MP3")
        XCTAssertTrue(catalog.warnings.isEmpty)
    }

    func testKavitaSentAsApplicationXMLIsStillOPDS() throws {
        let (catalog, page) = try catalog("kavita-series.xml", at: "http://127.0.0.1:5000/api/opds/8c1f5e2a-0d7b-4a39-b1f2-kavitakey/series/7?pageNumber=1",
                                          contentType: "application/xml")
        XCTAssertEqual(page.format, .opds1)
        XCTAssertEqual(page.next, "http://127.0.0.1:5000/api/opds/8c1f5e2a-0d7b-4a39-b1f2-kavitakey/series/7?pageNumber=2")
        XCTAssertEqual(catalog.entries.map(\.id), ["301"])
        XCTAssertEqual(catalog.entries[0].releaseDate, day("2026-11-19T20:00:00Z"), "a time without a zone is read as UTC")
        XCTAssertEqual(catalog.search, .description("http://127.0.0.1:5000/api/opds/8c1f5e2a-0d7b-4a39-b1f2-kavitakey/search"))
        XCTAssertEqual(catalog.entries[0].coverAddress, "http://127.0.0.1:5000/api/image/chapter-cover?chapterId=301&apiKey=8c1f5e2a-0d7b-4a39-b1f2-kavitakey")
    }

    func testCalibreWebsHTMLSummaryIsPlainTextAndItsTemplateSearchIsPreferred() throws {
        let (catalog, page) = try catalog("calibre-web-books.xml", at: "http://127.0.0.1:8083/opds/new?offset=0", contentType: "application/atom+xml; charset=utf-8")
        XCTAssertEqual(page.next, "http://127.0.0.1:8083/opds/new?offset=1")
        XCTAssertEqual(catalog.search, .template("http://127.0.0.1:8083/opds/search/{searchTerms}"))
        let entry = try XCTUnwrap(catalog.entries.first)
        XCTAssertEqual(entry.summary, "Kernel & shell news")
        XCTAssertEqual(entry.releaseDate, day("2026-11-01"), "dcterms:issued, a year and month")
        XCTAssertEqual(entry.size, 52000)
        XCTAssertEqual(entry.downloadAddress, "http://127.0.0.1:8083/opds/download/11/pdf/")
        XCTAssertEqual(entry.mediaType, .pdf, "by its type: the URL has no extension")
    }

    func testOPDS2PublicationsGroupsPricesAndRelArrays() throws {
        let (catalog, page) = try catalog("opds2.json", at: "http://127.0.0.1:9000/opds2/catalog.json", contentType: "application/json")
        XCTAssertEqual(page.format, .opds2)
        XCTAssertEqual(catalog.title, "Open Comics")
        XCTAssertEqual(page.next, "http://127.0.0.1:9000/opds2/catalog-2.json")
        XCTAssertEqual(catalog.search, .template("http://127.0.0.1:9000/opds2/search?query={searchTerms}"))
        XCTAssertEqual(catalog.navigation.map(\.title), ["New"])
        XCTAssertEqual(catalog.entries.map(\.id), ["urn:isbn:9780000000003", "urn:isbn:9780000000002"])
        let open = catalog.entries[0]
        XCTAssertEqual(open.mediaType, .cbz)
        XCTAssertEqual(open.size, 30500)
        XCTAssertTrue(open.isFree)
        XCTAssertEqual(open.authors, "A. Artist, B. Writer")
        XCTAssertEqual(open.summary, "Third & best")
        XCTAssertEqual(open.coverAddress, "http://127.0.0.1:9000/covers/oc3-small.jpg", "the smallest image")
        let sold = catalog.entries[1]
        XCTAssertFalse(sold.isFree)
        XCTAssertEqual(sold.price, "4.50 EUR")
        XCTAssertEqual(sold.acquisitions.count, 1, "the Adobe DRM acquisition is not a file a reader opens")
        XCTAssertEqual(catalog.itemsWithoutDownload, 1, "the sampler has only a preview")
    }

    func testBakerShelfIssuesAreHPubsAndAProductIDMeansPaid() throws {
        let (catalog, page) = try catalog("shelf.json", at: "http://127.0.0.1:7000/baker/shelf.json", contentType: "text/plain")
        XCTAssertEqual(page.format, .baker)
        XCTAssertEqual(catalog.entries.map(\.id), ["a-study-in-scarlet", "the-sign-of-four"])
        XCTAssertEqual(catalog.entries.map(\.mediaType), [.hpub, .hpub])
        XCTAssertEqual(catalog.entries.map(\.isFree), [true, false])
        XCTAssertEqual(catalog.entries[0].releaseDate, day("2026-11-01T10:00:00Z"))
        XCTAssertEqual(catalog.entries[0].coverAddress, "http://127.0.0.1:7000/baker/covers/scarlet.png")
        XCTAssertEqual(catalog.entries[0].summary, "The first Holmes story")
        XCTAssertEqual(catalog.itemsWithoutDownload, 1, "the issue without a url")
    }

    /// JSON Feed 1.1 as a publisher writes it, with 1.0's habits (a numeric id) mixed in.
    func testJSONFeedAttachmentsAreIssuesAndImagesTheirCovers() throws {
        let (catalog, page) = try catalog("magazine.json", at: "http://127.0.0.1:7300/byte/feed.json", contentType: "application/feed+json")
        XCTAssertEqual(page.format, .jsonFeed)
        XCTAssertEqual(catalog.title, "Byte Review")
        XCTAssertEqual(page.next, "http://127.0.0.1:7300/byte/feed-2.json")
        XCTAssertEqual(catalog.entries.map(\.id), ["https://byte.example/issues/12", "11"])
        let latest = catalog.entries[0]
        XCTAssertEqual(latest.title, "Byte Review 12: Terminals")
        XCTAssertEqual(latest.summary, "Twelve & counting.")
        XCTAssertEqual(latest.releaseDate, day("2026-11-20T07:00:00Z"))
        XCTAssertEqual(latest.coverAddress, "http://127.0.0.1:7300/covers/12.png")
        XCTAssertEqual(latest.downloadAddress, "http://127.0.0.1:7300/pdf/byte-12.pdf")
        XCTAssertEqual(latest.size, 34000)
        XCTAssertEqual(latest.authors, "Byte Review editors", "the feed's authors where the item names none")
        let older = catalog.entries[1]
        XCTAssertEqual(older.mediaType, .epub, "the EPUB, not the MP3 beside it")
        XCTAssertEqual(older.coverAddress, "https://byte.example/banners/11.jpg")
        XCTAssertEqual(older.releaseDate, day("2026-11-13T08:00:00Z"))
        XCTAssertEqual(older.authors, "Ann Editor")
        XCTAssertEqual(catalog.itemsWithoutDownload, 2, "the blog post and the podcast episode")
        // Sent as plain JSON, it is still known by its shape.
        XCTAssertEqual(try reader.page(Fixtures.feed("magazine.json"), url: URL(string: "http://127.0.0.1/f")!, contentType: "application/json").format, .jsonFeed)
        XCTAssertThrowsError(try reader.page(Data(#"{"version": "1", "items": []}"#.utf8), url: URL(string: "http://127.0.0.1/f")!, contentType: "application/json"))
    }

    func testRSSItemsWithEnclosuresAndTheRestCounted() throws {
        let (catalog, page) = try catalog("magazine.rss", at: "http://127.0.0.1:7100/feed.rss", contentType: "text/html")
        XCTAssertEqual(page.format, .rss)
        XCTAssertEqual(catalog.title, "Zine Weekly")
        XCTAssertEqual(catalog.entries.map(\.id), ["zine-42", "https://zine.example/41"])
        let latest = catalog.entries[0]
        XCTAssertEqual(latest.releaseDate, day("2026-11-20T08:00:00Z"))
        XCTAssertEqual(latest.summary, "Forty-two & counting.")
        XCTAssertEqual(latest.coverAddress, "http://127.0.0.1:7100/img/42.png")
        XCTAssertEqual(latest.size, 33000)
        XCTAssertEqual(catalog.entries[1].mediaType, .epub)
        XCTAssertEqual(catalog.entries[1].releaseDate, day("2026-11-13T07:00:00Z"))
        XCTAssertEqual(catalog.entries[1].coverAddress, "http://127.0.0.1:7100/img/41.png")
        XCTAssertEqual(catalog.itemsWithoutDownload, 2, "the blog post and the MP3, counted once, not warned of each")
        XCTAssertTrue(catalog.warnings.isEmpty)
    }

    func testPlainAtomWithEnclosures() throws {
        let (catalog, page) = try catalog("enclosures.atom", at: "http://127.0.0.1:7200/feed.atom", contentType: "application/xml")
        XCTAssertEqual(page.format, .atom)
        XCTAssertEqual(catalog.entries.map(\.title), ["Quarterly Q4"])
        XCTAssertEqual(catalog.entries[0].downloadAddress, "http://127.0.0.1:7200/q4.pdf")
        XCTAssertEqual(catalog.itemsWithoutDownload, 1)
    }

    /// A feed large enough to be read in pieces on every core reads as one read in order would:
    /// issues in order with their own positions, sections and entries without a download kept.
    func testALargeFeedReadInPiecesKeepsItsOrder() throws {
        let count = Pieces.threshold + 1_000
        var xml = #"<feed xmlns="http://www.w3.org/2005/Atom"><title>Big</title>"#
        for n in 0..<count {
            switch n % 1_000 {
            case 500:
                xml += #"<entry><title>Section \#(n)</title><id>s\#(n)</id><link rel="subsection" type="application/atom+xml;profile=opds-catalog;kind=acquisition" href="/s/\#(n)"/></entry>"#
            case 700:
                xml += "<entry><title>Nothing \(n)</title><id>n\(n)</id></entry>"
            default:
                xml += #"<entry><title>Issue \#(n)</title><id>i\#(n)</id><link rel="enclosure" type="application/pdf" href="/i/\#(n).pdf"/></entry>"#
            }
        }
        xml += "</feed>"
        let page = try reader.page(Data(xml.utf8), url: URL(string: "http://127.0.0.1/big")!, contentType: "application/atom+xml")
        XCTAssertGreaterThan(Pieces.count(for: count), 1, "read in pieces")
        let expected = (0..<count).filter { $0 % 1_000 != 500 && $0 % 1_000 != 700 }
        XCTAssertEqual(page.entries.map(\.id), expected.map { "i\($0)" })
        XCTAssertEqual(page.entries.map(\.index), Array(expected), "each entry's position among the feed's entries")
        XCTAssertEqual(page.navigation.map(\.title), (0..<count).filter { $0 % 1_000 == 500 }.map { "Section \($0)" })
        XCTAssertEqual(page.itemsWithoutDownload, (0..<count).filter { $0 % 1_000 == 700 }.count)
        let catalog = CatalogValidator().catalog(from: [page])
        XCTAssertEqual(catalog.entries.first?.downloadAddress, "http://127.0.0.1/i/0.pdf")
        XCTAssertEqual(catalog.entries.count, expected.count)
    }

    // MARK: Hostile input

    private func refusal(_ text: String, contentType: String? = nil, limits: CatalogLimits = CatalogLimits()) -> String {
        var reader = CatalogReader()
        reader.limits = limits
        do {
            _ = try reader.page(Data(text.utf8), url: URL(string: "http://127.0.0.1/feed")!, contentType: contentType)
            return "accepted"
        } catch {
            return error.message
        }
    }

    func testEntityDeclarationsAreRefusedSoNothingExpandsOrIsFetched() {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE feed [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>&lol2;</title></feed>
            """
        XCTAssertEqual(refusal(laughs), "The catalog declares XML entities (line 2), which are not allowed.")
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <rss><channel><title>&xxe;</title></channel></rss>
            """
        XCTAssertTrue(refusal(external).contains("declares XML entities"))
        // A DOCTYPE without declarations is harmless, and its DTD is never fetched.
        XCTAssertEqual(refusal("<!DOCTYPE rss SYSTEM \"http://10.0.0.1/rss.dtd\"><rss><channel><title>x</title></channel></rss>"), "accepted")
    }

    func testNestingAndSizeAreBounded() {
        let deep = "<feed xmlns=\"http://www.w3.org/2005/Atom\">" + String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100) + "</feed>"
        XCTAssertEqual(refusal(deep), "The catalog nests deeper than 64 levels (line 1).")
        let deepJSON = "{\"metadata\":{},\"publications\":" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        XCTAssertEqual(refusal(deepJSON), "The catalog nests deeper than 64 levels.")
        var small = CatalogLimits()
        small.maximumSize = 100
        XCTAssertEqual(refusal(String(repeating: " ", count: 200) + "<rss/>", limits: small), "The catalog is 206 bytes, more than the 100 allowed.")
    }

    func testFeedSizesAreWholePositiveNumbers() {
        XCTAssertEqual(XMLFeed.size("33000"), 33000)
        XCTAssertEqual(XMLFeed.size(" 42\t"), 42)
        for absent in [nil, "", "0", "-5", "12 KB", "1e6", "99999999999999999999", "４２"] as [String?] {
            XCTAssertNil(XMLFeed.size(absent), absent ?? "nil")
        }
    }

    func testAbsurdJSONNumbersReadAsAbsent() throws {
        let text = """
            {"metadata": {"title": "N"}, "publications": [{"metadata": {"title": "x", "identifier": "x"},
              "links": [{"rel": "acquisition", "href": "/x.pdf", "type": "application/pdf",
                         "properties": {"size": 1e300, "price": {"value": -1e308, "currency": "EUR"}}}]}]}
            """
        let page = try reader.page(Data(text.utf8), url: URL(string: "http://127.0.0.1/f.json")!, contentType: nil)
        let catalog = CatalogValidator().catalog(from: [page])
        XCTAssertEqual(catalog.entries.count, 1)
        XCTAssertNil(catalog.entries[0].size)
        XCTAssertNil(catalog.entries[0].price)
        XCTAssertEqual(refusal(text.replacingOccurrences(of: "1e300", with: "1e400")), "The catalog is not valid JSON.", "beyond a Double: refused whole")
    }

    func testMalformedDocumentsSayWhereAndWhat() {
        XCTAssertEqual(refusal("<rss><channel><title>x</channel></rss>"),
                       "The catalog is not well-formed XML (line 1: </channel> closes <title>).")
        XCTAssertEqual(refusal("<!DOCTYPE html><html><body>Sign in</body></html>", contentType: "text/html"),
                       "The catalog is a web page (HTML), not a feed.")
        XCTAssertEqual(refusal("{\"name\": 1}"), "The catalog is JSON, but not an OPDS 2 feed, a JSON Feed, a Baker shelf, Bing's image archive or NASA's APOD.")
        XCTAssertTrue(refusal("<opml version=\"2.0\"/>").hasPrefix("The catalog is XML with a <opml> root, which is none of a property list, OPDS 1.2 or 2.0, Atom, RSS 2.0, JSON Feed, Baker's shelf.json, Bing's image archive or NASA's APOD."))
        XCTAssertEqual(refusal("[{\"name\": "), "The catalog is not valid JSON.")
    }

    func testURLPolicyIDsAndInlineCoversAreTheValidatorsForEveryFormat() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).base64EncodedString()
        let longID = String(repeating: "i", count: 2000)
        let text = """
            <rss><channel><title>T</title>
            <item><guid>ok</guid><title>\u{1B}[31mRed\u{7}   title</title><enclosure url="/ok.pdf" type="application/pdf"/>
              <media:thumbnail xmlns:media="http://search.yahoo.com/mrss/" url="data:image/png;base64,\(png)"/></item>
            <item><guid>js</guid><enclosure url="javascript:alert(1)" type="application/pdf"/></item>
            <item><guid>ftp</guid><enclosure url="ftp://127.0.0.1/x.pdf" type="application/pdf"/></item>
            <item><guid>\(longID)</guid><enclosure url="/long.pdf" type="application/pdf"/></item>
            <item><guid>ok</guid><enclosure url="/again.pdf" type="application/pdf"/></item>
            <item><guid>../../etc</guid><enclosure url="//127.0.0.1:9/double//slash.pdf" type="application/pdf"/></item>
            </channel></rss>
            """
        let page = try reader.page(Data(text.utf8), url: URL(string: "http://127.0.0.1/feeds/f.rss")!, contentType: nil)
        let catalog = CatalogValidator().catalog(from: [page])
        XCTAssertEqual(catalog.entries.map(\.id), ["ok", "../../etc"])
        XCTAssertEqual(catalog.entries[0].title, "\u{1B}[31mRed\u{7} title", "white space collapsed here; control characters go at display")
        XCTAssertEqual(TextSanitizer.inert(catalog.entries[0].title), "\u{FFFD}[31mRed\u{FFFD} title")
        XCTAssertEqual(catalog.entries[0].coverAddress.flatMap(InlineCover.decode)?.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]))
        XCTAssertFalse(catalog.entries[1].localKey.contains("/"), "an ID is data; its local key is a safe name")
        XCTAssertEqual(catalog.entries[1].downloadAddress, "http://127.0.0.1:9/double//slash.pdf")
        XCTAssertEqual(catalog.warnings.map(\.description), [
            "Skipped issue 2 (ID \"js\"): `acquisition` is not an http or https URL.",
            "Skipped issue 3 (ID \"ftp\"): `acquisition` is not an http or https URL.",
            "Skipped issue 4: `id` is missing or not a string of at most 1,024 bytes.",
            "Skipped issue 5 (ID \"ok\"): the ID is used twice.",
        ])
    }

    func testDatesInEveryFormFeedsWrite() {
        let expected = Date(timeIntervalSince1970: 1_794_556_800)  // 2026-11-13 08:00:00 UTC
        XCTAssertEqual(FeedDate.iso8601("2026-11-13T08:00:00Z"), expected)
        XCTAssertEqual(FeedDate.iso8601("2026-11-13T09:00:00+01:00"), expected)
        XCTAssertEqual(FeedDate.iso8601("2026-11-13T08:00:00.000Z"), expected)
        XCTAssertEqual(FeedDate.iso8601("2026-11-13 08:00:00"), expected, "Baker")
        XCTAssertEqual(FeedDate.rfc822("Fri, 13 Nov 2026 08:00:00 GMT"), expected)
        XCTAssertEqual(FeedDate.rfc822("13 Nov 2026 03:00:00 EST"), expected)
        XCTAssertEqual(FeedDate.rfc822("Fri, 13 Nov 26 09:00 +0100"), expected)
        XCTAssertEqual(FeedDate.iso8601("2026"), Date(timeIntervalSince1970: 1_767_225_600))
        XCTAssertNil(FeedDate.iso8601("2026-13-01"))
        XCTAssertNil(FeedDate.iso8601("yesterday"))
        XCTAssertNil(FeedDate.rfc822("Fri, 13 Smarch 2026"))
    }
}
