import NewsstandKit
@testable import ShelfUI
import XCTest

final class BufferTests: XCTestCase {
    func testWideCharactersTakeTwoCellsAndAreNeverSplit() {
        var buffer = Buffer(width: 5, height: 1)
        let used = buffer.write("a夏号", x: 0, y: 0)
        XCTAssertEqual(used, 5)
        XCTAssertEqual(buffer.lines(), ["a夏号"])
        var narrow = Buffer(width: 4, height: 1)
        narrow.write("a夏号", x: 0, y: 0)
        XCTAssertEqual(narrow.lines(), ["a夏"], "a wide character that does not fit is left out")
    }

    func testOverwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = Buffer(width: 4, height: 1)
        buffer.write("夏号", x: 0, y: 0)
        buffer.write("x", x: 1, y: 0)
        XCTAssertEqual(buffer.lines(), [" x号"])
    }

    func testWritesOutsideAreIgnored() {
        var buffer = Buffer(width: 3, height: 2)
        buffer.write("hello", x: -2, y: 0)
        buffer.write("no", x: 0, y: 5)
        buffer.box(Rect(x: -1, y: -1, width: 10, height: 10))
        buffer.fill(Rect(x: 2, y: 1, width: 10, height: 10), with: Cell("#"))
        XCTAssertEqual(buffer.lines().count, 2)
        XCTAssertEqual(buffer[2, 1].text, "#")
    }

    func testStateClampKeepsTheSelectionVisible() {
        var state = ShelfState()
        state.selected = 25
        state.clamp(count: 30, columns: 3, visibleRows: 2)
        XCTAssertEqual(state.firstRow, 7)
        state.selected = 0
        state.clamp(count: 30, columns: 3, visibleRows: 2)
        XCTAssertEqual(state.firstRow, 0)
        state.selected = 99
        state.clamp(count: 0, columns: 0, visibleRows: 0)
        XCTAssertEqual(state.selected, 0)
    }

    func testLayoutHitTesting() {
        let layout = ShelfLayout(width: 60, height: 20)
        XCTAssertEqual(layout.columns, 3)
        XCTAssertEqual(layout.visibleRows, 1)
        XCTAssertEqual(layout.itemIndex(atX: 1, y: 2, firstRow: 0), 0)
        XCTAssertEqual(layout.itemIndex(atX: 21, y: 2, firstRow: 2), 7)
        XCTAssertNil(layout.itemIndex(atX: 5, y: 0, firstRow: 0))
    }

    /// Awkward titles wrapped and cut at a card's edge: every row of the card is exactly the
    /// card's width, and the right border stays in its column.
    func testAwkwardTitlesNeverPushACardsBorder() {
        let titles = ["夏号 · 特集号の特別なタイトル", "👨\u{200D}👩\u{200D}👧👨\u{200D}👩\u{200D}👧 families everywhere",
                      "Cafe\u{301}\u{303} e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}",
                      "☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}☺\u{FE0F}",
                      "🇩🇪🇫🇷🇮🇹🇪🇸🇵🇹🇳🇱🇧🇪🇱🇺🇦🇹", "Ａｌｐｈａ Ｂｅｔａ Ｇａｍｍａ Ｄｅｌｔａ"]
        for title in titles {
            var buffer = Buffer(width: ShelfLayout.cardWidth, height: ShelfLayout.cardHeight)
            CardView(item: ShelfItem(id: "x", title: title), isSelected: false, theme: Theme(colors: .none)).render(into: &buffer, area: buffer.area)
            for (row, line) in buffer.lines().enumerated() where row > 0 && row < ShelfLayout.cardHeight - 1 {
                XCTAssertEqual(DisplayWidth.of(line), ShelfLayout.cardWidth, "row \(row) of \(title): \(line)")
                XCTAssertEqual(buffer[ShelfLayout.cardWidth - 1, row].text, "│", "row \(row) of \(title)")
            }
        }
    }

    func testPaletteMapping() {
        XCTAssertEqual(CursesTerminal.nearestPaletteIndex(red: 255, green: 0, blue: 0), 196)
        XCTAssertEqual(CursesTerminal.nearestPaletteIndex(red: 0, green: 0, blue: 0), 232)
        XCTAssertEqual(CursesTerminal.nearestPaletteIndex(red: 128, green: 128, blue: 128), 244)
        XCTAssertEqual(CursesTerminal.nearestPaletteIndex(red: 0, green: 95, blue: 255), 27)
        XCTAssertTrue(Color.rgb(ofPalette: 196) == (255, 0, 0))
        XCTAssertTrue(Color.rgb(ofPalette: 244) == (128, 128, 128))
        XCTAssertTrue(Color.rgb(ofPalette: 4) == (0, 0, 238))
    }

    func testDirectColourTerminfoIsChosenPerTerminal() {
        XCTAssertEqual(CursesTerminal.directColorType(term: "xterm-256color", colorTerm: "truecolor"), "xterm-direct")
        XCTAssertEqual(CursesTerminal.directColorType(term: "tmux-256color", colorTerm: "24bit"), "tmux-direct")
        XCTAssertEqual(CursesTerminal.directColorType(term: "screen", colorTerm: "truecolor"), "tmux-direct")
        XCTAssertEqual(CursesTerminal.directColorType(term: "alacritty", colorTerm: "truecolor"), "alacritty-direct")
        XCTAssertNil(CursesTerminal.directColorType(term: "xterm-256color", colorTerm: nil), "no COLORTERM: the terminal's own")
        XCTAssertNil(CursesTerminal.directColorType(term: "xterm", colorTerm: "yes"))
        XCTAssertNil(CursesTerminal.directColorType(term: "xterm-direct", colorTerm: "truecolor"), "already direct")
        XCTAssertNil(CursesTerminal.directColorType(term: "linux", colorTerm: "truecolor"), "the console has 8 colours")
    }
}
