@testable import NewsstandKit
import Foundation
import XCTest

/// What feeds written by other hands over twenty years do: `xml:base` at several levels, markup
/// in text constructs, Dublin Core and Media RSS in place of RSS's own elements, the Userland
/// namespace.
final class FeedVariantsTests: XCTestCase {
    private let document = URL(string: "http://feeds.example/harbour/atom.xml")!

    private func page(_ text: String, type: String) throws -> FeedPage {
        try CatalogReader().page(Data(text.utf8), url: document, contentType: type)
    }

    private func catalog(_ text: String, type: String) throws -> Catalog {
        CatalogValidator().catalog(from: [try page(text, type: type)])
    }

    func testXMLBaseNestsAndResolvesLinksEnclosuresCoversAndTheNextPage() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/files/">
              <id>f</id><title type="html">Harbour &lt;b&gt;Review&lt;/b&gt;</title>
              <link rel="next" href="?page=2"/>
              <entry><id>spring</id><title>Spring</title><updated>2026-03-01T00:00:00Z</updated>
                <link rel="enclosure" type="application/pdf" href="spring.pdf"/>
                <link rel="http://opds-spec.org/image/thumbnail" type="image/png" href="covers/spring.png"/></entry>
              <entry xml:base="2026/"><id>summer</id><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">Summer <i>special</i></div></title>
                <updated>2026-06-01T00:00:00Z</updated>
                <link rel="enclosure" type="application/pdf" href="summer.pdf"/>
                <link rel="enclosure" type="application/pdf" xml:base="/other/" href="ignored-first.pdf"/></entry>
              <entry xml:base="https://cdn.example/x/"><id>autumn</id><title>Autumn</title><updated>2026-09-01T00:00:00Z</updated>
                <link rel="enclosure" type="application/pdf" xml:base="deep/" href="autumn.pdf"/></entry>
            </feed>
            """
        let read = try page(atom, type: "application/atom+xml")
        XCTAssertEqual(read.title, "Harbour Review", "a feed's title is text, whatever its type")
        XCTAssertEqual(read.next, "http://example.org/files/?page=2")
        let entries = CatalogValidator().catalog(from: [read]).entries
        let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0) })
        XCTAssertEqual(byID["spring"]?.downloadAddress, "http://example.org/files/spring.pdf")
        XCTAssertEqual(byID["spring"]?.coverAddress, "http://example.org/files/covers/spring.png")
        XCTAssertEqual(byID["summer"]?.downloadAddress, "http://example.org/files/2026/summer.pdf")
        XCTAssertEqual(byID["summer"]?.title, "Summer special")
        XCTAssertEqual(byID["autumn"]?.downloadAddress, "https://cdn.example/x/deep/autumn.pdf")
    }

    func testATextConstructIsHTMLByItsTypeInAnyCaseAndAnAcquisitionByItsRelsWholePrefix() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><id>f</id><title>T</title>
              <entry><id>upper</id><title type="HTML">Upper &lt;b&gt;case&lt;/b&gt;</title>
                <link rel="http://opds-spec.org/acquisition" type="application/pdf" href="/upper.pdf"/></entry>
              <entry><id>mixed</id><title type="Text/Html">Mixed &lt;i&gt;type&lt;/i&gt;</title>
                <link rel="http://opds-spec.org/acquisition/open-access" type="application/pdf" href="/mixed.pdf"/></entry>
              <entry><id>plain</id><title type="text">Plain &lt;b&gt; stays</title>
                <link rel="http://opds-spec.org/acquisition/lend-someday" type="application/pdf" href="/plain.pdf"/></entry>
              <entry><id>near</id><title type="htmlx">Near &lt;b&gt; miss</title>
                <link rel="http://opds-spec.org/acq" type="application/pdf" href="/near.pdf"/></entry>
            </feed>
            """
        let read = try page(atom, type: "application/atom+xml")
        let byID = Dictionary(uniqueKeysWithValues: read.entries.map { ($0.id ?? "", $0) })
        XCTAssertEqual(byID["upper"]?.title, "Upper case", "type=\"HTML\" is HTML")
        XCTAssertEqual(byID["mixed"]?.title, "Mixed type", "type=\"Text/Html\" is HTML")
        XCTAssertEqual(byID["plain"]?.title, "Plain <b> stays", "plain text keeps what looks like a tag")
        XCTAssertEqual(byID["upper"]?.acquisitions.first?.access, .acquire)
        XCTAssertEqual(byID["mixed"]?.acquisitions.first?.access, .openAccess)
        XCTAssertEqual(byID["plain"]?.acquisitions.first?.access, .acquire, "an unknown acquisition rel is still one")
        XCTAssertNil(byID["near"], "a rel cut short of the acquisition prefix is no download")
        XCTAssertEqual(read.itemsWithoutDownload, 1)
    }

    func testAFeedWithoutXMLBaseResolvesAgainstItsOwnURL() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><id>f</id><title>T</title>
              <entry><id>a</id><title>A</title><updated>2026-01-01T00:00:00Z</updated>
              <link rel="enclosure" type="application/pdf" href="issues/a.pdf"/></entry></feed>
            """
        XCTAssertEqual(try catalog(atom, type: "application/atom+xml").entries.first?.downloadAddress, "http://feeds.example/harbour/issues/a.pdf")
    }

    func testRSSItemsTitledAndDatedByDublinCoreAndMediaRSS() throws {
        let rss = """
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"
                 xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Harbour</title>
              <item><dc:title>By Dublin Core</dc:title><dc:date>2002-09-29T23:40:06-05:00</dc:date><guid>a</guid>
                <enclosure url="http://example.org/a.pdf" type="application/pdf"/></item>
              <item><media:title>By Media RSS</media:title><dcterms:issued>2003-06-10</dcterms:issued><guid>b</guid>
                <enclosure url="http://example.org/b.pdf" type="application/pdf"/></item>
              <item><title>Own title</title><dc:title>not this</dc:title><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate>
                <dcterms:issued>1999-01-01</dcterms:issued><guid>c</guid><enclosure url="http://example.org/c.pdf" type="application/pdf"/></item>
            </channel></rss>
            """
        let entries = try catalog(rss, type: "application/rss+xml").entries
        let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0) })
        XCTAssertEqual(byID["a"]?.title, "By Dublin Core")
        XCTAssertEqual(byID["a"]?.releaseDate, FeedDate.iso8601("2002-09-30T04:40:06Z"))
        XCTAssertEqual(byID["b"]?.title, "By Media RSS")
        XCTAssertEqual(byID["b"]?.releaseDate, FeedDate.iso8601("2003-06-10T00:00:00Z"))
        XCTAssertEqual(byID["c"]?.title, "Own title")
        XCTAssertEqual(byID["c"]?.releaseDate, FeedDate.rfc822("Tue, 10 Jun 2003 04:00:00 GMT"), "RSS's own date first")
    }

    /// Inline tags sit inside words and sentences; block tags and breaks separate them.
    func testHTMLInTitlesAndSummariesKeepsInlineTagsInsideWords() throws {
        let rss = """
            <rss version="2.0"><channel><title>Red Planet</title>
              <item><title>&lt;b&gt;Mars&lt;/b&gt;. The &lt;em&gt;red&lt;/em&gt;&lt;strong&gt;dish&lt;/strong&gt; issue</title><guid>a</guid>
                <description>&lt;p&gt;One&lt;/p&gt;&lt;p&gt;Two&lt;br/&gt;Three &lt;a href="x"&gt;link&lt;/a&gt;, &lt;SPAN class="x"&gt;done&lt;/SPAN&gt;!&lt;/p&gt;</description>
                <enclosure url="http://example.org/a.pdf" type="application/pdf"/></item>
            </channel></rss>
            """
        let entry = try XCTUnwrap(catalog(rss, type: "application/rss+xml").entries.first)
        XCTAssertEqual(entry.title, "Mars. The reddish issue")
        XCTAssertEqual(entry.summary, "One Two Three link, done!")
    }

    func testRSSInUserlandsNamespaceIsRSS() throws {
        let rss = """
            <rss version="2.0" xmlns="http://backend.userland.com/rss2"><channel><title>Scripting News</title>
              <item><title>An issue</title><guid>u1</guid><pubDate>Mon, 30 Sep 2002 11:00:00 GMT</pubDate>
                <enclosure url="http://example.org/u1.pdf" type="application/pdf" length="100"/></item></channel></rss>
            """
        let read = try page(rss, type: "application/rss+xml")
        XCTAssertEqual(read.title, "Scripting News")
        XCTAssertEqual(read.entries.map(\.title), ["An issue"])
    }
}
