import Foundation
import NewsstandKit
@testable import ShelfUI
import XCTest

/// The newsstand view and the covers, as screens: text snapshots, and for colour the escape
/// sequences a terminal is sent.
final class NewsstandScreenTests: XCTestCase {
    static let base = Date(timeIntervalSince1970: 1_763_625_600)  // 2025-11-20 08:00 UTC

    /// One publication in each condition, with new and unread issues among them.
    static let publications: [PublicationItem] = [
        PublicationItem(name: "weekly", title: "The Weekly Terminal", issueCount: 120, newCount: 3, unreadCount: 2, downloadedCount: 5,
                        condition: .fresh(base), newestTitle: "No. 48 — Pipes", newestDate: base),
        PublicationItem(name: "train", title: "Train Reader", issueCount: 40, newCount: 0, unreadCount: 0, downloadedCount: 12,
                        condition: .offline(since: base - 86_400)),
        PublicationItem(name: "club", title: "Club Newsletter", issueCount: 0, condition: .needsCredentials),
        PublicationItem(name: "daily", title: "夏 Daily — a title that is far too long for a card", issueCount: 9, newCount: 1,
                        condition: .refreshing),
        PublicationItem(name: "broken", title: "Broken Feed", issueCount: 0,
                        condition: .failed("Cannot read the catalog http://127.0.0.1/x: it is not a property list.")),
        PublicationItem(name: "loading", title: "Still Loading", issueCount: 1000, condition: .loading),
    ]

    private func render(width: Int, height: Int, state: ShelfState = ShelfState(), publications: [PublicationItem] = publications,
                        colors: ColorSupport = .none, budget: Int64? = 5_000_000_000) -> Buffer {
        let layout = ShelfLayout(width: width, height: height)
        var state = state
        state.clamp(count: publications.count, columns: layout.columns, visibleRows: layout.visibleRows)
        let range = layout.visibleRange(firstRow: state.firstRow, count: publications.count)
        var model = ShelfModel(status: "Refreshing 1 of 6 · 1 offline · 1 failed")
        model.screen = .newsstand
        model.totalCount = publications.count
        model.newTotal = publications.reduce(0) { $0 + $1.newCount }
        model.statusIsWarning = true
        model.activeDownloads = 2
        model.bytesPerSecond = 1_500_000
        model.librarySize = 1_200_000_000
        model.storageBudget = budget
        let selected = publications.indices.contains(state.selected) ? publications[state.selected] : nil
        var buffer = Buffer(width: width, height: height)
        ShelfScreen(layout: layout, model: model, state: state, visibleItems: [], selectedItem: nil, itemCount: publications.count,
                    theme: Theme(colors: colors), visiblePublications: Array(publications[range]), selectedPublication: selected)
            .render(into: &buffer)
        return buffer
    }

    func testEveryPublicationState() {
        assertSnapshot(render(width: 132, height: 34), named: "newsstand-132x34")
    }

    func testNarrowNewsstand() {
        assertSnapshot(render(width: 60, height: 20, state: .selecting(4)), named: "newsstand-60x20")
    }

    func testNoSubscriptions() {
        assertSnapshot(render(width: 60, height: 20, publications: []), named: "newsstand-empty")
    }

    func testEveryTinySizeRendersWithoutCrashing() {
        for width in 0...40 {
            for height in 0...20 {
                for overlay in [ShelfState.Overlay.none, .help] {
                    var state = ShelfState()
                    state.overlay = overlay
                    state.selected = 3
                    let buffer = render(width: width, height: height, state: state, colors: .direct)
                    XCTAssertEqual(buffer.lines().count, height)
                    for line in buffer.lines() { XCTAssertLessThanOrEqual(DisplayWidth.of(line), width) }
                }
            }
        }
        assertSnapshot(render(width: 1, height: 1), named: "newsstand-one-by-one")
    }

    func testIssueBadges() {
        var new = ShelfItem(id: "new", title: "Just arrived", releaseDate: Self.base)
        new.isNew = true
        var unread = ShelfItem(id: "unread", title: "Downloaded", releaseDate: Self.base, state: .downloaded(path: "/x/unread.pdf"))
        unread.isPinned = true
        var read = ShelfItem(id: "read", title: "Read one", releaseDate: Self.base, state: .downloaded(path: "/x/read.pdf"))
        read.isRead = true
        read.firstSeen = Self.base
        read.openedAt = Self.base + 3600
        read.sizeOnDisk = 1_500_000
        read.mediaType = "PDF"
        let items = [new, unread, read]
        var state = ShelfState()
        state.selected = 2
        let layout = ShelfLayout(width: 100, height: 20)
        var model = ShelfModel(catalogTitle: "Badges", status: "Up to date")
        model.totalCount = 3
        model.selectedPath = "/x/read.pdf"
        var buffer = Buffer(width: 100, height: 20)
        ShelfScreen(layout: layout, model: model, state: state, visibleItems: items, selectedItem: read, itemCount: 3,
                    theme: Theme(colors: .none)).render(into: &buffer)
        assertSnapshot(buffer, named: "issue-badges")
        let text = buffer.lines().joined(separator: "\n")
        XCTAssertTrue(text.contains(" NEW "))
        XCTAssertTrue(text.contains(" ● "), "unread: a mark on the cover")
        XCTAssertFalse(text.contains("UNREAD"), "one word per state: READ, not READ under UNREAD")
        XCTAssertTrue(text.contains(" PIN "))
        XCTAssertTrue(text.contains("First seen: 2025-11-20"))
        XCTAssertTrue(text.contains("On disk: 1.5 MB, PDF"))
    }

    /// A test image through chafa at each colour depth: a red disc and a blue diagonal on white,
    /// whose edges cross cells, so that quadrants and sextants fit better than half blocks.
    private func stripes() -> CoverPixels {
        let width = 96, height = 128
        var rgb = [UInt8](repeating: 255, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                let dx = x - 48, dy = y - 56
                if dx * dx + dy * dy < 34 * 34 {
                    (rgb[index], rgb[index + 1], rgb[index + 2]) = (210, 30, 40)
                } else if abs(x * 4 / 3 - y) < 6 {
                    (rgb[index], rgb[index + 1], rgb[index + 2]) = (30, 60, 200)
                }
            }
        }
        return rgb.withUnsafeBufferPointer { CoverPixels(scaling: $0, width: width, height: height) }
    }

    private func coverCard(colors: ColorSupport) -> Buffer {
        let cover = ChafaCanvas(columns: CardView.coverColumns, rows: CardView.coverRows, colors: colors)?.render(stripes())
        var item = ShelfItem(id: "striped", title: "Striped", releaseDate: Self.base, cover: cover)
        item.subscription = "weekly"
        var buffer = Buffer(width: ShelfLayout.cardWidth, height: ShelfLayout.cardHeight)
        CardView(item: item, isSelected: false, theme: Theme(colors: colors)).render(into: &buffer, area: buffer.area)
        return buffer
    }

    func testCoversInEachColourDepth() {
        let direct = coverCard(colors: .direct)
        assertColorSnapshot(direct, named: "cover-24bit")
        let truecolor = direct.ansiLines().joined()
        XCTAssertTrue(truecolor.contains("48;2;") || truecolor.contains("38;2;"))
        XCTAssertFalse(truecolor.contains("38;5;") && truecolor.contains("48;5;2"), "24-bit covers use no palette colours")

        let palette = coverCard(colors: .palette256)
        assertColorSnapshot(palette, named: "cover-256")
        let indexed = palette.ansiLines().joined()
        XCTAssertFalse(indexed.contains(";2;"), "no 24-bit colour on a 256-colour terminal")
        XCTAssertTrue(indexed.contains("48;5;") || indexed.contains("38;5;"))
        // Chafa picks finer symbols than half blocks where they fit better.
        let symbols = Set(palette.cells.map(\.text))
        XCTAssertTrue(symbols.contains { $0.unicodeScalars.first.map { (0x1FB00...0x1FB3B).contains($0.value) || (0x2596...0x259F).contains($0.value) } ?? false },
                      "quadrants or sextants: \(symbols)")

        let basic = coverCard(colors: .basic)
        assertColorSnapshot(basic, named: "cover-8")
        let eight = basic.ansiLines().joined()
        XCTAssertFalse(eight.contains(";5;") || eight.contains(";2;"), "8 colours: basic colours only, a title card")
        XCTAssertTrue(basic.lines().joined().contains("Striped"))

        let mono = coverCard(colors: .none)
        XCTAssertTrue(mono.cells.allSatisfy { $0.style.foreground == .default && $0.style.background == .default })
    }

    func testConfiguredColoursReplaceTheDefaults() throws {
        var settings = ShelfSettings()
        settings.colors[.header] = try ShelfSettings.parseColor("black on #ffd700 bold")
        settings.colors[.newBadge] = try ShelfSettings.parseColor("reverse")
        let layout = ShelfLayout(width: 60, height: 20)
        var model = ShelfModel(status: "Up to date")
        model.screen = .newsstand
        model.totalCount = 1
        func header(_ colors: ColorSupport) -> Style {
            var buffer = Buffer(width: 60, height: 20)
            ShelfScreen(layout: layout, model: model, state: ShelfState(), visibleItems: [], selectedItem: nil, itemCount: 1,
                        theme: Theme(colors: colors, overrides: settings.colors), visiblePublications: [Self.publications[0]],
                        selectedPublication: Self.publications[0]).render(into: &buffer)
            return buffer[0, 0].style
        }
        XCTAssertEqual(header(.direct), Style(foreground: .palette(0), background: .rgb(255, 215, 0), bold: true))
        XCTAssertEqual(header(.none), Style(bold: true), "without colour only the attributes stay")
    }

    func testACoverThatDoesNotDecodeLeavesTheTitleCard() throws {
        let png = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/demo/covers/tt-2026-01.png"))
        XCTAssertNotNil(CoverDecoder.decode(png))
        for broken in [Data("<html>not an image</html>".utf8), png.prefix(png.count / 2), Data(), Data(repeating: 0xFF, count: 4096)] {
            XCTAssertNil(CoverDecoder.decode(broken), "\(broken.count) bytes")
        }
        // Without a cover image the card is the title on the publication's colour: never garbage.
        var item = ShelfItem(id: "x", title: "Broken Cover", releaseDate: Self.base)
        item.subscription = "weekly"
        var buffer = Buffer(width: ShelfLayout.cardWidth, height: ShelfLayout.cardHeight)
        CardView(item: item, isSelected: false, theme: Theme(colors: .direct)).render(into: &buffer, area: buffer.area)
        XCTAssertTrue(buffer.lines().joined().contains("Broken"))
        XCTAssertEqual(buffer[5, 4].style.background, Theme(colors: .direct).textCover(for: "weekly").background)
    }

    func testTitleCardsTellPublicationsApart() {
        let theme = Theme(colors: .palette256)
        XCTAssertEqual(theme.textCover(for: "weekly"), theme.textCover(for: "weekly"))
        let styles = Set(["weekly", "train", "club", "daily", "broken"].map { theme.textCover(for: $0).background })
        XCTAssertGreaterThanOrEqual(styles.count, 3, "different publications mostly get different colours")
    }
}
