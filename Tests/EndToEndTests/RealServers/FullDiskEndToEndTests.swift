import Foundation
import TestSupport
import XCTest

/// A cache on a full disk, through the built binary and Debian's nginx: a catalog with no room
/// for its copy fails its refresh and says why; one whose copy alone does not fit (a feed's
/// later pages are fetched into memory) is shown, with a note that no copy was kept.
final class FullDiskEndToEndTests: XCTestCase {
    private func feed(_ ids: Range<Int>, next: String? = nil) -> Data {
        Fixtures.atomFeed(ids, next: next) { "\(String(repeating: "A long title for the disk ", count: 8))\($0)" }
    }

    /// A runner whose cache is a 1 MiB tmpfs, and nginx; held together, so that none goes while
    /// a test still uses another.
    private struct FullDisk {
        let disk: SmallDisk
        let folder = TemporaryDirectory()
        let runner: CommandRunner
        let nginx: NginxServer

        init() throws {
            guard let disk = SmallDisk(bytes: 1 << 20) else { throw XCTSkip("tmpfs cannot be mounted here (needs root)") }
            self.disk = disk
            var runner = CommandRunner(folder: folder)
            runner.environment["XDG_CACHE_HOME"] = disk.path
            self.runner = runner
            nginx = try NginxServer()
        }

        /// What is left in the cache's catalogs folder.
        var catalogsLeft: [String] { (try? FileManager.default.contentsOfDirectory(atPath: disk.path + "/newsstand/catalogs")) ?? [] }
    }

    func testACatalogWithoutRoomFailsAndOneWhoseCopyDoesNotFitIsShownWithANote() throws {
        let full = try FullDisk()
        let (runner, nginx) = (full.runner, full.nginx)
        // About 1.4 MB each: the first as one page, the second after a first page of three entries.
        try nginx.put("one/feed.atom", feed(0..<5_000))
        try nginx.put("paged/feed.atom", feed(0..<3, next: "/paged/feed-2.atom"))
        try nginx.put("paged/feed-2.atom", feed(3..<5_003))

        let refused = try runner.run("refresh", "--catalog", nginx.url("/one/feed.atom").absoluteString)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.error.contains("The disk is full"), refused.error)

        let shown = try runner.run("list", "--json", "--catalog", nginx.url("/paged/feed.atom").absoluteString)
        XCTAssertEqual(shown.status, 0, shown.error)
        let listed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any], shown.error)
        XCTAssertEqual((listed["issues"] as? [[String: Any]])?.count, 5_003)
        XCTAssertTrue(shown.error.contains("note: No copy of this catalog was kept for offline use: the disk is full."), shown.error)
        XCTAssertEqual(nginx.requests(for: "/paged/feed-2.atom").map(\.status), [200])

        let offline = try runner.run("list", "--json", "--offline", "--catalog", nginx.url("/paged/feed.atom").absoluteString)
        XCTAssertNotEqual(offline.status, 0, "no copy to show offline: \(offline.output)")
        XCTAssertEqual(full.catalogsLeft, [], "nothing half-written is left on the disk")
    }

    /// `sync` says it too, as a note, in its JSON and in its log; the catalog itself was read,
    /// so the sync succeeds.
    func testASyncWhoseCopyDoesNotFitSaysSoAndSucceeds() throws {
        let full = try FullDisk()
        let (runner, nginx) = (full.runner, full.nginx)
        try nginx.put("paged/feed.atom", feed(0..<3, next: "/paged/feed-2.atom"))
        try nginx.put("paged/feed-2.atom", feed(3..<5_003))
        let subscribed = try runner.run("subscribe", nginx.url("/paged/feed.atom").absoluteString, "--name", "paged", "--no-fetch")
        XCTAssertEqual(subscribed.status, 0, subscribed.error)
        let sentence = "No copy of this catalog was kept for offline use: the disk is full."

        let synced = try runner.run("sync")
        XCTAssertEqual(synced.status, 0, synced.output + synced.error)
        XCTAssertTrue(synced.output.contains("paged: updated, 5003 new"), synced.output)
        XCTAssertTrue(synced.error.contains("note: paged: \(sentence)"), synced.error)
        let log = try String(contentsOfFile: full.folder.path + "/state/newsstand/newsstand.log", encoding: .utf8)
        XCTAssertTrue(log.contains("paged: \(sentence)"), log)

        let again = try runner.run("sync", "--json")
        XCTAssertEqual(again.status, 0, again.output + again.error)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.output.utf8)) as? [String: Any], again.error)
        let paged = try XCTUnwrap((report["subscriptions"] as? [[String: Any]])?.first)
        let remarks = try XCTUnwrap(paged["remarks"] as? [String], "\(paged)")
        XCTAssertEqual(remarks.count, 1)
        XCTAssertTrue(remarks[0].hasPrefix(sentence), remarks[0])
        XCTAssertEqual(nginx.requests(for: "/paged/feed-2.atom").map(\.status), [200, 200], "no copy, so each sync fetches it whole")
        XCTAssertEqual(full.catalogsLeft, [], "nothing half-written is left on the disk")
    }
}
