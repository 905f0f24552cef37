import Foundation
import ShelfUI
import XCTest

/// Compares a rendered buffer with `Snapshots/NAME.txt`; `SNAPSHOT_RECORD=1 swift test` writes
/// them anew, and fails each test it writes for, so that a recording run is never taken for a
/// passing one.
func assertSnapshot(_ buffer: Buffer, named name: String, file: StaticString = #filePath, line: UInt = #line) {
    compareSnapshot(buffer.lines(), file: name + ".txt", what: "Snapshot \(name)", source: file, line: line)
}

/// Compares a buffer's rows with their colour escapes (``Buffer/ansiLines()``) with
/// `Snapshots/NAME.ansi`: what a terminal is sent, not only the text.
func assertColorSnapshot(_ buffer: Buffer, named name: String, file: StaticString = #filePath, line: UInt = #line) {
    compareSnapshot(buffer.ansiLines(), file: name + ".ansi", what: "Colour snapshot \(name)", source: file, line: line)
}

private func compareSnapshot(_ lines: [String], file name: String, what: String, source: StaticString, line: UInt) {
    let folder = URL(fileURLWithPath: "\(source)").deletingLastPathComponent().appendingPathComponent("Snapshots")
    let path = folder.appendingPathComponent(name)
    let actual = lines.joined(separator: "\n") + "\n"
    if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let previous = try? String(contentsOf: path, encoding: .utf8)
        do {
            try actual.write(to: path, atomically: true, encoding: .utf8)
        } catch {
            XCTFail("\(what) could not be recorded at \(path.path): \(error)", file: source, line: line)
            return
        }
        XCTFail("\(what) recorded (\(previous == actual ? "unchanged" : previous == nil ? "new" : "changed")): run again without SNAPSHOT_RECORD to check it.",
                file: source, line: line)
        return
    }
    guard let expected = try? String(contentsOf: path, encoding: .utf8) else {
        XCTFail("No snapshot \(name): run with SNAPSHOT_RECORD=1 to record it.", file: source, line: line)
        return
    }
    if actual != expected {
        XCTFail("\(what) differs.\n--- expected\n\(expected)--- actual\n\(actual)", file: source, line: line)
    }
}

extension ShelfState {
    /// A state whose selection is the item at `index`, as a snapshot starts from.
    static func selecting(_ index: Int) -> ShelfState {
        var state = ShelfState()
        state.selected = index
        return state
    }
}
