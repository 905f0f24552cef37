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

    func testXMLEscapingByBytesKeepsEveryOtherCharacter() {
        XCTAssertEqual(XMLText.escaped("Plain title, no markup"), "Plain title, no markup")
        XCTAssertEqual(XMLText.escaped(#"Été & <夏号> "q" 'a' 👍🏽"#), "Été &amp; &lt;夏号&gt; &quot;q&quot; 'a' 👍🏽")
        XCTAssertEqual(XMLText.escaped("&amp;"), "&amp;amp;")
        XCTAssertEqual(XMLText.escaped(""), "")
    }

    func testFileNamesSplitAtTheirLastDot() {
        XCTAssertEqual(FileName.pathExtension("2026-03 Spring Issue.pdf"), "pdf")
        XCTAssertEqual(FileName.stem("2026-03 Spring Issue.pdf"), "2026-03 Spring Issue")
        XCTAssertEqual(FileName.pathExtension("Vol. 3. Zine #3 & 50% off?.EPUB"), "EPUB")
        XCTAssertEqual(FileName.stem("Vol. 3. Zine #3 & 50% off?.EPUB"), "Vol. 3. Zine #3 & 50% off?")
        XCTAssertEqual(FileName.stem("夏号.cbz"), "夏号")
        for bare in ["README", "name.", ".hidden", ""] {
            XCTAssertEqual(FileName.pathExtension(bare), "", bare)
            XCTAssertEqual(FileName.stem(bare), bare)
        }
    }

    func testDisplayWidthCountsWideAndCombiningCharacters() {
        XCTAssertEqual(DisplayWidth.of("abc"), 3)
        XCTAssertEqual(DisplayWidth.of("夏号"), 4)
        XCTAssertEqual(DisplayWidth.of("e\u{301}"), 1)
        XCTAssertEqual(DisplayWidth.of("🙂"), 2)
    }

    /// Titles that trip terminals up: CJK, emoji with and without presentation selectors, skin
    /// tones, ZWJ families, flags, combining marks, Hangul jamo, zero-width spaces.
    static let awkwardTitles = [
        "夏号 · 特集", "Café e\u{301}\u{303}", "👍🏽 thumbs", "👨\u{200D}👩\u{200D}👧 family", "☺\u{FE0F} smile", "☺ plain",
        "🇩🇪🇫🇷 flags", "한국어 \u{1100}\u{1161}\u{11A8}", "zero\u{200B}width", "Ａｌｐｈａ fullwidth", "⌚⏰ clocks",
        "ก\u{0E31}\u{0E49} thai", "🏳\u{FE0F}\u{200D}🌈 flag", "mixed 夏👍é\u{301}",
    ]

    /// The width of each title as the C library's wcwidth counts it, scalar by scalar (what ncurses
    /// places characters by), asked of Python's ctypes so that the check does not share our code.
    func testDisplayWidthAgreesWithTheCLibrarysWcwidth() throws {
        let script = """
            import ctypes, json, sys
            libc = ctypes.CDLL("libc.so.6")
            libc.newlocale.restype = ctypes.c_void_p
            libc.uselocale.argtypes = [ctypes.c_void_p]
            libc.uselocale(libc.newlocale(1 << 0, b"C.UTF-8", None))  # LC_CTYPE_MASK
            print(json.dumps([sum(max(0, libc.wcwidth(ord(c))) for c in t) for t in json.load(sys.stdin)]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: Self.awkwardTitles))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [Int])
        XCTAssertEqual(Self.awkwardTitles.map(DisplayWidth.of), expected)
    }

    func testAGraphemeIsSplitIntoTheCellsNcursesWouldUse() {
        let family = Character("👨\u{200D}👩\u{200D}👧")
        XCTAssertEqual(DisplayWidth.cells(of: family).map(\.width), [2, 2, 2])
        XCTAssertEqual(DisplayWidth.cells(of: family).first?.text, "👨\u{200D}", "the joiner rides on the cell before")
        XCTAssertEqual(DisplayWidth.cells(of: Character("e\u{301}\u{303}")).map(\.width), [1])
        XCTAssertEqual(DisplayWidth.cells(of: Character("☺\u{FE0F}")).map(\.width), [1], "wcwidth counts the selector as 0")
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
