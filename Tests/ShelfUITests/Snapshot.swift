import Foundation
import ShelfUI
import XCTest

/// Compares a rendered buffer with `Snapshots/NAME.txt`; `SNAPSHOT_RECORD=1 swift test` writes them anew.
func assertSnapshot(_ buffer: Buffer, named name: String, file: StaticString = #filePath, line: UInt = #line) {
    let folder = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Snapshots")
    let path = folder.appendingPathComponent(name + ".txt")
    let actual = buffer.lines().joined(separator: "\n") + "\n"
    if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? actual.write(to: path, atomically: true, encoding: .utf8)
        return
    }
    guard let expected = try? String(contentsOf: path, encoding: .utf8) else {
        XCTFail("No snapshot \(name).txt: run with SNAPSHOT_RECORD=1 to record it.", file: file, line: line)
        return
    }
    if actual != expected {
        XCTFail("Snapshot \(name) differs.\n--- expected\n\(expected)--- actual\n\(actual)", file: file, line: line)
    }
}

/// Compares a buffer's rows with their colour escapes (``Buffer/ansiLines()``) with
/// `Snapshots/NAME.ansi`: what a terminal is sent, not only the text.
func assertColorSnapshot(_ buffer: Buffer, named name: String, file: StaticString = #filePath, line: UInt = #line) {
    let folder = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Snapshots")
    let path = folder.appendingPathComponent(name + ".ansi")
    let actual = buffer.ansiLines().joined(separator: "\n") + "\n"
    if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
        try? actual.write(to: path, atomically: true, encoding: .utf8)
        return
    }
    guard let expected = try? String(contentsOf: path, encoding: .utf8) else {
        XCTFail("No snapshot \(name).ansi: run with SNAPSHOT_RECORD=1 to record it.", file: file, line: line)
        return
    }
    if actual != expected {
        XCTFail("Colour snapshot \(name) differs.\n--- expected\n\(expected)--- actual\n\(actual)", file: file, line: line)
    }
}
