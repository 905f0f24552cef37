import Foundation
import NewsstandKit
@testable import ShelfUI
import XCTest

/// Every page of the shelf at the four sizes a reader's terminal is likely to have, in both
/// views: a snapshot each, and what must hold at every size (bars the whole width, every card
/// off screen counted, every key of the help on screen).
final class EveryPageTests: XCTestCase {
    static let sizes = [(80, 24), (60, 20), (120, 36), (200, 60)]
    static let base = Date(timeIntervalSince1970: 1_763_625_600)  // 2025-11-20 08:00 UTC
    static let day: TimeInterval = 86_400

    /// Twelve magazines, as the reader with twelve of them has them.
    static let publications: [PublicationItem] = [
        ("weekly", "The Weekly Terminal", 120, 3, 2, 5, PublicationItem.Condition.fresh(base)),
        ("train", "Train Reader", 40, 0, 0, 12, .offline(since: base - day)),
        ("club", "Club Newsletter", 0, 0, 0, 0, .needsCredentials),
        ("planet", "Red Planet Weekly", 52, 1, 1, 3, .refreshing),
        ("ocean", "Ocean Quarterly", 16, 0, 0, 2, .fresh(base - 3600)),
        ("broken", "Broken Feed", 0, 0, 0, 0, .failed("Cannot read the catalog http://127.0.0.1/x: it is not a property list.")),
        ("retro", "Retro Gamer", 251, 2, 0, 1, .fresh(base)),
        ("linux", "Linux Format", 300, 0, 1, 4, .fresh(base)),
        ("mag", "The MagPi", 150, 1, 0, 0, .fresh(base)),
        ("wire", "Wireframe", 70, 0, 0, 0, .loading),
        ("hacks", "Hackspace", 80, 0, 0, 2, .fresh(base)),
        ("kids", "夏 Kids' Corner — a title too long for any card", 9, 0, 0, 0, .fresh(base)),
    ].map { name, title, count, new, unread, kept, condition in
        PublicationItem(name: name, title: title, issueCount: count, newCount: new, unreadCount: unread, downloadedCount: kept,
                        condition: condition, newestTitle: title + " No. \(count)", newestDate: base)
    }

    /// Twenty issues of one publication, in every state, the publication's name in front of each title.
    static let issues: [ShelfItem] = (1...20).map { number in
        let states: [DownloadState] = [
            .remote, .downloaded(path: "/home/ann/.local/share/newsstand/library/weekly/n\(number).pdf"), .queued,
            .downloading(DownloadProgress(received: 4_500_000, total: 10_000_000, bytesPerSecond: 1_500_000)),
            .failed(NewsstandError(.network, "Cannot connect to 127.0.0.1:9: nothing answers there; check the address, or try again later.")),
            .partial(received: 30, total: 100), .waitingForNetwork(NewsstandError(.network, "The server is unreachable.")),
        ]
        var item = ShelfItem(id: "n\(number)", title: "The Weekly Terminal No. \(60 - number): " + ["Pipes", "Signals", "Curses", "Sockets"][number % 4],
                             releaseDate: base - Double(number) * 7 * day, isFree: number % 3 != 0, size: Int64(number) * 1_000_000,
                             summary: "Issue \(60 - number): what a terminal can do, and how.", state: states[number % states.count])
        item.cardTitle = ShelfItem.titleWithout(publication: "The Weekly Terminal", item.title)
        item.isNew = number < 4
        item.isRead = number % 7 == 1
        return item
    }

    /// The new issues of every publication: their titles whole, the publication's name is what
    /// tells them apart.
    static let newIssues: [ShelfItem] = publications.prefix(9).enumerated().map { index, publication in
        var item = ShelfItem(id: "new\(index)", title: publication.title + " No. \(publication.issueCount)", releaseDate: base - Double(index) * day,
                             size: 12_000_000)
        item.publication = publication.title
        item.isNew = true
        return item
    }

    /// A server's sections and a search's issues.
    static let sections: [PublicationItem] = [
        ("By Newest", PublicationItem.Folder.Kind.issues), ("By Author", .sections), ("By Series", .sections), ("By Tag", .sections),
        ("Want to Read", .unknown), ("Read Later", .unknown), ("Retro Gamer 251", .issue), ("Retro Gamer 250", .issue),
        ("Linux Format 300", .issue), ("The MagPi 150", .issue), ("Wireframe 70", .issue), ("Hackspace 80", .issue),
        ("Kavita Library", .sections), ("Comics", .sections),
    ].map { title, kind in
        var item = PublicationItem(name: title, title: title, issueCount: 0, condition: .fresh(nil))
        item.folder = .init(kind: kind, address: "http://127.0.0.1:8080/opds/" + title.lowercased().replacingOccurrences(of: " ", with: "-"),
                            summary: kind == .issue ? "PDF - 21 MB" : nil)
        return item
    }

    enum Page: String, CaseIterable {
        case newsstand, issues, new, browse
    }

    private func count(_ page: Page) -> Int {
        switch page {
        case .newsstand: Self.publications.count
        case .issues: Self.issues.count
        case .new: Self.newIssues.count
        case .browse: Self.sections.count
        }
    }

    /// The page at a size, in a view, its fourth item selected; with the help on top if asked.
    private func render(_ page: Page, width: Int, height: Int, mode: ShelfSettings.ViewMode, help: Bool = false) -> (Buffer, ShelfLayout, ShelfState) {
        let layout = ShelfLayout(width: width, height: height, mode: mode)
        var state = ShelfState()
        state.selected = 3
        if help { state.overlay = .help }
        state.clamp(count: count(page), columns: layout.columns, visibleRows: layout.visibleRows)
        let range = layout.visibleRange(firstRow: state.firstRow, count: count(page))
        var model = ShelfModel(status: "Up to date")
        model.librarySize = 1_200_000_000
        model.storageBudget = 5_000_000_000
        model.activeDownloads = 1
        model.bytesPerSecond = 1_500_000
        model.newTotal = Self.newIssues.count
        model.totalCount = count(page)
        var items: [ShelfItem] = []
        var publications: [PublicationItem] = []
        switch page {
        case .newsstand:
            model.screen = .newsstand
            model.status = "Refreshing 1 of 12 · 1 offline · 1 failed"
            model.statusIsWarning = true
            publications = Self.publications
        case .issues:
            model.screen = .issues
            model.catalogTitle = "The Weekly Terminal"
            model.status = "Up to date (09:30)"
            model.totalCount = 120
            items = Self.issues
        case .new:
            model.screen = .new
            model.catalogTitle = "New"
            items = Self.newIssues
        case .browse:
            model.screen = .browse
            model.catalogTitle = "Kavita › Library"
            model.headerNote = "8 sections · 6 issues"
            model.status = "Kavita's server · / searches it"
            publications = Self.sections
        }
        let selectedItem = items.indices.contains(state.selected) ? items[state.selected] : nil
        if case .downloaded(let path)? = selectedItem?.state { model.selectedPath = path }
        var buffer = Buffer(width: width, height: height)
        ShelfScreen(layout: layout, model: model, state: state, visibleItems: items.isEmpty ? [] : Array(items[range]), selectedItem: selectedItem,
                    itemCount: count(page), theme: Theme(colors: .none),
                    visiblePublications: publications.isEmpty ? [] : Array(publications[range]),
                    selectedPublication: publications.indices.contains(state.selected) ? publications[state.selected] : nil)
            .render(into: &buffer)
        return (buffer, layout, state)
    }

    func testEveryPageAtEverySizeInBothViews() {
        for page in Page.allCases {
            for mode in ShelfSettings.ViewMode.allCases {
                for (width, height) in Self.sizes {
                    let name = "page-\(page.rawValue)-\(mode.rawValue)-\(width)x\(height)"
                    let (buffer, layout, state) = render(page, width: width, height: height, mode: mode)
                    assertSnapshot(buffer, named: name)
                    let lines = buffer.lines()
                    let theme = Theme(colors: .none)
                    // The bars reach the right edge: their last cell has the bar's style.
                    XCTAssertEqual(buffer[width - 1, 0].style, theme.header, "\(name): the header stops short")
                    XCTAssertEqual(buffer[width - 1, height - 1].style, buffer[0, height - 1].style, "\(name): the status line stops short")
                    XCTAssertTrue(lines[height - 1].hasSuffix("? help"), "\(name): the status line's right end\n\(lines[height - 1])")
                    XCTAssertFalse(lines[0].contains("…") || lines[height - 1].contains("…"), "\(name): a bar is cut\n\(lines[0])\n\(lines[height - 1])")
                    // Every item is on screen or counted.
                    let range = layout.visibleRange(firstRow: state.firstRow, count: count(page))
                    let screen = lines.joined(separator: "\n")
                    if range.upperBound < count(page) {
                        XCTAssertTrue(screen.contains("↓ \(count(page) - range.upperBound) more"), "\(name): what is below is not counted\n\(screen)")
                    }
                    if range.lowerBound > 0 {
                        XCTAssertTrue(screen.contains("↑ \(range.lowerBound) more"), "\(name): what is above is not counted\n\(screen)")
                    }
                    XCTAssertTrue(range.contains(state.selected), "\(name): the selection is on screen")
                    // 80×24: at least six cards, or eighteen lines.
                    if (width, height) == (80, 24) {
                        XCTAssertGreaterThanOrEqual(range.count, min(count(page), mode == .grid ? 6 : 18), name)
                    }
                }
            }
        }
    }

    /// The help of every page, at every size and in both views, shows each of its lines whole.
    func testTheHelpOfEveryPageFitsEverySize() {
        let kinds: [Page: ShelfScreenKind] = [.newsstand: .newsstand, .issues: .issues, .new: .new, .browse: .browse]
        for page in Page.allCases {
            let help = ShelfScreen.helpLines(for: kinds[page]!, settings: ShelfSettings())
            for mode in ShelfSettings.ViewMode.allCases {
                for (width, height) in Self.sizes {
                    let (buffer, _, _) = render(page, width: width, height: height, mode: mode, help: true)
                    let lines = buffer.lines()
                    for (keys, meaning) in help {
                        XCTAssertTrue(lines.contains { $0.contains(keys) && $0.contains(meaning) },
                                      "\(page) \(mode) \(width)×\(height): “\(keys)  \(meaning)” is not in the help\n\(lines.joined(separator: "\n"))")
                    }
                }
            }
        }
    }
}
