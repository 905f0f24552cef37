import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// A file written a piece at a time on another thread: all of it or nothing at its path.
final class PiecewiseFileWriterTests: XCTestCase {
    func testThePiecesLandInOrderAndNothingIsAtThePathBeforeTheInstall() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/snapshot"
        let writer = try PiecewiseFileWriter(path: path, mode: 0o600)
        // Pieces of different sizes, one far larger than a pipe or a page, one empty.
        let pieces = [Data("first ".utf8), Data(repeating: 0x41, count: 3 << 20), Data(), Data(" last".utf8)]
        for piece in pieces { writer.append(piece) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing is at the path before the install")
        try writer.install(durable: false)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), pieces.reduce(Data(), +))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["snapshot"], "no temporary file is left")
    }

    func testAWriterDroppedBeforeItsInstallLeavesTheOldFileAndNoTemporaryOne() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/snapshot"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        do {
            let writer = try PiecewiseFileWriter(path: path, mode: 0o600)
            writer.append(Data(repeating: 0x42, count: 1 << 20))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data("old".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["snapshot"])
    }

    func testAnInstallThatFailsSaysWhereRemovesItsFileAndLeavesWhatWasThere() throws {
        let folder = TemporaryDirectory()
        // A folder that is not empty cannot be replaced by a file.
        let path = folder.path + "/snapshot"
        try FileManager.default.createDirectory(atPath: path + "/kept", withIntermediateDirectories: true)
        let writer = try PiecewiseFileWriter(path: path, mode: 0o600)
        writer.append(Data("new".utf8))
        XCTAssertThrowsError(try writer.install(durable: true)) { error in
            XCTAssertEqual((error as? NewsstandError)?.code, .fileSystem)
            XCTAssertTrue((error as? NewsstandError)?.message.contains(path) ?? false, "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["snapshot"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "/kept"))
    }

    func testAFolderThatCannotTakeTheFileFailsAtOnce() {
        XCTAssertThrowsError(try PiecewiseFileWriter(path: "/nonexistent-newsstand-folder/snapshot", mode: 0o600)) { error in
            XCTAssertEqual((error as? NewsstandError)?.code, .fileSystem)
        }
    }
}
