import Foundation
@testable import NewsstandKit
import XCTest

/// The first load's keys are found by their bytes in the JSON text the reading state wrote;
/// text it did not write that way is left to SQLite's JSON functions.
final class JSONKeyIndexTests: XCTestCase {
    private func index(_ json: String) -> JSONKeyIndex? {
        Array(json.utf8).withUnsafeBufferPointer { JSONKeyIndex(json: $0) }
    }

    func testEveryKeyTheReadingStateWroteIsFoundAndNoOther() throws {
        // Many keys of one length that differ in one byte, prefixes of each other, an empty one.
        let keys = (0..<3_000).map { "i\($0)" } + ["", "i", "issue-0123456789", "2024-01.pdf"]
        let found = try XCTUnwrap(index(ReadingState.jsonArray(keys)))
        XCTAssertEqual(found.count, keys.count)
        for key in keys { XCTAssertTrue(found.contains(key), key) }
        for key in ["i3000", "i-1", "I1", "i10000", "issue", "2024-01", " i1", "i1 "] {
            XCTAssertFalse(found.contains(key), key)
        }
        XCTAssertEqual(index("[]")?.count, 0)
        XCTAssertEqual(index("[]")?.contains(""), false)
    }

    func testTextWithEscapesOrAnotherShapeIsLeftToSQLite() {
        // What jsonArray writes for keys that are not local keys, and JSON written by other hands.
        for json in [ReadingState.jsonArray(["quote\"d"]), ReadingState.jsonArray(["tab\there"]), "[\"a\", \"b\"]",
                     "[\"a\",]", "[\"a\"", "\"a\"]", "[1]", "[\"a\"\"b\"]", "", "[", "{}"] {
            XCTAssertNil(index(json), json)
        }
    }
}
