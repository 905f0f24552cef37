import Foundation
import TestSupport
import XCTest

/// Which commands read catalogs into heaps advised for 2 MiB pages, seen from outside: each is
/// held in the middle of its catalog's fetch (the server sends part of the body, then nothing)
/// while the test reads the running process's smaps. `refresh`, `list` and `sync` ask for them;
/// `download` does not (its peak RSS is a bench row).
final class HugePagesEndToEndTests: XCTestCase {
    /// A server with a 40-issue catalog, and the command in a temporary XDG folder.
    private struct Setting {
        let folder = TemporaryDirectory()
        let server: TestServer
        let runner: CommandRunner
        var catalogURL: String { server.url("/catalog.plist").absoluteString }

        init() throws {
            server = try TestServer()
            runner = CommandRunner(folder: folder)
            let entries = (0..<40).map { Fixtures.entry(id: "i\($0)", download: "issues/i\($0).pdf") }
            server.serve("/catalog.plist", .init(body: Fixtures.catalog(entries), contentType: "application/xml", etag: "\"cat\""))
        }

        /// Starts the command with the catalog's next answer stalled after its first bytes, waits
        /// until those bytes went out, and answers whether any mapping of the process is advised
        /// (`hg` in its VmFlags); the process is then ended.
        func advisesHugePages(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Bool {
            let before = server.requests(for: "/catalog.plist").count
            server.inject(.stallAfter(100), into: "/catalog.plist")
            let (process, _, errorPath) = try runner.start(arguments)
            defer {
                process.terminate()
                process.waitUntilExit()
            }
            let stalled = server.wait { $0.requests(for: "/catalog.plist").count > before && $0.bodyBytesSent(for: "/catalog.plist") >= 100 }
            XCTAssertTrue(stalled, "the command asked for the catalog: \((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")",
                          file: file, line: line)
            // Read to its end (a `/proc` file's size says 0, and a read by size gets a part).
            let smaps = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/smaps")?.readToEnd())
            let flags = String(decoding: smaps, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("VmFlags:") }
            XCTAssertGreaterThan(flags.count, 10, "smaps was read whole", file: file, line: line)
            return flags.contains { $0.split(separator: " ").contains("hg") }
        }
    }

    func testRefreshListAndSyncAdviseTheirHeaps() throws {
        let setting = try Setting()
        defer { setting.server.stop() }
        XCTAssertTrue(try setting.advisesHugePages(["refresh", "--catalog", setting.catalogURL]), "refresh")
        XCTAssertTrue(try setting.advisesHugePages(["list", "--catalog", setting.catalogURL]), "list")
        let subscribed = try setting.runner.run("subscribe", setting.catalogURL, "--name", "monthly")
        XCTAssertEqual(subscribed.status, 0, subscribed.output + subscribed.error)
        XCTAssertTrue(try setting.advisesHugePages(["sync"]), "sync")
    }

    func testADownloadKeepsSmallPages() throws {
        let setting = try Setting()
        defer { setting.server.stop() }
        XCTAssertFalse(try setting.advisesHugePages(["download", "i1", "--catalog", setting.catalogURL]))
    }
}
