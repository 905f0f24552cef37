import Foundation
import TestSupport
import XCTest

/// What servers do around the feed itself: search, compression, redirects, other hosts.
final class FeedServersEndToEndTests: XCTestCase {
    var folder: TemporaryDirectory!
    var runner: CommandRunner!
    var server: TestServer!

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        server = try TestServer()
        runner = CommandRunner(folder: folder, extra: ["LIBRARY_PASSWORD": "s3cret-pass"])
    }

    override func tearDown() {
        server.stop()
        server = nil
        folder = nil
        runner = nil
    }

    func testSearchThroughAnOpenSearchDescriptionAndThroughATemplate() throws {
        server.serve("/opds/v1.2/series/0A1B?page=0", .init(body: Fixtures.feed("komga-series.xml"), contentType: "application/atom+xml"))
        server.serve("/opds/v1.2/series/0A1B?page=1", .init(body: Fixtures.feed("komga-series-page1.xml"), contentType: "application/atom+xml"))
        let description = """
            <?xml version="1.0" encoding="UTF-8"?>
            <OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
              <ShortName>Search</ShortName>
              <Url type="text/html" template="/web/search?q={searchTerms}"/>
              <Url type="application/atom+xml;profile=opds-catalog;kind=acquisition" template="/opds/v1.2/search?search={searchTerms}&amp;page={startPage?}"/>
            </OpenSearchDescription>
            """
        server.serve("/opds/v1.2/search", .init(body: Data(description.utf8), contentType: "application/opensearchdescription+xml"))
        server.serve("/opds/v1.2/search?search=space%20comics&page=", .init(body: Fixtures.feed("komga-series-page1.xml"), contentType: "application/atom+xml"))
        server.requireAuthorization(TestServer.basic("ann", "s3cret-pass"))
        XCTAssertEqual(try runner.run("subscribe", server.url("/opds/v1.2/series/0A1B?page=0").absoluteString, "--name", "komga",
                                      "--user", "ann", "--password-env", "LIBRARY_PASSWORD").status, 0)
        let search = try runner.run("search", "komga", "space", "comics")
        XCTAssertEqual(search.status, 0, search.error)
        XCTAssertTrue(search.output.contains("1 result on komga's server for “space comics”"), search.output)
        XCTAssertTrue(search.output.contains("Space Comics 11"), search.output)
        let json = try runner.run("search", "komga", "space", "comics", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        XCTAssertEqual((object["results"] as? [[String: Any]])?.first?["id"] as? String, "0B11")

        server.serve("/opds/new?offset=0", .init(body: Fixtures.feed("calibre-web-books.xml"), contentType: "application/atom+xml"))
        server.serve("/opds/new?offset=1", .init(body: Fixtures.feed("calibre-web-books-2.xml"), contentType: "application/atom+xml"))
        server.serve("/opds/search/linux%20299", .init(body: Fixtures.feed("calibre-web-books-2.xml"), contentType: "application/atom+xml"))
        XCTAssertEqual(try runner.run("subscribe", server.url("/opds/new?offset=0").absoluteString, "--name", "cweb",
                                      "--user", "ann", "--password-env", "LIBRARY_PASSWORD").status, 0)
        let template = try runner.run("search", "cweb", "linux", "299")
        XCTAssertTrue(template.output.contains("The Linux Magazine 299"), template.output + template.error)

        server.serve("/zine/feed.rss", .init(body: Fixtures.feed("magazine.rss"), contentType: "application/rss+xml"))
        server.requireAuthorization(nil)
        XCTAssertEqual(try runner.run("subscribe", server.url("/zine/feed.rss").absoluteString, "--name", "zine").status, 0)
        let none = try runner.run("search", "zine", "x")
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.error.contains("zine's feed (RSS 2.0) offers no search."), none.error)
    }

    func testACompressedFeedARedirectAndRelativeLinksAndAnotherHostWithoutCredentials() throws {
        let other = try TestServer()
        defer { other.stop() }
        let first = """
            <rss xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Moved</title>
            <atom:link rel="next" href="\(other.url("/page2.rss").absoluteString)"/>
            <item><guid>m1</guid><enclosure url="pdf/m1.pdf" type="application/pdf" length="20000"/></item>
            <item><guid>m2</guid><enclosure url="..//pdf//m2.pdf" type="application/pdf"/></item>
            </channel></rss>
            """
        let gzipped = try gzip(Data(first.utf8))
        XCTAssertNotEqual(gzipped, Data(first.utf8))
        server.serve("/new/home/feed.rss", .init(body: gzipped, contentType: "application/xml", extraHeaders: ["Content-Encoding: gzip"]))
        server.redirect("/feed.rss", to: "/new/home/feed.rss")
        let m1 = Fixtures.pdf(size: 20000, seed: 2)
        server.serve("/new/home/pdf/m1.pdf", .init(body: m1))
        server.requireAuthorization(TestServer.basic("ann", "s3cret-pass"))
        other.serve("/page2.rss", .init(body: Data("<rss><channel><item><guid>o1</guid><enclosure url=\"/o1.pdf\" type=\"application/pdf\"/></item></channel></rss>".utf8),
                                       contentType: "application/rss+xml"))
        let subscribe = try runner.run("subscribe", server.url("/feed.rss").absoluteString, "--name", "moved", "--user", "ann", "--password-env", "LIBRARY_PASSWORD")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("Moved, 3 issues (RSS 2.0)"), subscribe.output)
        XCTAssertTrue(server.requests(for: "/new/home/feed.rss").first?.headers["accept-encoding"]?.contains("gzip") == true)
        XCTAssertTrue(server.requests(for: "/new/home/feed.rss").first?.headers["accept"]?.hasPrefix("application/atom+xml;profile=opds-catalog") == true,
                      "\(server.requests(for: "/new/home/feed.rss").map(\.headers))")
        XCTAssertNil(other.requests(for: "/page2.rss").first?.headers["authorization"], "the next page on another host gets no credentials")
        XCTAssertEqual(try runner.run("download", "moved/m1").status, 0, "pdf/m1.pdf resolved against the feed's URL after the redirect")
        let list = try runner.run("list", "--json", "--offline")
        XCTAssertTrue(list.output.contains("\"state\":\"downloaded\""), list.output)
        XCTAssertTrue(server.requests(for: "/new/pdf//m2.pdf").isEmpty)
    }

    func testACoverInsideTheFeedIsWrittenNotFetched() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 3, count: 40))
        let feed = """
            <rss xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Inline</title>
            <item><guid>i1</guid><enclosure url="/i1.pdf" type="application/pdf"/>
            <media:thumbnail url="data:image/png;base64,\(png.base64EncodedString())"/></item></channel></rss>
            """
        server.serve("/inline.rss", .init(body: Data(feed.utf8), contentType: "application/rss+xml"))
        XCTAssertEqual(try runner.run("subscribe", server.url("/inline.rss").absoluteString, "--name", "inline").status, 0)
        let covers = try runner.run("covers", "--subscription", "inline")
        XCTAssertEqual(covers.status, 0, covers.error)
        let files = FileManager.default.enumerator(atPath: folder.path + "/data/newsstand/inline")?.allObjects as? [String] ?? []
        let cover = try XCTUnwrap(files.first { $0.hasSuffix(".covers/i1") }, "\(files)")
        XCTAssertEqual(FileManager.default.contents(atPath: folder.path + "/data/newsstand/inline/" + cover), png)
        XCTAssertEqual(server.requests.filter { $0.path != "/inline.rss" }.count, 0)
    }

    func testACompressionBombIsCutAtTheCatalogSizeCap() throws {
        // 150 MB of an RSS feed's bytes in about 150 KB of gzip: decoded as it arrives, stopped at 128 MiB.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "{ printf '<rss><channel><title>'; head -c 150000000 /dev/zero | tr '\\0' 'a'; } | gzip -1"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bomb = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertLessThan(bomb.count, 1_000_000)
        server.serve("/bomb.rss", .init(body: bomb, contentType: "application/rss+xml", extraHeaders: ["Content-Encoding: gzip"]))
        let result = try runner.run("subscribe", server.url("/bomb.rss").absoluteString, "--name", "bomb")
        XCTAssertTrue(result.error.contains("more than the 134217728 bytes"), result.error)
        let cache = FileManager.default.enumerator(atPath: folder.path + "/cache")?.allObjects.compactMap { $0 as? String } ?? []
        for file in cache {
            let size = (try? FileManager.default.attributesOfItem(atPath: folder.path + "/cache/" + file)[.size] as? Int) ?? 0
            XCTAssertLessThan(size, 1_000_000, "\(file) was left behind")
        }
    }

    private func gzip(_ data: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(data)
        try input.fileHandleForWriting.close()
        let result = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return result
    }
}
