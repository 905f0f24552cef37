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

    func testACatalogWithoutRoomFailsAndOneWhoseCopyDoesNotFitIsShownWithANote() throws {
        guard let disk = SmallDisk(bytes: 1 << 20) else { throw XCTSkip("tmpfs cannot be mounted here (needs root)") }
        let folder = TemporaryDirectory()
        var runner = CommandRunner(folder: folder)
        runner.environment["XDG_CACHE_HOME"] = disk.path
        let nginx = try NginxServer()
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
        let left = (try? FileManager.default.contentsOfDirectory(atPath: disk.path + "/newsstand/catalogs")) ?? []
        XCTAssertEqual(left, [], "nothing half-written is left on the disk")
    }
}
