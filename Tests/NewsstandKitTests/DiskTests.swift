import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// What reaches the disk: a full disk, and links planted in the library.
final class DiskTests: XCTestCase {
    func testAFullDiskSaysSoAndHarmsNothingElse() throws {
        guard let disk = SmallDisk(bytes: 1 << 20) else { throw XCTSkip("tmpfs cannot be mounted here (needs root)") }
        let harness = try StoreHarness()
        harness.policy.maximumAttempts = 1
        let (small, smallEntry) = harness.serveIssue("small", size: 200_000, seed: 1)
        let (_, bigEntry) = harness.serveIssue("big", size: 3_000_000, seed: 2)
        harness.serveCatalog([smallEntry, bigEntry])
        let store = harness.makeStore(url: harness.server.url("/catalog.plist"), directories: Directories(
            data: disk.path + "/newsstand", cache: harness.folder.path + "/cache", state: harness.folder.path + "/state"))
        _ = try store.refreshAndWait().get()

        let first = try XCTUnwrap(store.issue(withID: "small"))
        harness.newsstand.download(first)
        XCTAssertTrue(harness.waitUntilFinished(first).isDownloaded)

        let big = try XCTUnwrap(store.issue(withID: "big"))
        harness.newsstand.download(big)
        let failure = try XCTUnwrap(harness.waitUntilFinished(big).failure)
        XCTAssertEqual(failure.code, .diskFull)
        XCTAssertTrue(failure.message.contains("disk is full"), failure.message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.filePath(for: "big", as: .pdf)), "nothing half-installed")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "small", as: .pdf))), small)
        XCTAssertTrue(store.loadCache(), "the catalog cache is unharmed")
    }

    func testAFullDiskWhileWritingTheCatalogCacheKeepsTheOldCache() throws {
        guard let disk = SmallDisk(bytes: 1 << 20) else { throw XCTSkip("tmpfs cannot be mounted here (needs root)") }
        let harness = try StoreHarness()
        let small = (0..<3).map { Fixtures.entry(id: "i\($0)", download: "issues/i\($0).pdf") }
        harness.serveCatalog(small, etag: "\"small\"")
        let directories = Directories(data: harness.folder.path + "/data", cache: disk.path + "/cache", state: harness.folder.path + "/state")
        let url = harness.server.url("/catalog.plist")
        XCTAssertEqual(try harness.makeStore(url: url, directories: directories).refreshAndWait().get().totalIssues, 3)

        // About 2 MB of catalog: more than the disk holds.
        let big = (0..<6_000).map {
            Fixtures.entry(id: "issue-\($0)", title: "A title long enough to fill the disk \($0)", download: "issues/\($0).pdf")
        }
        harness.serveCatalog(big, etag: "\"big\"")
        let store = harness.makeStore(url: url, directories: directories)
        XCTAssertTrue(store.loadCache())
        guard case .failure(let error) = store.refreshAndWait() else { return XCTFail("a full disk must fail the refresh") }
        XCTAssertEqual(error.code, .diskFull, error.message)
        guard case .offline = store.status else { return XCTFail("status \(store.status)") }
        XCTAssertEqual(store.numberOfIssues, 3, "the old catalog is still shown")

        try assertTheCopyBeforeStaysWhole(issues: 3, harness: harness, url: url, directories: directories)
    }

    /// A feed whose first page fits but whose copy does not (its later pages are fetched into
    /// memory) is shown all the same, with a remark that no copy was kept; the copy before it
    /// stays whole for an offline start, and nothing is left beside it.
    func testAFeedWhoseCopyDoesNotFitIsShownAndSaysNoCopyWasKept() throws {
        guard let disk = SmallDisk(bytes: 1 << 20) else { throw XCTSkip("tmpfs cannot be mounted here (needs root)") }
        let harness = try StoreHarness()
        func feed(_ ids: Range<Int>, next: String? = nil) -> Data {
            Fixtures.atomFeed(ids, next: next) { "\(String(repeating: "A long title for the disk ", count: 8))\($0)" }
        }
        harness.server.serve("/feed.atom", .init(body: feed(0..<3), contentType: "application/atom+xml"))
        let directories = Directories(data: harness.folder.path + "/data", cache: disk.path + "/cache", state: harness.folder.path + "/state")
        let url = harness.server.url("/feed.atom")
        XCTAssertEqual(try harness.makeStore(url: url, directories: directories).refreshAndWait().get().totalIssues, 3)

        // A first page of three entries, then a page of 5,000: about 1.4 MB of copy.
        harness.server.serve("/feed.atom", .init(body: feed(3..<6, next: "/feed-2.atom"), contentType: "application/atom+xml"))
        harness.server.serve("/feed-2.atom", .init(body: feed(6..<5_006), contentType: "application/atom+xml"))
        let store = harness.makeStore(url: url, directories: directories)
        let summary = try store.refreshAndWait().get()
        XCTAssertEqual(summary.totalIssues, 5_003, "the catalog is shown")
        XCTAssertEqual(summary.remarks, store.remarks, "the refresh's summary carries it, for `sync`")
        guard case .copyNotKept(let failure)? = store.remarks.last else { return XCTFail("remarks \(store.remarks)") }
        XCTAssertEqual(failure.code, .diskFull, failure.message)
        XCTAssertTrue(store.remarks.last!.description.contains("the disk is full"), store.remarks.last!.description)

        try assertTheCopyBeforeStaysWhole(issues: 3, harness: harness, url: url, directories: directories)
    }

    /// Room set aside for a file is its own: a disk filled afterwards still takes its bytes, and
    /// room the disk does not have is refused as a full disk, leaving no file.
    func testRoomSetAsideIsKeptForTheFileAndRoomTheDiskLacksIsAFullDisk() throws {
        guard let disk = SmallDisk(bytes: 1 << 20) else { throw XCTSkip("tmpfs cannot be mounted here (needs root)") }
        let scratch = disk.path + "/copy.download"
        XCTAssertThrowsError(try FileOps.reserve(2 << 20, at: scratch, mode: 0o600)) { error in
            XCTAssertEqual((error as? NewsstandError)?.code, .diskFull)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch), "nothing left of a reservation refused")

        try FileOps.reserve(600_000, at: scratch, mode: 0o600)
        // The rest of the disk, filled by someone else.
        let fillerPath = disk.path + "/filler"
        XCTAssertTrue(FileManager.default.createFile(atPath: fillerPath, contents: nil))
        let filler = try XCTUnwrap(FileHandle(forWritingAtPath: fillerPath))
        XCTAssertThrowsError(try filler.write(contentsOf: Data(count: 1 << 20)), "the disk is full now")
        try filler.close()

        let bytes = Data((0..<550_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        XCTAssertGreaterThan(bytes.count, 2 * FileOps.largestWrite, "written in three pieces, the last a short one")
        try FileOps.overwrite(scratch, with: bytes)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: scratch)), bytes, "written whole, and cut to its length")
        var info = stat()
        XCTAssertEqual(lstat(scratch, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }

    /// The copy a refresh on a full disk did not replace still opens, with its `issues`, and
    /// nothing but copies and their info is left in the cache.
    private func assertTheCopyBeforeStaysWhole(issues: Int, harness: StoreHarness, url: URL, directories: Directories,
                                               file: StaticString = #filePath, line: UInt = #line) throws {
        let again = harness.makeStore(url: url, directories: directories)
        XCTAssertTrue(again.loadCache(), "the copy before stays whole", file: file, line: line)
        XCTAssertEqual(again.numberOfIssues, issues, file: file, line: line)
        let left = try FileManager.default.contentsOfDirectory(atPath: directories.cache + "/catalogs")
        XCTAssertEqual(left.filter { !$0.hasSuffix(".catalog") && !$0.hasSuffix(".json") }, [], "no scratch file left behind", file: file, line: line)
    }

    /// A store whose catalog has one issue, "a", and that does not retry.
    private func storeWithOneIssue() throws -> (StoreHarness, Store) {
        let harness = try StoreHarness()
        harness.policy.maximumAttempts = 1
        let (_, entry) = harness.serveIssue("a", size: 50_000)
        harness.serveCatalog([entry])
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        return (harness, store)
    }

    func testALinkPlantedForAnIssueFolderIsNotFollowed() throws {
        let (harness, store) = try storeWithOneIssue()
        let outside = harness.folder.path + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: store.library.root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: store.library.folder(for: "a"), withDestinationPath: outside)

        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(failure.code, .fileSystem)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "nothing written through the link")
    }

    func testALinkPlantedAsThePartFileIsNotFollowed() throws {
        let (harness, store) = try storeWithOneIssue()
        let victim = harness.folder.path + "/victim.txt"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        try store.library.prepareFolder(for: "a")
        try FileManager.default.createSymbolicLink(atPath: store.library.partPath(for: "a", as: .pdf), withDestinationPath: victim)

        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(failure.code, .fileSystem)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious")
    }
}
