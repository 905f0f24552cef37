import Foundation
@testable import NewsstandKit
import XCTest

/// Names are made once and found again by their bytes; a document of more names than the cache
/// holds, or of names it does not keep, still gets each name right.
final class RecentNamesTests: XCTestCase {
    func testEveryNameComesBackAsItsBytesWhateverTheCacheHolds() {
        var names = RecentNames()
        // Many names of one length and the same first and last byte, names past 16 bytes, a
        // name of non-ASCII bytes, each asked for twice in a row and again after all the others.
        let words = (0..<300).map { "a\(String(format: "%03d", $0))z" } + ["a" + String(repeating: "b", count: 20) + "z", "é", "x", "élément"]
        func ask(_ word: String) -> String {
            Array(word.utf8).withUnsafeBufferPointer { names.name($0[...]) }
        }
        for word in words {
            XCTAssertEqual(ask(word), word)
            XCTAssertEqual(ask(word), word)
        }
        for word in words.reversed() { XCTAssertEqual(ask(word), word) }
    }
}
