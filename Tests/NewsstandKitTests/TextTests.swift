@testable import NewsstandKit
import XCTest

final class TextTests: XCTestCase {
    func testControlAndBidiCharactersAreMadeInert() {
        let hostile = "Evil\u{1B}[2J\u{1B}]0;pwned\u{07}\u{9B}31m\u{202E}txt.exe\u{2066}\nnext\tcol\u{0}"
        let inert = TextSanitizer.inert(hostile)
        XCTAssertFalse(inert.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        XCTAssertFalse(inert.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) })
        XCTAssertTrue(inert.contains("Evil"))
        XCTAssertTrue(inert.contains("next col"))
    }

    func testDisplayWidthCountsWideAndCombiningCharacters() {
        XCTAssertEqual(DisplayWidth.of("abc"), 3)
        XCTAssertEqual(DisplayWidth.of("夏号"), 4)
        XCTAssertEqual(DisplayWidth.of("e\u{301}"), 1)
        XCTAssertEqual(DisplayWidth.of("🙂"), 2)
    }

    func testDaysAreFormattedInUTC() {
        XCTAssertEqual(Formatting.day(Date(timeIntervalSince1970: 1_767_225_600)), "2026-01-01")
        XCTAssertEqual(Formatting.day(Date(timeIntervalSince1970: 1_767_225_599.5)), "2025-12-31")
        XCTAssertEqual(Formatting.day(Date(timeIntervalSince1970: -86_400 * 365 - 0.5)), "1968-12-31")
        XCTAssertEqual(Formatting.day(Date(timeIntervalSince1970: 951_782_400)), "2000-02-29")
        XCTAssertEqual(Formatting.day(nil), "")
        XCTAssertEqual(Formatting.timestamp(Date(timeIntervalSince1970: 1_767_256_205)), "2026-01-01T08:30:05Z")
        XCTAssertEqual(Formatting.timestamp(Date(timeIntervalSince1970: -1)), "1969-12-31T23:59:59Z")
    }

    func testTruncateNeverSplitsAWideCharacterOrExceedsTheWidth() {
        let cut = DisplayWidth.truncate("夏夏夏夏", to: 5)
        XCTAssertEqual(cut, "夏夏…")
        XCTAssertLessThanOrEqual(DisplayWidth.of(cut), 5)
        XCTAssertEqual(DisplayWidth.pad("ab", to: 4), "ab  ")
        XCTAssertEqual(DisplayWidth.truncate("anything", to: 0), "")
    }
}
