import Foundation
import TestSupport
import XCTest

/// Every catalog format, end to end through the built binary: subscribe → list → download →
/// open, against loopback servers shaped like calibre, Komga, Kavita, calibre-web, an OPDS 2
/// catalog, a Baker shelf and an RSS feed.
final class FeedsEndToEndTests: XCTestCase {
    var folder: TemporaryDirectory!
    var runner: CommandRunner!
    var server: TestServer!
    var openedRecord: String { folder.path + "/opened.txt" }

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        server = try TestServer()
        let opener = try FakeOpener(in: folder).path
        runner = CommandRunner(folder: folder, extra: ["NEWSSTAND_OPENER": opener, "LIBRARY_PASSWORD": "s3cret-pass"])
    }

    override func tearDown() {
        server.stop()
        server = nil
        folder = nil
        runner = nil
    }

    private func serveFeed(_ path: String, _ fixture: String, contentType: String) {
        server.serve(path, .init(body: Fixtures.feed(fixture), contentType: contentType, etag: "\"\(fixture)\""))
    }

    private func run(_ arguments: String...) throws -> CommandRunner.Result {
        try runner.run(arguments)
    }

    private func issues(_ name: String) throws -> [String: [String: Any]] {
        let result = try runner.run(["list", "--json", "--offline", "--subscription", name])
        XCTAssertEqual(result.status, 0, result.error)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        var byID: [String: [String: Any]] = [:]
        for issue in object["issues"] as? [[String: Any]] ?? [] { byID[issue["id"] as? String ?? "?"] = issue }
        return byID
    }

    private func subscriptionsJSON() throws -> (text: String, object: [String: Any]) {
        let result = try runner.run(["list", "--json", "--offline"])
        XCTAssertEqual(result.status, 0, result.error)
        return (result.output, try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]))
    }

    /// Downloads `address` and opens it; returns the path the opener was given.
    @discardableResult
    private func downloadAndOpen(_ address: String, expecting data: Data) throws -> String {
        let download = try runner.run(["download", address])
        XCTAssertEqual(download.status, 0, download.output + download.error)
        let open = try runner.run(["open", address])
        XCTAssertEqual(open.status, 0, open.error)
        let opened = try String(contentsOfFile: openedRecord, encoding: .utf8).trimmingCharacters(in: .newlines)
        XCTAssertTrue(opened.hasPrefix(folder.path), opened)
        if !opened.contains(".pages/") { XCTAssertEqual(FileManager.default.contents(atPath: opened), data) }
        return opened
    }

    // MARK: Servers

    func testCalibreContentServerWithDigestAcrossTwoPagesAndCoversWithCredentials() throws {
        serveFeed("/opds", "calibre-root.xml", contentType: "application/atom+xml;profile=opds-catalog;kind=navigation; charset=utf-8")
        serveFeed("/opds/navcatalog/4f6e6577657374", "calibre-newest-1.xml", contentType: "application/atom+xml; charset=utf-8")
        serveFeed("/opds/navcatalog/4f6e6577657374?offset=2", "calibre-newest-2.xml", contentType: "application/atom+xml; charset=utf-8")
        let november = Fixtures.pdf(size: 41234, seed: 1)
        server.serve("/get/pdf/101/Calibre_Library", .init(body: november))
        server.serve("/get/epub/102/Calibre_Library", .init(body: Fixtures.zip(exactly: 35120), contentType: "application/epub+zip"))
        server.serve("/get/thumb/101/Calibre_Library", .init(body: Data(repeating: 7, count: 500), contentType: "image/jpeg"))
        server.requireDigest(user: "reader", password: "s3cret-pass")

        // The navigation root: browsed, not subscribed to.
        let browse = try run("browse", server.url("/opds").absoluteString, "--user", "reader", "--password-env", "LIBRARY_PASSWORD", "--auth", "digest")
        XCTAssertEqual(browse.status, 0, browse.error)
        XCTAssertTrue(browse.output.contains("By Newest"), browse.output)
        XCTAssertTrue(browse.output.contains(server.url("/opds/navcatalog/4f6e6577657374").absoluteString), browse.output)
        XCTAssertTrue(browse.output.contains("search: " + server.url("/opds").absoluteString + "/search/{searchTerms}"), browse.output)
        // Two levels: By Author's own sections, indented under it; a section linking back is not walked again.
        serveFeed("/opds/navcatalog/4f617574686f7273", "calibre-authors.xml", contentType: "application/atom+xml")
        let tree = try run("browse", server.url("/opds").absoluteString, "--depth", "3", "--user", "reader", "--password-env", "LIBRARY_PASSWORD",
                           "--auth", "digest")
        XCTAssertEqual(tree.status, 0, tree.error)
        XCTAssertTrue(tree.output.contains("\n    Byte Review Editors"), tree.output)
        XCTAssertEqual(tree.output.components(separatedBy: "Back to the top").count, 2, "shown once, not walked: \(tree.output)")
        let treeJSON = try run("browse", server.url("/opds").absoluteString, "--depth", "2", "--json", "--user", "reader",
                               "--password-env", "LIBRARY_PASSWORD", "--auth", "digest")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(treeJSON.output.utf8)) as? [String: Any])
        let sections = try XCTUnwrap(object["sections"] as? [[String: Any]])
        XCTAssertEqual(sections.map { $0["title"] as? String }, ["By Newest", "By Title", "By Author"])
        let authors = try XCTUnwrap(sections[2]["sections"] as? [[String: Any]])
        XCTAssertEqual(authors.first?["title"] as? String, "Byte Review Editors")
        XCTAssertEqual(authors.first?["kind"] as? String, "issues")
        XCTAssertEqual(object["format"] as? String, "OPDS 1.2")

        // Pinned to Basic where Digest is asked for: the error says what to set.
        let feed = server.url("/opds/navcatalog/4f6e6577657374").absoluteString
        let basic = try run("subscribe", feed, "--name", "wrongauth", "--user", "reader", "--password-env", "LIBRARY_PASSWORD", "--auth", "basic")
        XCTAssertTrue(basic.error.contains("sends its password only as basic") && basic.error.contains("newsstand login wrongauth --auth digest"), basic.error)
        XCTAssertFalse(basic.error.contains("s3cret-pass"))
        // The command the message names mends it.
        let login = try run("login", "wrongauth", "--auth", "digest")
        XCTAssertEqual(login.status, 0, login.error)
        XCTAssertTrue(login.output.contains("credentials set (digest as reader)") && login.output.contains("3 issues"), login.output)
        XCTAssertEqual(try run("unsubscribe", "wrongauth").status, 0)
        // Not pinned: the scheme the server asks for.
        let asked = try run("subscribe", feed, "--name", "asked", "--user", "reader", "--password-env", "LIBRARY_PASSWORD")
        XCTAssertEqual(asked.status, 0, asked.error)
        XCTAssertEqual(try run("unsubscribe", "asked").status, 0)

        let subscribe = try run("subscribe", feed, "--name", "calibre", "--user", "reader", "--password-env", "LIBRARY_PASSWORD", "--auth", "digest")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("3 issues (OPDS 1.2)"), subscribe.output)
        XCTAssertTrue(subscribe.error.contains("1 item of the feed offers nothing to download"), subscribe.error)
        let listed = try issues("calibre")
        XCTAssertEqual(Set(listed.keys), ["urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a01", "urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a02",
                                          "urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a03"])
        XCTAssertEqual(listed["urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a01"]?["size"] as? Int, 41234)
        XCTAssertEqual(listed["urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a01"]?["authors"] as? String, "Byte Review Editors")
        XCTAssertEqual(listed["urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a02"]?["mediaType"] as? String, "application/epub+zip")
        XCTAssertEqual(try subscriptionsJSON().object["subscriptions"].flatMap { ($0 as? [[String: Any]])?.first?["format"] as? String }, "OPDS 1.2")

        try downloadAndOpen("calibre/urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a01", expecting: november)
        XCTAssertEqual(try run("download", "calibre/urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a02").status, 0)

        // Covers of the same origin go with the credentials (calibre-web and calibre readers lose them otherwise).
        _ = try run("covers", "--subscription", "calibre")
        let coverRequests = server.requests(for: "/get/thumb/101/Calibre_Library")
        XCTAssertTrue(coverRequests.contains { $0.headers["authorization"]?.hasPrefix("Digest username=\"reader\"") == true }, "\(coverRequests)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path + "/data/newsstand/calibre"), "one folder per subscription")

        // Offline, the paginated feed comes back whole from its cached snapshot.
        server.stop()
        let offline = try issues("calibre")
        XCTAssertEqual(offline.count, 3)
        XCTAssertEqual(offline["urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a01"]?["state"] as? String, "downloaded")
    }

    func testKomgaWithBasicPagesByQueryStopsAtALoopAndTypesZipsByName() throws {
        serveFeed("/opds/v1.2/series/0A1B?page=0", "komga-series.xml", contentType: "application/atom+xml;charset=UTF-8")
        serveFeed("/opds/v1.2/series/0A1B?page=1", "komga-series-page1.xml", contentType: "application/atom+xml;charset=UTF-8")
        let comic = Fixtures.zip(exactly: 30_000, seed: 4)
        server.serve("/opds/v1.2/books/0B12/file/Space%20Comics%20012.cbz", .init(body: comic, contentType: "application/zip",
            extraHeaders: ["Content-Disposition: attachment; filename=\"=?UTF-8?Q?Space_Comics_012.cbz?=\""]))
        server.requireAuthorization(TestServer.basic("ann", "s3cret-pass"))
        let subscribe = try run("subscribe", server.url("/opds/v1.2/series/0A1B?page=0").absoluteString, "--name", "komga",
                                "--user", "ann", "--password-env", "LIBRARY_PASSWORD")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("Space Comics, 2 issues (OPDS 1.2)"), subscribe.output)
        XCTAssertTrue(subscribe.error.contains("page 2 links back to an earlier page"), subscribe.error)
        let pages = server.requests(for: "/opds/v1.2/series/0A1B")
        XCTAssertEqual(pages.filter { $0.headers["authorization"] != nil }.map(\.target), ["/opds/v1.2/series/0A1B?page=0", "/opds/v1.2/series/0A1B?page=1"],
                       "page 0, page 1, and not page 0 again")
        XCTAssertEqual(pages.count, 3, "over http the password goes once the server asks: one 401 first")
        let listed = try issues("komga")
        XCTAssertEqual(listed["0B12"]?["mediaType"] as? String, "application/vnd.comicbook+zip", "application/zip named .cbz")
        try downloadAndOpen("komga/0B12", expecting: comic)
        let downloaded = try issues("komga")["0B12"]
        XCTAssertEqual(downloaded?["serverFileName"] as? String, "Space Comics 012.cbz", "RFC 2047, decoded; shown, not used as a path")
        XCTAssertTrue((downloaded?["path"] as? String)?.hasSuffix("/0B12.cbz") == true, "\(String(describing: downloaded))")
        XCTAssertTrue(server.requests.allSatisfy { !$0.target.contains("covers.invalid") })
    }

    func testKavitasKeyInThePathIsNeverShown() throws {
        let key = "8c1f5e2a-0d7b-4a39-b1f2-kavitakey"
        serveFeed("/api/opds/\(key)/series/7?pageNumber=1", "kavita-series.xml", contentType: "application/xml")
        serveFeed("/api/opds/\(key)/series/7?pageNumber=2", "kavita-series-2.xml", contentType: "application/xml")
        let issue = Fixtures.pdf(size: 25_000, seed: 9)
        server.serve("/api/opds/\(key)/series/7/volume/9/chapter/301/download/Retro%20Gamer%20251.pdf", .init(body: issue))
        let subscribe = try run("subscribe", server.url("/api/opds/\(key)/series/7?pageNumber=1").absoluteString)
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("Retro Gamer, 2 issues (OPDS 1.2)"), subscribe.output)
        let list = try subscriptionsJSON()
        let subscriptions = try run("subscriptions", "--json")
        let table = try run("subscriptions")
        for text in [subscribe.output, subscribe.error, list.text, subscriptions.output, table.output] {
            XCTAssertFalse(text.contains(key) || text.contains("kavitakey"), text)
        }
        XCTAssertTrue(subscribe.output.contains("/api/opds/[redacted]/series/7"), subscribe.output)
        // Nor does it reach the disk: the cached feed holds a stand-in, and offline it still downloads.
        let cached = FileManager.default.enumerator(atPath: folder.path + "/cache")?.allObjects.compactMap { $0 as? String } ?? []
        for file in cached {
            let bytes = FileManager.default.contents(atPath: folder.path + "/cache/" + file) ?? Data()
            XCTAssertNil(bytes.range(of: Data("kavitakey".utf8)), "\(file) holds the key")
        }
        XCTAssertFalse(cached.isEmpty)
        let name = try XCTUnwrap((list.object["subscriptions"] as? [[String: Any]])?.first?["name"] as? String)
        XCTAssertFalse(name.contains("kavitakey"), name)
        try downloadAndOpen("\(name)/301", expecting: issue)
        // Offline, from the masked cache, the download URL is whole again.
        XCTAssertEqual(try run("delete", "\(name)/301").status, 0)
        try downloadAndOpen("\(name)/301", expecting: issue)
        XCTAssertEqual(server.requests(for: "/api/opds/\(key)/series/7/volume/9/chapter/301/download/Retro%20Gamer%20251.pdf").count, 2)
        let everything = FileManager.default.enumerator(atPath: folder.path)?.allObjects.compactMap { $0 as? String } ?? []
        // The configuration holds the URL the reader gave; nothing newsstand writes holds the key.
        for file in everything where !file.hasSuffix(".pdf") && !file.hasPrefix("config/") {
            guard let bytes = FileManager.default.contents(atPath: folder.path + "/" + file) else { continue }
            XCTAssertNil(bytes.range(of: Data("kavitakey".utf8)), "\(file) holds the key")
        }

        // A failure names the URL without the key.
        server.serve("/api/opds/\(key)/series/7?pageNumber=1", .init(body: Data(), contentType: "text/html"))
        server.inject(.status(404, retryAfter: nil), into: "/api/opds/\(key)/series/7")
        let refresh = try run("refresh", "--subscription", name)
        XCTAssertNotEqual(refresh.status, 0)
        XCTAssertFalse((refresh.output + refresh.error).contains("kavitakey"), refresh.error)
        XCTAssertTrue(refresh.error.contains("[redacted]"), refresh.error)
    }

    func testCalibreWebWithOffsetPages() throws {
        serveFeed("/opds/new?offset=0", "calibre-web-books.xml", contentType: "application/atom+xml; charset=utf-8")
        serveFeed("/opds/new?offset=1", "calibre-web-books-2.xml", contentType: "application/atom+xml; charset=utf-8")
        let epub = Fixtures.zip(exactly: 41000, seed: 3)
        server.serve("/opds/download/10/epub/", .init(body: epub, contentType: "application/epub+zip"))
        server.requireAuthorization(TestServer.basic("ann", "s3cret-pass"))
        let subscribe = try run("subscribe", server.url("/opds/new?offset=0").absoluteString, "--name", "cweb",
                                "--user", "ann", "--password-env", "LIBRARY_PASSWORD")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("2 issues (OPDS 1.2)"), subscribe.output)
        let path = try downloadAndOpen("cweb/urn:uuid:7a0f4c1e-4a64-4b3e-8a0d-3c6b5f1e2d02", expecting: epub)
        XCTAssertTrue(path.hasSuffix(".epub"), path)
    }

    func testOPDS2CatalogAcrossPages() throws {
        serveFeed("/opds2/catalog.json", "opds2.json", contentType: "application/opds+json")
        serveFeed("/opds2/catalog-2.json", "opds2-2.json", contentType: "application/json")
        let comic = Fixtures.zip(exactly: 30500, seed: 5)
        server.serve("/files/oc3.cbz", .init(body: comic, contentType: "application/vnd.comicbook+zip"))
        let subscribe = try run("subscribe", server.url("/opds2/catalog.json").absoluteString, "--name", "comics")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("Open Comics, 3 issues (OPDS 2.0)"), subscribe.output)
        let listed = try issues("comics")
        XCTAssertEqual(listed["urn:isbn:9780000000002"]?["price"] as? String, "4.50 EUR")
        XCTAssertEqual(listed["urn:isbn:9780000000002"]?["free"] as? Bool, false)
        try downloadAndOpen("comics/urn:isbn:9780000000003", expecting: comic)
    }

    func testBakerShelfDownloadsAnHPubAndOpensItsFirstPage() throws {
        serveFeed("/baker/shelf.json", "shelf.json", contentType: "application/json")
        let book = Data(#"{"title": "A Study in Scarlet", "contents": ["pages/cover.html", "pages/one.html"]}"#.utf8)
        let hpub = Fixtures.zip([("book.json", book), ("pages/cover.html", Data("<h1>Cover</h1>".utf8)),
                                 ("pages/one.html", Data("<p>One</p>".utf8))])
        server.serve("/baker/issues/scarlet.hpub", .init(body: hpub, contentType: "application/zip"))
        let hostile = Fixtures.zip([("book.json", book), ("../../escaped.html", Data("<p>gotcha</p>".utf8))])
        server.serve("/baker/issues/four.hpub", .init(body: hostile, contentType: "application/zip"))
        let subscribe = try run("subscribe", server.url("/baker/shelf.json").absoluteString, "--name", "baker")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("2 issues (Baker shelf.json)"), subscribe.output)
        let page = try downloadAndOpen("baker/a-study-in-scarlet", expecting: hpub)
        XCTAssertTrue(page.hasSuffix("/a-study-in-scarlet.pages/pages/cover.html"), page)
        XCTAssertEqual(try String(contentsOfFile: page, encoding: .utf8), "<h1>Cover</h1>")

        let refused = try run("download", "baker/the-sign-of-four")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.error.contains("names a file outside its folder"), refused.error)
        XCTAssertEqual(try issues("baker")["the-sign-of-four"]?["state"] as? String, "remote", "nothing installed")
        let escaped = FileManager.default.enumerator(atPath: folder.path)?.allObjects.compactMap { $0 as? String }.filter { $0.hasSuffix("escaped.html") }
        XCTAssertEqual(escaped, [])
    }

    func testRSSAndAtomEnclosures() throws {
        serveFeed("/zine/feed.rss", "magazine.rss", contentType: "text/html; charset=utf-8")
        try subscribeAndDownload("zine", feed: "/zine/feed.rss", listing: "Zine Weekly, 2 issues (RSS 2.0)",
                                 issue: "zine/zine-42", servedAt: "/pdf/zine-42.pdf", size: 33_000, seed: 6)

        serveFeed("/quarterly/feed.atom", "enclosures.atom", contentType: "application/xml")
        let q4 = Fixtures.pdf(size: 32000, seed: 7)
        server.serve("/q4.pdf", .init(body: q4))
        let atom = try run("subscribe", server.url("/quarterly/feed.atom").absoluteString, "--name", "quarterly")
        XCTAssertTrue(atom.output.contains("Plain Atom Quarterly, 1 issue (Atom)"), atom.output)
        try downloadAndOpen("quarterly/tag:quarterly.example,2026:q4", expecting: q4)
    }

    func testJSONFeedAttachments() throws {
        serveFeed("/byte/feed.json", "magazine.json", contentType: "application/feed+json")
        server.serve("/byte/feed-2.json", .init(body: Data(#"{"version": "https://jsonfeed.org/version/1.1", "items": []}"#.utf8),
                                                contentType: "application/feed+json"))
        try subscribeAndDownload("byte", feed: "/byte/feed.json", listing: "Byte Review, 2 issues (JSON Feed)",
                                 issue: "byte/issues/12", servedAt: "/pdf/byte-12.pdf", size: 34_000, seed: 8)
    }

    /// Subscribes to the feed at `path` as `name`, which lists `listing` and leaves out two items
    /// with nothing to download, then downloads and opens `issue`, a PDF of `size` bytes served at `pdfPath`.
    private func subscribeAndDownload(_ name: String, feed path: String, listing: String, issue: String, servedAt pdfPath: String,
                                      size: Int, seed: UInt8, file: StaticString = #filePath, line: UInt = #line) throws {
        let pdf = Fixtures.pdf(size: size, seed: seed)
        server.serve(pdfPath, .init(body: pdf))
        let subscribed = try run("subscribe", server.url(path).absoluteString, "--name", name)
        XCTAssertEqual(subscribed.status, 0, subscribed.error, file: file, line: line)
        XCTAssertTrue(subscribed.output.contains(listing), subscribed.output, file: file, line: line)
        XCTAssertTrue(subscribed.error.contains("2 items of the feed offer nothing to download"), subscribed.error, file: file, line: line)
        try downloadAndOpen(issue, expecting: pdf)
    }

    func testBingsDailyPicturesAreIssuesThatAreTheirOwnCovers() throws {
        serveFeed("/HPImageArchive.aspx", "bing-archive.json", contentType: "application/json; charset=utf-8")
        var pictures: [String: Data] = [:]
        for (index, name) in ["LighthouseDawn_EN-US4829571036", "AutumnForest_EN-US1122334455", "ElephantGiving_JA-JP6387498046"].enumerated() {
            let picture = try Fixtures.picture("jpeg", red: Double(index) / 2, green: 0.5, blue: 1 - Double(index) / 2)
            pictures[name] = picture
            server.serve("/th?id=OHR.\(name)_1920x1080.jpg&rf=LaDigue_1920x1080.jpg&pid=hp", .init(body: picture, contentType: "image/jpeg"))
            server.serve("/th?id=OHR.\(name)_400x240.jpg", .init(body: try Fixtures.picture("jpeg", red: 0, green: 0, blue: 0), contentType: "image/jpeg"))
        }
        let subscribed = try run("subscribe", server.url("/HPImageArchive.aspx").absoluteString + "?format=js&idx=0&n=8", "--name", "bing")
        XCTAssertEqual(subscribed.status, 0, subscribed.error)
        XCTAssertTrue(subscribed.output.contains("Bing's picture of the day, 3 issues (Bing image archive)"), subscribed.output)
        let listed = try issues("bing")
        XCTAssertEqual(listed["5c941b9849ff540531337d70a04d1df3"]?["title"] as? String, "Lighthouse at dawn, Cape Breton Island, Nova Scotia")
        let covers = try run("covers", "--subscription", "bing")
        XCTAssertEqual(covers.status, 0, covers.output + covers.error)
        XCTAssertEqual(server.requests.filter { $0.target.contains("_400x240.jpg") }.count, 3, "the small pictures are the covers")
        let opened = try downloadAndOpen("bing/5c941b98", expecting: pictures["LighthouseDawn_EN-US4829571036"]!)
        XCTAssertTrue(opened.hasSuffix(".jpg"), opened)
    }

    func testAWebPictureFromAFeedIsMadeACoverOnceDownloaded() throws {
        let webp = try Fixtures.picture("webp", red: 0.1, green: 0.7, blue: 0.2)
        server.serve("/p/fog.webp", .init(body: webp, contentType: "image/webp"))
        let rss = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Daily Picture</title><item><guid>fog</guid><title>Fog</title><enclosure url="/p/fog.webp" type="image/webp"/></item></channel></rss>"#
        server.serve("/daily.rss", .init(body: Data(rss.utf8), contentType: "application/rss+xml"))
        XCTAssertEqual(try run("subscribe", server.url("/daily.rss").absoluteString, "--name", "daily").status, 0)
        try downloadAndOpen("daily/fog", expecting: webp)
        let covers = try run("covers", "--subscription", "daily")
        XCTAssertEqual(covers.status, 0, covers.output + covers.error)
        XCTAssertEqual(try issues("daily")["fog"]?["coverMadeFromIssue"] as? Bool, true)
        let library = try XCTUnwrap(FileManager.default.enumerator(atPath: folder.path + "/data/newsstand/daily")?.allObjects as? [String])
        let cover = try XCTUnwrap(library.first { $0.hasPrefix(".covers/") && !$0.hasSuffix(".made") }, "\(library)")
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: folder.path + "/data/newsstand/daily/" + cover))
        XCTAssertTrue(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "dwebp made a PNG")
    }

    func testHostileFeedsAreRefusedAndTheCachedCopyStays() throws {
        serveFeed("/zine/feed.rss", "magazine.rss", contentType: "application/rss+xml")
        XCTAssertEqual(try run("subscribe", server.url("/zine/feed.rss").absoluteString, "--name", "zine").status, 0)
        let laughs = #"<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><rss><channel><title>&b;</title></channel></rss>"#
        server.serve("/zine/feed.rss", .init(body: Data(laughs.utf8), contentType: "application/rss+xml", etag: "\"bomb\""))
        let refresh = try run("refresh", "--subscription", "zine")
        XCTAssertNotEqual(refresh.status, 0)
        XCTAssertTrue(refresh.error.contains("declares XML entities"), refresh.error)
        XCTAssertEqual(try issues("zine").count, 2, "the cached copy is still listed")

        // Pages that never end stop at the bound.
        for page in 0..<150 {
            let next = "<atom:link xmlns:atom=\"http://www.w3.org/2005/Atom\" rel=\"next\" href=\"/endless?p=\(page + 1)\"/>"
            let body = "<rss><channel><title>Endless</title>\(next)<item><guid>e\(page)</guid><enclosure url=\"/e\(page).pdf\" type=\"application/pdf\"/></item></channel></rss>"
            server.serve("/endless?p=\(page)", .init(body: Data(body.utf8), contentType: "application/rss+xml"))
        }
        let endless = try run("subscribe", server.url("/endless?p=0").absoluteString, "--name", "endless")
        XCTAssertEqual(endless.status, 0, endless.error)
        XCTAssertTrue(endless.output.contains("100 issues (RSS 2.0)"), endless.output)
        XCTAssertTrue(endless.error.contains("Read the first 100 pages (100 entries) of the feed, its max_pages."), endless.error)
        // The bound is the subscription's to set.
        let short = try run("subscribe", server.url("/endless?p=1").absoluteString, "--name", "short", "--max-pages", "7")
        XCTAssertTrue(short.output.contains("7 issues (RSS 2.0)"), short.output)
        XCTAssertTrue(try String(contentsOfFile: folder.path + "/config/newsstand/config.toml", encoding: .utf8).contains("max_pages = 7"))
    }
}
