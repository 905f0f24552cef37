import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// A file replaced by a rename is removed afterwards; the destination is whole throughout.
final class RetiredFilesTests: XCTestCase {
    private func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    func testTheNewFileTakesThePlaceAndTheOldOneIsRemovedAfterwards() throws {
        let folder = TemporaryDirectory()
        let destination = folder.path + "/weekly.catalog"
        try write("old", destination)
        // Still readable through a descriptor opened before: the old file is freed, not rewritten.
        let old = try FileHandle(forReadingFrom: URL(fileURLWithPath: destination))
        try write("new", folder.path + "/weekly.catalog.download")
        XCTAssertEqual(RetiredFiles.replace(destination, with: folder.path + "/weekly.catalog.download"), 0)
        XCTAssertEqual(read(destination), "new")
        RetiredFiles.waitForRemovals()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["weekly.catalog"])
        XCTAssertEqual(String(decoding: try old.readToEnd() ?? Data(), as: UTF8.self), "old")
        try old.close()
    }

    func testTheOldFileKeepsASecondNameUntilTheQueueRemovesIt() throws {
        let folder = TemporaryDirectory()
        let destination = folder.path + "/weekly.catalog"
        try write("old", destination)
        let old = open(destination, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(old, 0)
        defer { close(old) }
        try write("new", folder.path + "/download")
        RetiredFiles.queue.suspend()
        var resumed = false
        defer { if !resumed { RetiredFiles.queue.resume() } }
        XCTAssertEqual(RetiredFiles.replace(destination, with: folder.path + "/download"), 0)
        // The rename freed nothing: the old file is still linked, under its second name.
        XCTAssertEqual(read(destination), "new")
        XCTAssertEqual(read(destination + ".retired"), "old")
        var status = stat()
        XCTAssertEqual(fstat(old, &status), 0)
        XCTAssertEqual(status.st_nlink, 1)
        RetiredFiles.queue.resume()
        resumed = true
        RetiredFiles.waitForRemovals()
        XCTAssertEqual(fstat(old, &status), 0)
        XCTAssertEqual(status.st_nlink, 0, "removed by the queue")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["weekly.catalog"])
    }

    func testWithNothingToReplaceItIsARenameAndALeftoverSecondNameGoes() throws {
        let folder = TemporaryDirectory()
        let destination = folder.path + "/weekly.catalog"
        try write("first", folder.path + "/download")
        XCTAssertEqual(RetiredFiles.replace(destination, with: folder.path + "/download"), 0)
        XCTAssertEqual(read(destination), "first")
        // What a process that died before removing the old copy left.
        try write("left", destination + ".retired")
        try write("second", folder.path + "/download")
        XCTAssertEqual(RetiredFiles.replace(destination, with: folder.path + "/download"), 0)
        RetiredFiles.waitForRemovals()
        XCTAssertEqual(read(destination), "second")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["weekly.catalog"])
    }

    func testAFailedRenameLeavesTheDestinationAndNoSecondName() throws {
        let folder = TemporaryDirectory()
        let destination = folder.path + "/weekly.catalog"
        try write("kept", destination)
        XCTAssertEqual(RetiredFiles.replace(destination, with: folder.path + "/missing"), ENOENT)
        RetiredFiles.waitForRemovals()
        XCTAssertEqual(read(destination), "kept")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["weekly.catalog"])
    }
}
