import Foundation
import TestSupport
import XCTest

/// Debian's calibre content server in its default authentication (Digest over http, 400 to a
/// Basic header it did not ask for), on a library `calibredb` made of two PDFs and an EPUB that
/// calibre's converter wrote.
final class CalibreEndToEndTests: XCTestCase {
    var folder: TemporaryDirectory!
    var runner: CommandRunner!
    var calibre: CalibreServer!
    var openedRecord: String { folder.path + "/opened.txt" }
    let spring = Fixtures.pdf(size: 120_000, seed: 21)
    let summer = Fixtures.pdf(size: 90_000, seed: 22)
    static let password = "Cal1bre-s3cret"

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        let books = TemporaryDirectory()
        try spring.write(to: URL(fileURLWithPath: books.path + "/spring.pdf"))
        try summer.write(to: URL(fileURLWithPath: books.path + "/summer.pdf"))
        try CalibreServer.makeEPUB(title: "Autumn Almanac", text: "Autumn\n\nLeaves fall.\n", at: books.path + "/autumn.epub", folder: books)
        calibre = try CalibreServer(books: [
            .init(path: books.path + "/spring.pdf", title: "Harbour Review Spring", author: "Ann Editor",
                  cover: CommandRunner.resources + "/demo/covers/tt-2026-01.png"),
            .init(path: books.path + "/summer.pdf", title: "Harbour Review Summer", author: "Ann Editor"),
            .init(path: books.path + "/autumn.epub", title: "Autumn Almanac", author: "Bo Writer"),
        ], user: "reader", password: Self.password)
        let opener = try FakeOpener(in: folder).path
        runner = CommandRunner(folder: folder, extra: ["NEWSSTAND_OPENER": opener, "CALIBRE_PASSWORD": Self.password])
        try FileManager.default.createDirectory(atPath: folder.path + "/home", withIntermediateDirectories: true)
    }

    override func tearDown() {
        calibre = nil
        runner = nil
        folder = nil
    }

    private func issues(_ name: String) throws -> [[String: Any]] {
        let result = try runner.run("list", "--json", "--offline", "--subscription", name)
        XCTAssertEqual(result.status, 0, result.error)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], result.output)
        return object["issues"] as? [[String: Any]] ?? []
    }

    private func assertNoPasswordAnywhere(file: StaticString = #filePath, line: UInt = #line) throws {
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder.path) where path != "home/.netrc" {
            let data = FileManager.default.contents(atPath: folder.path + "/" + path) ?? Data()
            XCTAssertNil(data.range(of: Data(Self.password.utf8)), "the password is in \(path)", file: file, line: line)
        }
    }

    func testBrowseSubscribeWithNetrcListDownloadSearchCoversAndOpen() throws {
        try "machine 127.0.0.1\nlogin reader\npassword \(Self.password)\n".write(toFile: folder.path + "/home/.netrc", atomically: true, encoding: .utf8)
        let browse = try runner.run("browse", calibre.url("/opds").absoluteString)
        XCTAssertEqual(browse.status, 0, browse.error)
        XCTAssertTrue(browse.output.contains("By Newest") && browse.output.contains("By Title"), browse.output)

        let newest = calibre.url("/opds/navcatalog/4f6e6577657374").absoluteString
        let subscribe = try runner.run("subscribe", newest, "--name", "calibre", "--netrc")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("3 issues (OPDS 1.2)"), subscribe.output)
        let listed = try issues("calibre")
        XCTAssertEqual(Set(listed.compactMap { $0["title"] as? String }), ["Harbour Review Spring", "Harbour Review Summer", "Autumn Almanac"])
        XCTAssertTrue(listed.allSatisfy { ($0["id"] as? String)?.hasPrefix("urn:uuid:") == true })

        // A part of the urn:uuid ID is enough, as a hash prefix is to git; a pipe gets every ID whole.
        let table = try runner.run("list", "--offline", "--subscription", "calibre")
        let springID = try XCTUnwrap(listed.first { $0["title"] as? String == "Harbour Review Spring" }?["id"] as? String)
        XCTAssertTrue(table.output.contains(springID), table.output)
        let uuid = String(springID.dropFirst("urn:uuid:".count).prefix(8))
        let download = try runner.run("download", "calibre/\(uuid)")
        XCTAssertEqual(download.status, 0, download.output + download.error)
        let springPath = try XCTUnwrap(try issues("calibre").first { $0["id"] as? String == springID }?["path"] as? String)
        XCTAssertEqual(FileManager.default.contents(atPath: springPath), spring, "the bytes calibre keeps")
        let autumnID = try XCTUnwrap(listed.first { $0["title"] as? String == "Autumn Almanac" }?["id"] as? String)
        let epub = try runner.run("download", "calibre/\(autumnID)")
        XCTAssertEqual(epub.status, 0, epub.output + epub.error)
        let open = try runner.run("open", "calibre/\(uuid)")
        XCTAssertEqual(open.status, 0, open.error)
        XCTAssertEqual(try String(contentsOfFile: openedRecord, encoding: .utf8).trimmingCharacters(in: .newlines), springPath)

        let covers = try runner.run("covers", "--subscription", "calibre")
        XCTAssertEqual(covers.status, 0, covers.error)
        let search = try runner.run("search", "calibre", "Harbour")
        XCTAssertEqual(search.status, 0, search.error)
        XCTAssertTrue(search.output.contains("Harbour Review Spring") && !search.output.contains("Autumn Almanac"), search.output)

        // Every request after the first challenge answered Digest at once: nothing calibre
        // refused (a 400 would be a Basic header it never asked for).
        let requests = calibre.requests
        XCTAssertFalse(requests.contains { $0.status == 400 }, "\(requests)")
        XCTAssertEqual(requests.filter { $0.status == 401 }.count, 2,
                       "one challenge for browse (nothing known yet), one for subscribe (its own first request): \(requests.map { "\($0.target) \($0.status)" })")
        try assertNoPasswordAnywhere()
    }

    func testARefreshCostsOneRequestOnceTheOriginIsKnownAndAWrongPasswordNamesLogin() throws {
        let newest = calibre.url("/opds/navcatalog/4f6e6577657374").absoluteString
        let subscribe = try runner.run("subscribe", newest, "--name", "calibre", "--user", "reader", "--password-env", "CALIBRE_PASSWORD")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        let before = calibre.requests.count
        XCTAssertEqual(try runner.run("refresh").status, 0)
        let refresh = Array(calibre.requests.dropFirst(before))
        XCTAssertEqual(refresh.map(\.status), [200], "a refresh in a new process: one request, answered with the remembered nonce")
        XCTAssertEqual(refresh.first?.user, "reader")

        var wrong: CommandRunner = runner
        wrong.environment["CALIBRE_PASSWORD"] = "not-the-password"
        let start = calibre.requests.count
        let id = try XCTUnwrap(issues("calibre").first?["id"] as? String)
        let downloadRefused = try wrong.run("download", "calibre/\(id.dropFirst("urn:uuid:".count).prefix(6))")
        // Never fetched, and the server says no: standard output holds no half JSON document.
        XCTAssertEqual(try wrong.run("subscribe", calibre.url("/opds/navcatalog/4f7469746c65").absoluteString, "--name", "titles",
                                     "--user", "reader", "--password-env", "CALIBRE_PASSWORD", "--no-check").status, 0)
        let listRefused = try wrong.run("list", "--json", "--subscription", "titles")
        XCTAssertEqual(listRefused.output, "", "no half document")
        for result in [downloadRefused, listRefused] {
            XCTAssertEqual(result.status, 6, result.error)
            XCTAssertTrue(result.error.contains("check the user and password of") && result.error.contains("newsstand login "), result.error)
            XCTAssertFalse(result.error.contains("not-the-password"))
        }
        XCTAssertTrue(calibre.requests.dropFirst(start).allSatisfy { $0.status != 400 })
        try assertNoPasswordAnywhere()
    }

    func testBasicPinnedWhereCalibreAsksDigestSaysWhatToPinAndLoginMendsIt() throws {
        let newest = calibre.url("/opds/navcatalog/4f6e6577657374").absoluteString
        let pinned = try runner.run("subscribe", newest, "--name", "calibre", "--user", "reader", "--password-env", "CALIBRE_PASSWORD", "--auth", "basic")
        XCTAssertEqual(pinned.status, 6, pinned.error)
        XCTAssertTrue(pinned.error.contains("sends its password only as basic, but the server asks for digest: newsstand login calibre --auth digest"),
                      pinned.error)
        let login = try runner.run("login", "calibre", "--auth", "digest")
        XCTAssertEqual(login.status, 0, login.error)
        XCTAssertTrue(login.output.contains("3 issues"), login.output)
    }
}
