import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// HTTP itself, against Debian's nginx: redirects as it sends them (with an HTML body, relative
/// with `absolute_redirect off`, protocol-relative, to another host), a resumed download across
/// a redirect, auth_basic, gzip.
final class NginxEndToEndTests: XCTestCase {
    var folder: TemporaryDirectory!
    var runner: CommandRunner!
    var nginx: NginxServer!
    let issue = Fixtures.pdf(size: 3_000_000, seed: 7)
    let cover = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        runner = CommandRunner(folder: folder, extra: ["NGINX_PASSWORD": "n9inx-pass-7"])
        try FileManager.default.createDirectory(atPath: folder.path + "/home", withIntermediateDirectories: true)
        let server = TemporaryDirectory()
        let passwords = server.path + "/.htpasswd"
        try "ann:{PLAIN}n9inx-pass-7\n".write(toFile: passwords, atomically: true, encoding: .utf8)
        chmod(passwords, 0o644)
        nginx = try NginxServer(locations: { port, root in
            """
            absolute_redirect off;
            location = /301/catalog.plist { return 301 /catalog.plist; }
            location = /302/catalog.plist { return 302 /catalog.plist; }
            location = /303/catalog.plist { return 303 ../catalog.plist; }
            location = /307/catalog.plist { return 307 //127.0.0.1:\(port)/catalog.plist?from=307; }
            location = /308/catalog.plist { return 308 http://localhost:\(port)/catalog.plist; }
            location = /chain/catalog.plist { return 302 /301/catalog.plist; }
            location = /loop/catalog.plist { return 302 /loop/catalog.plist; }
            location = /moved/a.pdf { return 302 /slow/a.pdf; }
            location = /moved/cover.png { return 301 /covers/cover.png; }
            location = /next/page2.atom { return 301 /feeds/page2.atom; }
            location /slow/ { alias \(root)/issues/; limit_rate 400k; }
            location /private/ { auth_basic "Members"; auth_basic_user_file \(passwords); }
            """
        }, folder: server)
        try nginx.put("issues/a.pdf", issue)
        try nginx.put("covers/cover.png", cover)
        let entry = Fixtures.entry(id: "a", title: "Spring", download: "/moved/a.pdf", cover: "/moved/cover.png", size: issue.count,
                                   sha256: Fixtures.sha256(issue))
        try nginx.put("catalog.plist", Fixtures.catalog([entry]))
    }

    override func tearDown() {
        nginx = nil
        runner = nil
        folder = nil
    }

    private func issueIDs(_ result: CommandRunner.Result) throws -> [String] {
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], result.error)
        return (object["issues"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func testEveryRedirectStatusWithItsBodyRelativeProtocolRelativeAndToAnotherHostIsFollowed() throws {
        for path in ["/301/catalog.plist", "/302/catalog.plist", "/303/catalog.plist", "/307/catalog.plist", "/308/catalog.plist", "/chain/catalog.plist"] {
            let listed = try runner.run("list", "--json", "--catalog", nginx.url(path).absoluteString)
            XCTAssertEqual(listed.status, 0, "\(path): \(listed.error)")
            XCTAssertEqual(try issueIDs(listed), ["a"], path)
        }
        // nginx sent a body with each redirect: that is what broke the old reading of libcurl's redirect URL.
        let redirects = nginx.requests.filter { (300..<400).contains($0.status) }
        XCTAssertEqual(Set(redirects.map(\.status)), [301, 302, 303, 307, 308])
        XCTAssertTrue(nginx.requests.contains { $0.host == "localhost" && $0.target == "/catalog.plist" }, "\(nginx.requests)")
        XCTAssertTrue(nginx.requests.contains { $0.target == "/catalog.plist?from=307" })

        let loop = try runner.run("list", "--catalog", nginx.url("/loop/catalog.plist").absoluteString)
        XCTAssertEqual(loop.status, 2, "no catalog: \(loop.error)")
        XCTAssertTrue(loop.error.contains("redirected more than 5 times"), loop.error)
        XCTAssertEqual(nginx.requests(for: "/loop/catalog.plist").count, 6)
    }

    func testADownloadAndACoverBehindRedirectsAndAResumeKeepsItsRangeAcrossTheHop() throws {
        let catalog = nginx.url("/302/catalog.plist").absoluteString
        let subscribed = try runner.run("subscribe", catalog, "--name", "spring")
        XCTAssertEqual(subscribed.status, 0, subscribed.error)
        // Killed part-way (nginx sends 400 KB a second), then run again: the redirect is followed
        // again and the second request to the file asks only for the rest.
        let (process, _, _) = try runner.start(["download", "spring/a"])
        let part = folder.path + "/data/newsstand/spring/a/a.pdf.part"
        let deadline = Date().addingTimeInterval(20)
        while (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int ?? 0) ?? 0 < 200_000 && Date() < deadline {
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let download = try runner.run("download", "spring/a")
        XCTAssertEqual(download.status, 0, download.output + download.error)
        let installed = folder.path + "/data/newsstand/spring/a/a.pdf"
        XCTAssertEqual(FileManager.default.contents(atPath: installed), issue)
        let fileRequests = nginx.requests(for: "/slow/a.pdf")
        XCTAssertEqual(fileRequests.count, 2, "\(fileRequests)")
        XCTAssertEqual(fileRequests.first?.range, "-")
        XCTAssertTrue(fileRequests.last?.range.hasPrefix("bytes=") == true && fileRequests.last?.range != "bytes=0-", "\(fileRequests)")
        XCTAssertEqual(nginx.requests(for: "/moved/a.pdf").count, 2)

        let covers = try runner.run("covers", "--subscription", "spring")
        XCTAssertEqual(covers.status, 0, covers.error)
        XCTAssertEqual(nginx.requests(for: "/covers/cover.png").map(\.status), [200])
    }

    func testANextPageBehindARedirectAndAGzipFeed() throws {
        func feed(_ entries: [String], next: String?) -> Data {
            let items = entries.map { id in
                """
                <entry><id>\(id)</id><title>Issue \(id)</title><updated>2026-01-0\(id.count)T00:00:00Z</updated>
                <link rel="http://opds-spec.org/acquisition" type="application/pdf" href="/issues/a.pdf"/></entry>
                """
            }.joined()
            let link = next.map { "<link rel=\"next\" type=\"application/atom+xml;profile=opds-catalog\" href=\"\($0)\"/>" } ?? ""
            // Long enough for nginx to compress it.
            let padding = "<subtitle>" + String(repeating: "A magazine of the harbour. ", count: 40) + "</subtitle>"
            return Data("<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><id>f</id><title>Harbour</title>\(padding)\(link)\(items)</feed>".utf8)
        }
        try nginx.put("feeds/page1.atom", feed(["one", "two"], next: "/next/page2.atom"))
        // Page 2 links to a page 3 that is not there: the two pages read are the catalog, and it says so.
        try nginx.put("feeds/page2.atom", feed(["three"], next: "/feeds/page3.atom"))
        let listed = try runner.run("list", "--json", "--catalog", nginx.url("/feeds/page1.atom").absoluteString)
        XCTAssertEqual(listed.status, 0, listed.error)
        XCTAssertEqual(Set(try issueIDs(listed)), ["one", "two", "three"])
        XCTAssertTrue(listed.error.contains("note: Page 3 of the feed could not be read (") && listed.error.contains("HTTP 404")
                      && listed.error.contains("the first 2 pages are shown."), listed.error)
        XCTAssertTrue(listed.output.contains("Page 3 of the feed could not be read"), "and the status says so: \(listed.output)")
        XCTAssertEqual(nginx.requests(for: "/feeds/page3.atom").map(\.status), [404])
        XCTAssertEqual(nginx.requests(for: "/next/page2.atom").map(\.status), [301])
        XCTAssertEqual(nginx.requests(for: "/feeds/page2.atom").map(\.status), [200])
        XCTAssertNotEqual(nginx.requests(for: "/feeds/page1.atom").first?.gzipRatio, "-", "the feed came compressed (and chunked)")
    }

    func testALargeFeedReadInTwoHalvesListsEveryEntryWithItsTitle() throws {
        // Over XMLTreeSecondHalf.minimumSize: its second half is read on the other core. A
        // namespace declared on an entry past the middle, and an entity there, must read as in
        // one pass.
        var text = "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><id>big</id><title>Big Harbour</title>\n"
        for n in 0..<3_000 {
            let late = n == 2_500 ? " xmlns:dc=\"http://purl.org/dc/terms/\"" : ""
            let issued = n == 2_500 ? "<dc:issued>2031-05-06</dc:issued>" : ""
            text += "<entry\(late)><id>e\(n)</id><title>Issue \(n) &amp; tide</title><updated>2026-01-01T00:00:00Z</updated>\(issued)"
            text += "<link rel=\"http://opds-spec.org/acquisition\" type=\"application/pdf\" href=\"/issues/a.pdf\"/></entry>\n"
        }
        let feed = Data((text + "</feed>").utf8)
        XCTAssertGreaterThan(feed.count, 256 << 10)
        try nginx.put("feeds/big.atom", feed)
        let listed = try runner.run("list", "--json", "--catalog", nginx.url("/feeds/big.atom").absoluteString)
        XCTAssertEqual(listed.status, 0, listed.error)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])
        let issues = object["issues"] as? [[String: Any]] ?? []
        XCTAssertEqual(issues.compactMap { $0["id"] as? String }, (0..<3_000).map { "e\($0)" }, "every entry, in the feed's order")
        let byID = Dictionary(issues.map { ($0["id"] as? String ?? "?", $0) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(byID["e2999"]?["title"] as? String, "Issue 2999 & tide")
        XCTAssertEqual(byID["e0"]?["title"] as? String, "Issue 0 & tide")
        // The publication's own date, in Dublin Core declared on that entry alone, beats <updated>.
        XCTAssertEqual(byID["e2500"]?["releaseDate"] as? String, "2031-05-06T00:00:00Z")
        XCTAssertEqual(byID["e2499"]?["releaseDate"] as? String, "2026-01-01T00:00:00Z")
        XCTAssertEqual(nginx.requests(for: "/feeds/big.atom").map(\.status), [200])
    }

    /// A page big enough to be read and checked in pieces on every core, a bad entry in each
    /// piece: `refresh` warns about each at its place in the page, a key repeated from an earlier
    /// piece is a duplicate, and the cached copy lists the rest in the feed's order.
    func testABigPageCheckedInPiecesWarnsAtEachBadEntrysPlaceAndListsTheRestInOrder() throws {
        let count = 2_500
        XCTAssertGreaterThan(Pieces.count(for: count), 1, "read in pieces")
        let pieceCount = Pieces.count(for: count)
        let pieces = (0..<pieceCount).map { Pieces.range(of: $0, among: count, pieces: pieceCount) }
        // In every piece: an entry without an ID, one that repeats the first entry's ID, and one
        // whose download is not http(s).
        let missing = Set(pieces.map { $0.lowerBound + 3 })
        let repeated = Set(pieces.map { $0.lowerBound + 11 })
        let unsupported = Set(pieces.map { $0.upperBound - 2 })
        var text = "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><id>big</id><title>Big Harbour</title>\n"
        for n in 0..<count {
            let id = missing.contains(n) ? "" : repeated.contains(n) ? "e0" : "e\(n)"
            let href = unsupported.contains(n) ? "ftp://127.0.0.1/\(n).pdf" : "/issues/a.pdf"
            text += "<entry><id>\(id)</id><title>Issue \(n)</title><updated>2026-01-01T00:00:00Z</updated>"
            text += "<link rel=\"http://opds-spec.org/acquisition\" type=\"application/pdf\" href=\"\(href)\"/></entry>\n"
        }
        try nginx.put("feeds/pieces.atom", Data((text + "</feed>").utf8))
        XCTAssertEqual(try runner.run("subscribe", nginx.url("/feeds/pieces.atom").absoluteString, "--name", "pieces", "--no-check").status, 0)

        let refreshed = try runner.run("refresh")
        XCTAssertEqual(refreshed.status, 0, refreshed.error)
        let kept = (0..<count).filter { !missing.contains($0) && !repeated.contains($0) && !unsupported.contains($0) }
        XCTAssertTrue(refreshed.output.contains("catalog updated, \(kept.count) issues, \(kept.count) new."), refreshed.output)
        // Warned about in the page's order, numbered from one, whichever core read the piece.
        let warned = refreshed.error.split(separator: "\n").filter { $0.hasPrefix("warning: Skipped issue ") }
        let places = warned.compactMap { line in Int(line.dropFirst("warning: Skipped issue ".count).prefix { $0.isNumber }) }
        // At most twenty lines are printed (more pieces on a machine with more cores).
        let bad = missing.union(repeated).union(unsupported).sorted()
        XCTAssertEqual(places, bad.prefix(20).map { $0 + 1 }, refreshed.error)
        for place in repeated.sorted() where bad.prefix(20).contains(place) {
            XCTAssertTrue(warned.contains { $0.hasPrefix("warning: Skipped issue \(place + 1) (ID \"e0\")") }, "a duplicate: \(refreshed.error)")
        }
        for place in unsupported.sorted() where bad.prefix(20).contains(place) {
            XCTAssertTrue(warned.contains { $0.hasPrefix("warning: Skipped issue \(place + 1) (ID \"e\(place)\")") && $0.hasSuffix("is not an http or https URL.") },
                          "not http(s): \(refreshed.error)")
        }

        let listed = try runner.run("list", "--json", "--offline")
        XCTAssertEqual(listed.status, 0, listed.error)
        XCTAssertEqual(try issueIDs(listed), kept.map { "e\($0)" }, "every usable entry, in the feed's order")
        XCTAssertEqual(nginx.requests(for: "/feeds/pieces.atom").map(\.status), [200])
    }

    func testAuthBasicIsAskedForThenAnsweredAndRememberedAndAWrongPasswordNamesLogin() throws {
        try nginx.put("private/catalog.plist", Fixtures.catalog([Fixtures.entry(id: "p", download: "/private/p.pdf")]))
        try nginx.put("private/p.pdf", issue)
        let catalog = nginx.url("/private/catalog.plist").absoluteString
        let subscribed = try runner.run("subscribe", catalog, "--name", "members", "--user", "ann", "--password-env", "NGINX_PASSWORD")
        XCTAssertEqual(subscribed.status, 0, subscribed.error)
        // Over http nothing is sent before the server asks; then it is remembered for this origin.
        XCTAssertEqual(nginx.requests(for: "/private/catalog.plist").map(\.status), [401, 200])
        XCTAssertEqual(try runner.run("download", "members/p").status, 0)
        XCTAssertEqual(nginx.requests(for: "/private/p.pdf").map(\.status), [200], "answered in the first request")
        XCTAssertEqual(try runner.run("refresh").status, 0)
        XCTAssertEqual(nginx.requests(for: "/private/catalog.plist").map(\.status), [401, 200, 304], "a new process knows it too: answered (and revalidated) in one request")
        XCTAssertTrue(nginx.requests.allSatisfy { $0.authorization == "-" || $0.authorization.hasPrefix("Basic ") })
        // Another 304 with nothing new writes nothing: the same copy, the same info (its attribute).
        let copy = folder.path + "/cache/newsstand/catalogs/members.catalog"
        let (bytes, inode) = (FileOps.attribute(CatalogCache.infoAttributeName, of: copy), try FileManager.default.attributesOfItem(atPath: copy)[.systemFileNumber] as? Int)
        XCTAssertNotNil(bytes)
        XCTAssertEqual(try runner.run("refresh").status, 0)
        XCTAssertEqual(nginx.requests(for: "/private/catalog.plist").map(\.status), [401, 200, 304, 304])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copy)[.systemFileNumber] as? Int, inode)
        XCTAssertEqual(FileOps.attribute(CatalogCache.infoAttributeName, of: copy), bytes)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/cache/newsstand/catalogs/members.json"))

        var wrong: CommandRunner = runner
        wrong.environment["NGINX_PASSWORD"] = "not-it-at-all"
        let refused = try wrong.run("refresh")
        XCTAssertEqual(refused.status, 6, refused.error)
        XCTAssertTrue(refused.error.contains("check the user and password of members") && refused.error.contains("newsstand login members"),
                      refused.error)
        XCTAssertFalse(refused.error.contains("not-it-at-all"))
        // The wrong password went once, not again and again.
        XCTAssertEqual(nginx.requests(for: "/private/catalog.plist").suffix(1).map(\.status), [401])
        XCTAssertEqual(nginx.requests(for: "/private/catalog.plist").count, 5)
        for file in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
            let path = folder.path + "/" + file
            let kept = [CatalogCache.infoAttributeName, Library.partInfoAttributeName].compactMap { FileOps.attribute($0, of: path) }
            for data in [FileManager.default.contents(atPath: path) ?? Data()] + kept {
                XCTAssertNil(data.range(of: Data("n9inx-pass-7".utf8)), "the password is in \(file) or its attributes")
            }
        }
    }

    /// A catalog's copy is installed without waiting for the disk; a power cut can leave it cut
    /// short. A sync does not read the copy, so only its recorded size keeps nginx's 304 from
    /// keeping the short copy for good.
    func testACopyCutShortIsFetchedWholeByASyncInsteadOfRevalidated() throws {
        let catalog = nginx.url("/catalog.plist").absoluteString
        XCTAssertEqual(try runner.run("subscribe", catalog, "--name", "plain").status, 0)
        let copy = folder.path + "/cache/newsstand/catalogs/plain.catalog"
        let installed = try XCTUnwrap(FileManager.default.contents(atPath: copy))
        let synced = try runner.run("sync")
        XCTAssertEqual(synced.status, 0, synced.error)
        XCTAssertEqual(nginx.requests(for: "/catalog.plist").map(\.status), [200, 304], "a sound copy is revalidated")

        try installed.prefix(installed.count / 2).write(to: URL(fileURLWithPath: copy))
        let again = try runner.run("sync")
        XCTAssertEqual(again.status, 0, again.error)
        XCTAssertEqual(nginx.requests(for: "/catalog.plist").map(\.status), [200, 304, 200], "the short copy is fetched whole")
        XCTAssertEqual(FileManager.default.contents(atPath: copy), installed)
        XCTAssertEqual(try issueIDs(try runner.run("list", "--json", "--offline")), ["a"])
    }

    func testSubscribeRefusesWhatCanNeverWorkAndSavesNothing() throws {
        try nginx.put("page.html", Data("<!DOCTYPE html><html><head><title>Welcome</title></head><body>Hello</body></html>".utf8))
        let config = folder.path + "/config/newsstand/config.toml"
        let closed = "http://127.0.0.1:\(RealServer.freePort())/catalog.plist"
        for (url, status, words) in [(nginx.url("/missing.plist").absoluteString, 2, "HTTP 404"),
                                     (nginx.url("/page.html").absoluteString, 2, "web page"),
                                     (closed, 2, "Cannot connect")] {
            let result = try runner.run("subscribe", url, "--name", "never")
            XCTAssertEqual(result.status, Int32(status), "\(url): \(result.error)")
            XCTAssertTrue(result.error.contains("Not subscribed") && result.error.contains(words) && result.error.contains("--no-check"),
                          "\(url): \(result.error)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: config), "nothing written for \(url)")
        }
        // Offline now, on purpose: saved all the same.
        let saved = try runner.run("subscribe", closed, "--name", "later", "--no-check")
        XCTAssertEqual(saved.status, 0, saved.error)
        XCTAssertTrue(try String(contentsOfFile: config, encoding: .utf8).contains("[subscriptions.later]"))
    }

    func testIDsAreWholeInAPipeFoundByAnyUniquePartAndEachAddressIsTried() throws {
        let ids = ["urn:uuid:0c0ffee0-0000-4000-8000-000000000001", "urn:uuid:0c0ffee0-0000-4000-8000-000000000002",
                   "http://example.org/issues/2026/spring-special"]
        try nginx.put("ids.plist", Fixtures.catalog(ids.map { Fixtures.entry(id: $0, download: "/issues/a.pdf") }))
        XCTAssertEqual(try runner.run("subscribe", nginx.url("/ids.plist").absoluteString, "--name", "ids").status, 0)
        let table = try runner.run("list", "--offline", "--subscription", "ids")
        for id in ids { XCTAssertTrue(table.output.contains(id), "whole in a pipe: \(table.output)") }

        let ambiguous = try runner.run("mark", "read", "ids/0c0ffee0")
        XCTAssertEqual(ambiguous.status, 3, ambiguous.error)
        XCTAssertTrue(ambiguous.error.contains("is part of 3 IDs") || ambiguous.error.contains("is part of 2 IDs"), ambiguous.error)
        let marked = try runner.run("mark", "read", "ids/0c0ffee0-0000-4000-8000-000000000002", "ids/spring-sp", "ids/nothing-like-it")
        XCTAssertEqual(marked.status, 3, "one address named nothing: \(marked.error)")
        XCTAssertTrue(marked.output.contains("ids/") && marked.output.components(separatedBy: ": read.").count == 3, marked.output)
        XCTAssertTrue(marked.error.contains("No issue \"nothing-like-it\" in ids"), marked.error)
    }

    func testTheDigestComputedAsTheBytesArriveCoversEveryByte() throws {
        // Large enough that most of it is hashed behind the writes, not at the end.
        let large = Fixtures.pdf(size: 24_000_000, seed: 11)
        var tampered = large
        tampered[12_000_000] ^= 0x01
        try nginx.put("issues/large.pdf", tampered)
        try nginx.put("large.plist", Fixtures.catalog([
            Fixtures.entry(id: "large", download: "/issues/large.pdf", size: large.count, sha256: Fixtures.sha256(large))]))
        let catalog = nginx.url("/large.plist").absoluteString
        let issueFolder = folder.path + "/data/newsstand/large/large"
        XCTAssertEqual(try runner.run("subscribe", catalog, "--name", "large").status, 0)

        let refused = try runner.run("download", "large/large")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.error.contains("The download's SHA-256 does not match the catalog's; it was discarded."), refused.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: issueFolder + "/large.pdf"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: issueFolder + "/large.pdf.part"), "the wrong bytes are not kept to resume from")

        try nginx.put("issues/large.pdf", large)
        let installed = try runner.run("download", "large/large")
        XCTAssertEqual(installed.status, 0, installed.error)
        XCTAssertEqual(FileManager.default.contents(atPath: issueFolder + "/large.pdf"), large)
        XCTAssertEqual(nginx.requests(for: "/issues/large.pdf").map(\.range), ["-", "-"], "each time the whole file, never a resume from refused bytes")
    }

    func testADownloadFetchesOnlyTheCatalogItNeedsAndOnlyWhenItsCopyLacksTheIssue() throws {
        try nginx.put("other.plist", Fixtures.catalog([Fixtures.entry(id: "o", download: "/issues/a.pdf")]))
        XCTAssertEqual(try runner.run("subscribe", nginx.url("/catalog.plist").absoluteString, "--name", "spring").status, 0)
        XCTAssertEqual(try runner.run("subscribe", nginx.url("/other.plist").absoluteString, "--name", "other", "--no-check").status, 0)
        let download = try runner.run("download", "spring/a")
        XCTAssertEqual(download.status, 0, download.error)
        XCTAssertEqual(nginx.requests(for: "/catalog.plist").count, 1, "the cached copy knew spring/a: no refetch")
        XCTAssertTrue(nginx.requests(for: "/other.plist").isEmpty, "another subscription's catalog is not this download's business")

        // An ID the copy does not know yet: that catalog alone is fetched again.
        let entries = [Fixtures.entry(id: "a", download: "/moved/a.pdf", size: issue.count, sha256: Fixtures.sha256(issue)),
                       Fixtures.entry(id: "b", download: "/issues/a.pdf")]
        try nginx.put("catalog.plist", Fixtures.catalog(entries))
        XCTAssertEqual(try runner.run("download", "spring/b").status, 0)
        XCTAssertEqual(nginx.requests(for: "/catalog.plist").count, 2)
        XCTAssertTrue(nginx.requests(for: "/other.plist").isEmpty)
    }

    func testOverHTTPSBasicGoesWithTheFirstRequestAndTLSIsVerified() throws {
        let folder = TemporaryDirectory()
        let passwords = folder.path + "/.htpasswd"
        try "ann:{PLAIN}n9inx-pass-7\n".write(toFile: passwords, atomically: true, encoding: .utf8)
        chmod(passwords, 0o644)
        let secure = try NginxServer(locations: { _, _ in
            "location /private/ { auth_basic \"Members\"; auth_basic_user_file \(passwords); }"
        }, tls: true, folder: folder)
        try secure.put("private/catalog.plist", Fixtures.catalog([Fixtures.entry(id: "p", download: "/private/p.pdf")]))
        let catalog = secure.url("/private/catalog.plist").absoluteString
        let untrusted = try runner.run("subscribe", catalog, "--name", "secure", "--user", "ann", "--password-env", "NGINX_PASSWORD")
        XCTAssertEqual(untrusted.status, 2, untrusted.error)
        XCTAssertTrue(untrusted.error.contains("certificate could not be verified"), untrusted.error)
        let subscribed = try runner.run("subscribe", catalog, "--name", "secure", "--user", "ann", "--password-env", "NGINX_PASSWORD",
                                        "--ca-file", HTTPSServer.authority)
        XCTAssertEqual(subscribed.status, 0, subscribed.error)
        // Over TLS the password is not in plain text on the wire: Basic goes at once, no 401 first.
        XCTAssertEqual(secure.requests(for: "/private/catalog.plist").map(\.status), [200], "\(secure.requests)")
    }

    /// A property list behind a path key (as Kavita's OPDS puts it), whose links repeat the key:
    /// subscribed and downloaded through nginx, the key reaches no file newsstand writes, and the
    /// issue still downloads from the copy, its link whole again.
    func testAPropertyListWhoseURLHoldsAKeyLeavesTheKeyOffTheDisk() throws {
        let key = "k3y-plist-0815"
        try nginx.put("api/opds/\(key)/issues/a.pdf", issue)
        let entry = Fixtures.entry(id: "a", download: nginx.url("/api/opds/\(key)/issues/a.pdf").absoluteString,
                                   size: issue.count, sha256: Fixtures.sha256(issue))
        try nginx.put("api/opds/\(key)/catalog.plist", Fixtures.catalog([entry]))
        let subscribe = try runner.run("subscribe", nginx.url("/api/opds/\(key)/catalog.plist").absoluteString, "--name", "keyed")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        let download = try runner.run("download", "keyed/a")
        XCTAssertEqual(download.status, 0, download.error)
        XCTAssertEqual(nginx.requests(for: "/api/opds/\(key)/catalog.plist").count, 1, "the download came from the copy")
        XCTAssertEqual(nginx.requests(for: "/api/opds/\(key)/issues/a.pdf").map(\.status), [200])

        var checked = 0
        for area in ["cache", "data", "state"] {
            let files = FileManager.default.enumerator(atPath: folder.path + "/" + area)?.allObjects.compactMap { $0 as? String } ?? []
            for file in files where !file.hasSuffix(".pdf") {
                guard let bytes = FileManager.default.contents(atPath: folder.path + "/" + area + "/" + file) else { continue }
                checked += 1
                XCTAssertNil(bytes.range(of: Data(key.utf8)), "\(area)/\(file) holds the key")
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 2, "the copy and the reading state were looked at")
    }
}
