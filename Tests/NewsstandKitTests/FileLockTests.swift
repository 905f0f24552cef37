import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

final class FileLockTests: XCTestCase {
    private func temporaryPath() throws -> String {
        let folder = NSTemporaryDirectory() + "newsstand-lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder + "/.lock"
    }

    /// The error taking the lock on the file (or the folder) at `path` meets, or nil when it was
    /// taken (and dropped again).
    private func refusal(_ path: String, folder: Bool = false) -> NewsstandError? {
        do {
            let held = NewsstandError(.busy, "held")
            let lock = try folder ? FileLock(folder: path, whenHeld: held) : FileLock(path: path, whenHeld: held)
            _ = consume lock
            return nil
        } catch {
            return error
        }
    }

    func testALockIsHeldUntilItIsDroppedAndThenFree() throws {
        let path = try temporaryPath()
        let busy = NewsstandError(.busy, "held")
        do {
            let first = try FileLock(path: path, whenHeld: busy)
            XCTAssertEqual(refusal(path)?.code, .busy)
            _ = consume first
        }
        // Dropped: the next one takes it.
        XCTAssertNil(refusal(path))
    }

    func testASharedLockIsReleasedWhenToldWhoeverStillHoldsIt() throws {
        let path = try temporaryPath()
        let busy = NewsstandError(.busy, "held")
        let shared = SharedFileLock(try FileLock(path: path, whenHeld: busy))
        let copy = shared
        XCTAssertEqual(refusal(path)?.code, .busy)
        shared.release()
        XCTAssertNil(refusal(path), "released although \(copy) is still referenced")
        copy.release()
    }

    func testASymlinkIsNeverFollowed() throws {
        let path = try temporaryPath()
        let target = path + ".target"
        XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: nil))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        XCTAssertNotNil(refusal(path))
        XCTAssertNotEqual(refusal(path)?.code, .busy, "refused as a link, not as held")
    }

    func testAFolderIsLockedWithoutAFileInIt() throws {
        let folder = (try temporaryPath() as NSString).deletingLastPathComponent
        let busy = NewsstandError(.busy, "held")
        do {
            let first = try FileLock(folder: folder, whenHeld: busy)
            XCTAssertEqual(refusal(folder, folder: true)?.code, .busy)
            _ = consume first
        }
        XCTAssertNil(refusal(folder, folder: true))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
        let link = folder + ".link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder)
        addTeardownBlock { unlink(link) }
        XCTAssertNotNil(refusal(link, folder: true))
        XCTAssertNotEqual(refusal(link, folder: true)?.code, .busy, "refused as a link, not as held")
    }

    /// Deleting an issue leaves its folder while a download holds it, and removes it after
    /// (with the lock file of versions before folder locks).
    func testADeletedIssuesFolderGoesOnlyWhenNoDownloadHoldsIt() throws {
        let data = TemporaryDirectory()
        let library = Library(directories: Directories.fromEnvironment(data.environment), subscriptionName: "test")
        try library.prepareFolder(for: "a")
        let folder = library.folder(for: "a")
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/.lock", contents: nil))
        do {
            let held = try FileLock(folder: folder, whenHeld: NewsstandError(.busy, "held"))
            try library.delete(key: "a")
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder), "removed under a download")
            _ = consume held
        }
        try library.delete(key: "a")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder))
    }
}
