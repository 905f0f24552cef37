import Foundation
import NewsstandKit
@testable import ShelfUI
import XCTest

final class ShelfScreenTests: XCTestCase {
    static let day: TimeInterval = 86_400
    static let base = Date(timeIntervalSince1970: 1_767_225_600)

    /// One card in each state.
    static let items: [ShelfItem] = [
        ShelfItem(id: "remote", title: "Remote and free", releaseDate: base, isFree: true, size: 12_000_000,
                  summary: "An issue nobody has downloaded yet."),
        ShelfItem(id: "paid", title: "Paid issue", releaseDate: base - day, isFree: false),
        ShelfItem(id: "queued", title: "Waiting its turn", releaseDate: base - 2 * day, state: .queued),
        ShelfItem(id: "loading", title: "Downloading now", releaseDate: base - 3 * day,
                  state: .downloading(DownloadProgress(received: 4_500_000, total: 10_000_000, bytesPerSecond: 1_500_000))),
        ShelfItem(id: "unknown", title: "No size known", releaseDate: base - 4 * day,
                  state: .downloading(DownloadProgress(received: 2_300_000, total: nil, bytesPerSecond: 800_000))),
        ShelfItem(id: "read", title: "Ready to read", releaseDate: base - 5 * day, state: .downloaded(path: "/lib/read/read.pdf")),
        ShelfItem(id: "failed", title: "Failed download", releaseDate: base - 6 * day,
                  state: .failed(NewsstandError(.verificationFailed, "Not a PDF."))),
        ShelfItem(id: "locked", title: "Locked issue", releaseDate: base - 7 * day, isFree: false,
                  state: .failed(NewsstandError(.unauthorized, "Needs a subscription."))),
        ShelfItem(id: "partial", title: "Half way there", releaseDate: base - 8 * day, state: .partial(received: 30, total: 100)),
        ShelfItem(id: "wide", title: "夏号 · Ünïcödé wide title that goes on and on", releaseDate: base - 9 * day),
    ]

    private func render(width: Int, height: Int, state: ShelfState = ShelfState(), items: [ShelfItem] = items,
                        model: ShelfModel? = nil, colors: ColorSupport = .none, mode: ShelfSettings.ViewMode = .grid) -> Buffer {
        let layout = ShelfLayout(width: width, height: height, mode: mode)
        var state = state
        state.clamp(count: items.count, columns: layout.columns, visibleRows: layout.visibleRows)
        let range = layout.visibleRange(firstRow: state.firstRow, count: items.count)
        var model = model ?? ShelfModel(catalogTitle: "Test Monthly", status: "Up to date (09:30)")
        model.totalCount = max(model.totalCount, items.count)
        let selected = items.indices.contains(state.selected) ? items[state.selected] : nil
        if case .downloaded(let path)? = selected?.state { model.selectedPath = path }
        var buffer = Buffer(width: width, height: height)
        ShelfScreen(layout: layout, model: model, state: state, visibleItems: Array(items[range]), selectedItem: selected,
                    itemCount: items.count, theme: Theme(colors: colors)).render(into: &buffer)
        return buffer
    }

    /// Every key a page answers is in that page's help, as the configuration binds it.
    func testEveryPageHelpNamesEveryKeyItAnswers() {
        var settings = ShelfSettings()
        XCTAssertNil(settings.bind(.newIssues, to: ["N"]))
        let answered: [(ShelfScreenKind, [ShelfSettings.Action])] = [
            (.issues, ShelfSettings.Action.allCases.filter { $0 != .subscribe }),
            (.new, ShelfSettings.Action.allCases.filter { $0 != .subscribe }),
            (.newsstand, [.open, .newIssues, .refresh, .refreshAll, .markAllRead, .browse, .filter, .back, .toggleView,
                          .detailsUp, .detailsDown, .help, .quit]),
            (.browse, [.open, .subscribe, .filter, .back, .toggleView, .detailsUp, .detailsDown, .help, .quit]),
        ]
        for (screen, actions) in answered {
            let keyColumn = ShelfScreen.helpLines(for: screen, settings: settings).map { " " + $0.0 + " " }.joined()
            for action in actions {
                let names = ["enter": "Enter", "escape": "Esc", "backspace": "Backspace", "delete": "Delete"]
                for key in settings.keys[action] ?? [] {
                    let shown = names[key] ?? key
                    XCTAssertTrue(keyColumn.contains(" \(shown) "), "\(screen): \(action) (\(shown)) missing from \(keyColumn)")
                }
            }
        }
    }

    /// Feeds name the magazine in every issue's title: the card leaves it off, so that the part
    /// that differs fits in its two lines; the details keep the whole title.
    func testACardLeavesOffThePublicationsNameAndTheDetailsSayEverything() {
        XCTAssertEqual(ShelfItem.titleWithout(publication: "Red Planet", "Red Planet Weekly #6: Rovers"), "Weekly #6: Rovers")
        XCTAssertEqual(ShelfItem.titleWithout(publication: "Ocean Quarterly", "Ocean Quarterly — The Abyss"), "The Abyss")
        XCTAssertEqual(ShelfItem.titleWithout(publication: "ocean quarterly", "Ocean Quarterly: Spring"), "Spring")
        XCTAssertEqual(ShelfItem.titleWithout(publication: "Red Planet", "Red Planetary Society"), "Red Planetary Society", "a word's start only")
        XCTAssertEqual(ShelfItem.titleWithout(publication: "Slow 0", "Slow 0.1"), "Slow 0.1", "a number's start only")
        XCTAssertEqual(ShelfItem.titleWithout(publication: "Ocean Quarterly", "Ocean Quarterly"), "Ocean Quarterly", "nothing would be left")
        XCTAssertEqual(ShelfItem.titleWithout(publication: "", "Anything"), "Anything")

        var item = ShelfItem(id: "abyss", title: "Ocean Quarterly — The Abyss, and what lives at the bottom of the sea",
                             releaseDate: Self.base, state: .failed(NewsstandError(.network,
                                "Cannot connect to 127.0.0.1:9: nothing answers there; check the address, or try again later.")))
        item.cardTitle = ShelfItem.titleWithout(publication: "Ocean Quarterly", item.title)
        let screen = render(width: 100, height: 30, items: [item]).lines().joined(separator: "\n")
        XCTAssertTrue(screen.contains("┃The Abyss, and  ┃"), screen)
        XCTAssertTrue(screen.contains("│ Ocean Quarterly — The Abyss, │") && screen.contains("│ of the sea "),
                      "the details pane: the whole title\n\(screen)")
        XCTAssertTrue(screen.contains("│ nothing answers there; check │") && screen.contains("│ later. "), "the whole failure\n\(screen)")
    }

    /// A summary longer than the pane is whole in it: the pane scrolls, and its border says how
    /// many lines are above and below, and which key shows them.
    func testTheDetailsPaneScrollsThroughALongSummary() {
        let summary = (1...90).map { "Sentence \($0) of the summary." }.joined(separator: " ")
        let item = ShelfItem(id: "long", title: "A long read", releaseDate: Self.base, summary: summary)
        let layout = ShelfLayout(width: 120, height: 36)
        let pane = try! XCTUnwrap(layout.details)
        func screen(offset: Int) -> (text: String, overflow: Int, buffer: Buffer) {
            var state = ShelfState()
            state.detailsOffset = offset
            let buffer = render(width: 120, height: 36, state: state, items: [item])
            let overflow = ShelfScreen(layout: layout, model: ShelfModel(), state: state, visibleItems: [item], selectedItem: item,
                                       itemCount: 1, theme: Theme(colors: .none)).detailsOverflow
            return (buffer.lines().map { String($0.suffix(pane.width)) }.joined(separator: "\n"), overflow, buffer)
        }
        let top = screen(offset: 0)
        XCTAssertGreaterThan(top.overflow, 10, "90 sentences do not fit in \(pane.height - 2) lines of \(pane.width - 4)")
        XCTAssertTrue(top.text.contains("Sentence 1 of") && !top.text.contains("Sentence 90 of"), top.text)
        XCTAssertTrue(top.text.contains("↓ \(top.overflow) more · ] ┘"), "the bottom border counts the lines below\n\(top.text)")
        XCTAssertFalse(top.text.contains("↑"))

        let bottom = screen(offset: top.overflow)
        XCTAssertTrue(bottom.text.contains("Sentence 90 of the") && !bottom.text.contains("Sentence 1 of"), bottom.text)
        XCTAssertTrue(bottom.text.contains("↑ \(top.overflow) · [ ┐"), "the top border counts the lines above\n\(bottom.text)")
        XCTAssertFalse(bottom.text.contains("more · ]"))
        assertSnapshot(bottom.buffer, named: "details-scrolled-120x36")
        XCTAssertEqual(screen(offset: top.overflow + 50).text, bottom.text, "scrolled no further than the last line")
    }

    /// The list view at 80×24: eighteen lines above the details strip, each with its marks,
    /// title, date, size and state, a progress bar on the downloading one.
    func testTheListViewAt80x24() {
        let screen = render(width: 80, height: 24, state: .selecting(3), mode: .list)
        assertSnapshot(screen, named: "list-80x24")
        let layout = ShelfLayout(width: 80, height: 24, mode: .list)
        XCTAssertGreaterThanOrEqual(layout.visibleRows, 18)
        XCTAssertNotNil(layout.details, "a strip below the lines")
        let text = screen.lines().joined(separator: "\n")
        XCTAssertTrue(text.contains("Downloading now") && text.contains("45%") && text.contains("█"), text)
        XCTAssertEqual(ShelfLayout(width: 120, height: 36, mode: .list).details?.x, 120 - 32, "the side pane beside 80 columns of lines")
        for (width, height) in [(1, 1), (10, 3), (25, 5)] {
            _ = render(width: width, height: height, mode: .list)
        }
    }

    func testShelfWithEveryState() {
        assertSnapshot(render(width: 120, height: 32), named: "shelf-120x32")
    }

    func testScrolledToTheLastRowWithAWideTitle() {
        assertSnapshot(render(width: 120, height: 32, state: .selecting(9)), named: "shelf-scrolled")
    }

    func testSmallTerminal60x20() {
        assertSnapshot(render(width: 60, height: 20, state: .selecting(5)), named: "shelf-60x20")
    }

    func testDetailsStripOnATallNarrowTerminal() {
        assertSnapshot(render(width: 64, height: 34, state: .selecting(3)), named: "details-strip-64x34")
    }

    /// 80×24 without colour: the side pane would leave two cards; compact cards in two rows, eight
    /// of them, and how many are below.
    func testEightCompactCardsAt80x24() {
        let screen = render(width: 80, height: 24, state: .selecting(1))
        assertSnapshot(screen, named: "shelf-80x24")
        let layout = ShelfLayout(width: 80, height: 24)
        XCTAssertGreaterThanOrEqual(layout.columns * layout.visibleRows, 6)
        XCTAssertTrue(screen.lines().joined().contains("↓ 2 more"))
        for (width, height) in [(120, 36), (200, 60), (60, 20), (100, 30)] {
            let other = ShelfLayout(width: width, height: height)
            XCTAssertGreaterThanOrEqual(other.columns * other.visibleRows, 3, "\(width)×\(height)")
            XCTAssertEqual(other.coverRows, 8, "\(width)×\(height): room for full covers")
        }
    }

    func testFilterPrompt() {
        var state = ShelfState()
        state.isEditingFilter = true
        state.filter = "read"
        let matching = Self.items.filter { $0.title.lowercased().contains("read") }
        assertSnapshot(render(width: 80, height: 20, state: state, items: matching), named: "filter-prompt")
    }

    func testNoMatch() {
        var state = ShelfState()
        state.filter = "zzz"
        assertSnapshot(render(width: 80, height: 20, state: state, items: []), named: "no-match")
    }

    func testHelpOverlay() {
        var state = ShelfState()
        state.overlay = .help
        assertSnapshot(render(width: 90, height: 24, state: state), named: "help")
    }

    func testConfirmations() {
        var state = ShelfState()
        state.overlay = .confirmDelete(id: "read", title: "Ready to read")
        assertSnapshot(render(width: 80, height: 20, state: state), named: "confirm-delete")
        state.overlay = .confirmQuit(activeDownloads: 2)
        assertSnapshot(render(width: 80, height: 20, state: state), named: "confirm-quit")
    }

    func testOfflineStatusAndDownloads() {
        var model = ShelfModel(catalogTitle: "Test Monthly",
                               status: "Offline: showing the catalog from 2026-11-20 08:15 — Network error: Could not connect.")
        model.statusIsWarning = true
        model.activeDownloads = 2
        model.bytesPerSecond = 2_300_000
        model.librarySize = 123_000_000
        assertSnapshot(render(width: 100, height: 18, model: model), named: "offline-status")
    }

    func testAMessageTakesTheWholeStatusLine() {
        var state = ShelfState()
        state.message = .error("The PDF opener /usr/bin/reader is not installed; install xdg-utils or set NEWSSTAND_OPENER to a reader.")
        assertSnapshot(render(width: 100, height: 18, state: state), named: "message")
    }

    func testTooSmallForACard() {
        assertSnapshot(render(width: 17, height: 15), named: "too-small-17x15")
        assertSnapshot(render(width: 30, height: 5), named: "too-small-30x5")
    }

    func testEveryTinySizeRendersWithoutCrashing() {
        for width in 0...45 {
            for height in 0...24 {
                for overlay in [ShelfState.Overlay.none, .help, .confirmQuit(activeDownloads: 1)] {
                    var state = ShelfState()
                    state.overlay = overlay
                    state.selected = 7
                    let buffer = render(width: width, height: height, state: state)
                    XCTAssertEqual(buffer.lines().count, height)
                    for line in buffer.lines() { XCTAssertLessThanOrEqual(DisplayWidth.of(line), width) }
                }
            }
        }
        assertSnapshot(render(width: 1, height: 1), named: "one-by-one")
    }

    func testHostileTitlesAreDrawnInert() {
        let hostile = [ShelfItem(id: "evil", title: "Evil\u{1B}[2J\u{1B}]0;x\u{07}\u{202E}txt.exe\nline", releaseDate: Self.base)]
        let buffer = render(width: 60, height: 20, items: hostile)
        for cell in buffer.cells {
            XCTAssertFalse(cell.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E })
        }
        XCTAssertTrue(buffer.lines().joined().contains("Evil"))
    }

    func testCoversAreDrawnOnlyWith256Colours() throws {
        var pixels = [UInt8](repeating: 0, count: 4 * 8 * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) { pixels[index] = 255 }  // pure red
        let scaled = pixels.withUnsafeBufferPointer { CoverPixels(scaling: $0, width: 4, height: 8) }
        let cover = try XCTUnwrap(ChafaCanvas(columns: 12, rows: 8, colors: .palette256)).render(scaled)
        let items = [ShelfItem(id: "c", title: "Cover", releaseDate: Self.base, cover: cover)]
        let rich = render(width: 60, height: 20, items: items, colors: .palette256)
        let red = rich[5, 3]
        XCTAssertTrue(red.style.background == .palette(196) || red.style.foreground == .palette(196), "\(red)")
        let direct = try XCTUnwrap(ChafaCanvas(columns: 12, rows: 8, colors: .direct)).render(scaled)
        let truecolor = render(width: 60, height: 20, items: [ShelfItem(id: "c", title: "Cover", releaseDate: Self.base, cover: direct)], colors: .direct)
        let cell = truecolor[5, 3]
        XCTAssertTrue(cell.style.background == .rgb(255, 0, 0) || cell.style.foreground == .rgb(255, 0, 0), "\(cell)")
        let basic = render(width: 60, height: 20, items: items, colors: .basic)
        XCTAssertNotEqual(basic[5, 2].text, "▀", "8 colours get a text cover")
        let mono = render(width: 60, height: 20, items: items, colors: .none)
        XCTAssertTrue(mono.cells.allSatisfy { $0.style.foreground == .default && $0.style.background == .default })
    }

    func testSelectionIsVisibleWithoutColour() {
        var state = ShelfState()
        state.selected = 1
        let buffer = render(width: 60, height: 20, state: state)
        XCTAssertEqual(buffer[20, 1].text, "┏", "the selected card has a heavy frame")
        XCTAssertEqual(buffer[0, 1].text, "┌")
    }
}
