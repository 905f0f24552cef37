import Foundation
import TestSupport
import XCTest

/// calibre-web from PyPI, as readers run it: HTTP Basic, its instance name as every feed's title,
/// and its limiter, which locks a user for a minute after three failed logins.
final class CalibreWebEndToEndTests: XCTestCase {
    var folder: TemporaryDirectory!
    var runner: CommandRunner!
    var calibreWeb: CalibreWebServer!
    let spring = Fixtures.pdf(size: 80_000, seed: 31)
    static let password = "Cw-adm1n-pass"

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        let books = TemporaryDirectory()
        try spring.write(to: URL(fileURLWithPath: books.path + "/spring.pdf"))
        let library = books.path + "/library"
        try CalibreServer.makeLibrary([
            .init(path: books.path + "/spring.pdf", title: "Harbour Review Spring", author: "Ann Editor",
                  cover: CommandRunner.resources + "/demo/covers/tt-2026-02.png"),
        ], at: library, folder: books)
        calibreWeb = try CalibreWebServer(library: library, password: Self.password, folder: books)
        runner = CommandRunner(folder: folder, extra: ["CW_PASSWORD": Self.password])
        try FileManager.default.createDirectory(atPath: folder.path + "/home", withIntermediateDirectories: true)
    }

    override func tearDown() {
        calibreWeb = nil
        runner = nil
        folder = nil
    }

    func testBrowseSubscribeWithNetrcListDownloadCoversSearchAndOpen() throws {
        let browse = try runner.run("browse", calibreWeb.url("/opds").absoluteString, "--user", "admin", "--password-env", "CW_PASSWORD")
        XCTAssertEqual(browse.status, 0, browse.error)
        XCTAssertTrue(browse.output.contains("/opds/new"), browse.output)
        try "machine 127.0.0.1 login admin password \(Self.password)\n".write(toFile: folder.path + "/home/.netrc", atomically: true, encoding: .utf8)
        let subscribe = try runner.run("subscribe", calibreWeb.url("/opds/new").absoluteString, "--name", "cw", "--netrc")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        XCTAssertTrue(subscribe.output.contains("1 issue (OPDS 1.2)"), subscribe.output)
        let listed = try runner.run("list", "--json", "--offline", "--subscription", "cw")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any], listed.error)
        let issue = try XCTUnwrap((object["issues"] as? [[String: Any]])?.first)
        XCTAssertEqual(issue["title"] as? String, "Harbour Review Spring")
        let id = try XCTUnwrap(issue["id"] as? String)
        let download = try runner.run("download", "cw/\(id)")
        XCTAssertEqual(download.status, 0, download.output + download.error)
        let after = try runner.run("list", "--json", "--offline", "--subscription", "cw")
        let path = try XCTUnwrap(((try JSONSerialization.jsonObject(with: Data(after.output.utf8)) as? [String: Any])?["issues"] as? [[String: Any]])?
            .first?["path"] as? String)
        XCTAssertEqual(FileManager.default.contents(atPath: path), spring)
        XCTAssertEqual(try runner.run("covers", "--subscription", "cw").status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path + "/data/newsstand/cw/.covers"))
        let search = try runner.run("search", "cw", "Harbour")
        XCTAssertEqual(search.status, 0, search.error)
        XCTAssertTrue(search.output.contains("Harbour Review Spring"), search.output)
        let opener = try FakeOpener(in: folder).path
        var opening: CommandRunner = runner
        opening.environment["NEWSSTAND_OPENER"] = opener
        XCTAssertEqual(try opening.run("open", "cw/\(id)").status, 0)
        XCTAssertEqual(try String(contentsOfFile: folder.path + "/opened.txt", encoding: .utf8).trimmingCharacters(in: .newlines), path)
        for file in try FileManager.default.subpathsOfDirectory(atPath: folder.path) where file != "home/.netrc" {
            let data = FileManager.default.contents(atPath: folder.path + "/" + file) ?? Data()
            XCTAssertNil(data.range(of: Data(Self.password.utf8)), "the password is in \(file)")
        }
    }

    func testAWrongPasswordGoesOnceACommandAndTheLockOutIsNamedWithItsWait() throws {
        let subscribe = try runner.run("subscribe", calibreWeb.url("/opds/new").absoluteString, "--name", "cw",
                                       "--user", "admin", "--password-env", "CW_PASSWORD")
        XCTAssertEqual(subscribe.status, 0, subscribe.error)
        var wrong: CommandRunner = runner
        wrong.environment["CW_PASSWORD"] = "not-the-password"
        // calibre-web allows three failed logins a minute: each refresh makes one, never more.
        for attempt in 1...3 {
            let refused = try wrong.run("refresh")
            XCTAssertEqual(refused.status, 6, "attempt \(attempt): \(refused.error)")
            XCTAssertTrue(refused.error.contains("check the user and password of cw") && refused.error.contains("newsstand login cw"), refused.error)
        }
        // Now even the right password is refused for a while: said as a lock-out, with its wait.
        let locked = try runner.run("refresh")
        XCTAssertEqual(locked.status, 6, locked.error)
        XCTAssertTrue(locked.error.contains("locked the login of cw after failed attempts (HTTP 429): wait"), locked.error)
        XCTAssertFalse(locked.error.contains("busy or failing"), locked.error)
        XCTAssertFalse((locked.error + locked.output).contains(Self.password))
    }
}
