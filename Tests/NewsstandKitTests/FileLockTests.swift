import Foundation
@testable import NewsstandKit
import XCTest

final class FileLockTests: XCTestCase {
    private func temporaryPath() throws -> String {
        let folder = NSTemporaryDirectory() + "newsstand-lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder + "/.lock"
    }

    /// The error taking the lock at `path` meets, or nil when it was taken (and dropped again).
    private func refusal(_ path: String) -> NewsstandError? {
        do {
            let lock = try FileLock(path: path, whenHeld: NewsstandError(.busy, "held"))
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
}
