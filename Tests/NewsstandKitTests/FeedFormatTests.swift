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
        XCTAssertEqual(refusal("{\"name\": 1}"), "The catalog is JSON, but neither an OPDS 2 feed nor a Baker shelf.")
        XCTAssertTrue(refusal("<opml version=\"2.0\"/>").hasPrefix("The catalog is XML with a <opml> root, which is none of a property list, OPDS 1.2 or 2.0, Atom, RSS 2.0 or Baker's shelf.json."))
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

/// Server file names as servers write them.
final class ContentDispositionTests: XCTestCase {
    func testEveryEncodingServersUse() {
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"Retro Gamer 251.pdf\""), "Retro Gamer 251.pdf")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename*=UTF-8''Caf%C3%A9%20Monthly.pdf"), "Café Monthly.pdf")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"fallback.pdf\"; filename*=UTF-8''pr%C3%A9f%C3%A9r%C3%A9.pdf"), "préféré.pdf")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"=?UTF-8?Q?Space_Comics_=C3=A9t=C3=A9.cbz?=\""), "Space Comics été.cbz")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"=?UTF-8?B?w6l0w6kuY2J6?=\""), "été.cbz")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"../../.bashrc\""), ".bashrc", "only the last component")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=plain.epub"), "plain.epub")
        XCTAssertNil(ContentDisposition.fileName("attachment; filename=\"..\""))
        XCTAssertNil(ContentDisposition.fileName("inline"))
    }
}

/// Inputs `make fuzz` found, kept so that they stay fixed.
final class FeedFuzzRegressionTests: XCTestCase {
    func testARootNameEndingInAColonIsSniffedWithoutACrash() throws {
        // `<feed…:` with no local name after the colon: the sniffer indexed past the split.
        let data = Fixtures.feed("fuzz-crash-sniff-colon.xml")
        XCTAssertThrowsError(try CatalogReader().page(data, url: URL(string: "http://127.0.0.1/f")!, contentType: nil))
        XCTAssertEqual(DocumentSniff(Data("<x: a='1'/>".utf8)).shape, .xml(root: "", namespace: nil))
    }
}

extension FeedFuzzRegressionTests {
    func testAQuotedFileNameEndingInABackslashIsReadWithoutACrash() {
        // Found by `make fuzz`: the index stepped past the end after a final backslash.
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"abc\\"), "abc")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"a\\\"b.pdf\""), "a\"b.pdf")
    }
}

/// The cached form of a catalog: every field reads back as it was.
final class CatalogSnapshotTests: XCTestCase {
    func testEveryFieldAndAwkwardTextReadBack() throws {
        // Text as the validator leaves it (white space already collapsed): read back unchanged.
        let awkward = "A & B <i>x</i> ]]> \u{1B}[31m red \u{7} tab here é 夏 🙂 end"
        let entries = [
            CatalogEntry(CatalogEntry.Fields(
                id: "urn:uuid:1 & <2>", title: awkward, releaseDate: Date(timeIntervalSince1970: 1_794_556_800.75),
                coverAddress: "data:image/png;base64,iVBORw0KGgo=",
                acquisition: Acquisition(address: "http://127.0.0.1:8080/get/pdf/1?x=1&y=2", mediaType: .hpub, size: 41234,
                                         sha256: String(repeating: "ab", count: 32)),
                isFree: false, summary: awkward, price: "4.50 EUR", authors: "A. Writer, B. Artist")),
            CatalogEntry(CatalogEntry.Fields(id: "plain", title: "Plain", acquisition: Acquisition(address: "http://127.0.0.1/p.cbz", mediaType: .cbz))),
        ]
        let catalog = Catalog(title: "Feed & <Co>", entries: entries)
        let data = CatalogSnapshot.data(of: catalog)
        let back = try CatalogReader().catalog(data, url: URL(string: "http://127.0.0.1:8080/feed")!)
        XCTAssertEqual(back.title, "Feed & <Co>")
        XCTAssertEqual(back.warnings, [])
        XCTAssertEqual(back.entries.count, 2)
        let first = back.entries[0]
        XCTAssertEqual(first.id, "urn:uuid:1 & <2>")
        XCTAssertEqual(first.title, awkward)
        XCTAssertEqual(first.summary, awkward)
        XCTAssertEqual(first.releaseDate, Date(timeIntervalSince1970: 1_794_556_800.75), "to the fraction of a second")
        XCTAssertEqual(first.coverAddress, "data:image/png;base64,iVBORw0KGgo=")
        XCTAssertEqual(first.downloadAddress, "http://127.0.0.1:8080/get/pdf/1?x=1&y=2")
        XCTAssertEqual(first.mediaType, .hpub)
        XCTAssertEqual(first.size, 41234)
        XCTAssertEqual(first.sha256, String(repeating: "ab", count: 32))
        XCTAssertFalse(first.isFree)
        XCTAssertEqual(first.price, "4.50 EUR")
        XCTAssertEqual(first.authors, "A. Writer, B. Artist")
        XCTAssertEqual(back.entries[1].mediaType, .cbz, "the media type, not the extension's guess, is kept")
        XCTAssertNil(back.entries[1].releaseDate)
        XCTAssertEqual(first.localKey, LocalKey.make(for: "urn:uuid:1 & <2>"))
    }

    func testTheCacheKeepsEveryFormOfAnIssueAndReadsItByTheOneValidatorsRules() throws {
        let entry = CatalogEntry(CatalogEntry.Fields(
            id: "urn:x:1", title: "Tab\there\r\n and there", coverAddress: "ftp://covers.example/1.png",
            acquisition: Acquisition(address: "http://127.0.0.1/1.epub", mediaType: .epub, size: 10, sizeIsAdvisory: true),
            alternatives: [
                Acquisition(address: "http://127.0.0.1/1.pdf", mediaType: .pdf, size: 20, sha256: String(repeating: "cd", count: 32)),
                Acquisition(address: "http://shop.example/1", mediaType: .pdf, throughWebPage: true),
            ]))
        let data = CatalogSnapshot.data(of: Catalog(title: nil, entries: [entry]))
        let back = try XCTUnwrap(try CatalogReader().catalog(data, url: URL(string: "http://127.0.0.1/feed")!).entries.first)
        XCTAssertEqual(back.acquisitions, entry.acquisitions, "the alternatives are not lost in the cache")
        XCTAssertEqual(back.title, "Tab here and there", "white space collapsed as for every catalog")
        XCTAssertNil(back.coverAddress, "a cover that is no http(s) link is left out, the issue kept")
    }

    func testALargeSnapshotIsAValidBinaryPropertyList() throws {
        // Over 255 and 65,535 objects: references and offsets in two and three or four bytes.
        let entries = (0..<7000).map { number in
            CatalogEntry(CatalogEntry.Fields(
                id: "urn:uuid:\(number)", title: "Issue \(number) — été", releaseDate: Date(timeIntervalSince1970: Double(number) * 86_400),
                acquisition: Acquisition(address: "http://127.0.0.1/\(number).pdf", mediaType: .pdf, size: Int64(number)),
                isFree: number % 2 == 0, summary: String(repeating: "s", count: number % 40)))
        }
        let data = CatalogSnapshot.data(of: Catalog(title: "Big", entries: entries))
        XCTAssertTrue(data.starts(with: Array("bplist00".utf8)))
        // Foundation's reader agrees it is a property list.
        let parsed = try XCTUnwrap(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        XCTAssertEqual((parsed["Issues"] as? [Any])?.count, 7000)
        let back = try CatalogReader().catalog(data, url: URL(string: "http://127.0.0.1/feed")!)
        XCTAssertEqual(back.entries.map(\.id), entries.map(\.id))
        XCTAssertEqual(back.entries.map(\.title), entries.map(\.title))
        XCTAssertEqual(back.entries.map(\.size), entries.map(\.size))
        XCTAssertEqual(back.entries.map(\.releaseDate), entries.map(\.releaseDate))
        XCTAssertEqual(back.entries.map(\.isFree), entries.map(\.isFree))
        // An empty summary is no summary, in every catalog.
        XCTAssertEqual(back.entries.map(\.summary), entries.map { $0.summary.flatMap { $0.isEmpty ? nil : $0 } })
    }

    func testAGivenLocalKeyIsUsedOnlyWhenItIsSafe() throws {
        let catalog = Fixtures.catalog([["ID": "a:b", "Local key": "../../etc", "Title": "T", "Download URL": "x.pdf"],
                                        ["ID": "c:d", "Local key": "kept-key", "Title": "T", "Download URL": "y.pdf"]])
        let back = try CatalogReader().catalog(catalog, url: URL(string: "http://127.0.0.1/c.plist")!)
        XCTAssertEqual(back.entries.map(\.localKey), [LocalKey.make(for: "a:b"), "kept-key"])
    }
}

/// Keys name folders already on readers' disks: the faster byte path must make the same keys.
final class LocalKeyStabilityTests: XCTestCase {
    /// How keys were made before the byte path (by Characters).
    private func reference(_ id: String) -> String {
        if LocalKey.isValid(id) { return id }
        let tail = id.split(whereSeparator: { $0 == ":" || $0 == "/" }).last.map(String.init) ?? ""
        let stem = String(tail.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            .prefix(40).map(Character.init)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        let hash = Fixtures.sha256(Data(id.utf8)).prefix(10)
        return (stem.isEmpty ? "issue" : stem) + "-" + hash
    }

    func testTheSameKeysAsBefore() {
        var ids = ["urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a01", "http://example.com/issues/7", "a b", "::", "//x//", "-x-",
                   "tag:quarterly.example,2026:q4", String(repeating: "z", count: 150), "../../etc", "a:--b--:", "é:été", "夏/1",
                   "Issue #42 (May)", "\r\n", "x/\r\ny", ""]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09-:/._ #%é夏\u{301}\r\n".unicodeScalars)
        for _ in 0..<2000 {
            let length = Int.random(in: 1...60, using: &generator)
            ids.append(String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! })))
        }
        for id in ids where !id.isEmpty {
            XCTAssertEqual(LocalKey.make(for: id), reference(id), id.debugDescription)
        }
    }
}

/// A feed through the store: fetched, cached, and read back from the cache offline.
final class FeedStoreTests: XCTestCase {
    func testANavigationFeedsSectionsAndSearchComeBackFromTheCache() throws {
        let harness = try StoreHarness()
        harness.server.serve("/opds", .init(body: Fixtures.feed("calibre-root.xml"), contentType: "application/atom+xml", etag: "\"root\""))
        let store = harness.makeStore(url: harness.server.url("/opds"))
        guard case .success(let summary) = store.refreshAndWait() else { return XCTFail("\(store.status)") }
        XCTAssertEqual(summary.totalIssues, 0)
        XCTAssertEqual(store.format, .opds1)
        XCTAssertEqual(store.navigation.count, 3)

        harness.server.stop()
        let offline = harness.makeStore(url: store.subscription.url)
        XCTAssertTrue(offline.loadCache())
        XCTAssertEqual(offline.format, .opds1)
        XCTAssertEqual(offline.navigation.map(\.title), ["By Newest", "By Title", "By Author"])
        XCTAssertEqual(offline.search, .template(harness.server.url("/opds").absoluteString + "/search/{searchTerms}"))
    }
}
