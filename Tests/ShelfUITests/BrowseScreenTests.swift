import Foundation
import NewsstandKit
@testable import ShelfUI
import XCTest

/// A server's feed walked as folders: sections, a search's issues, loading, and small sizes.
final class BrowseScreenTests: XCTestCase {
    private static func folder(_ title: String, _ kind: PublicationItem.Folder.Kind, summary: String? = nil) -> PublicationItem {
        var item = PublicationItem(name: title, title: title, issueCount: 0, condition: .fresh(nil))
        item.folder = .init(kind: kind, address: "http://127.0.0.1:8080/api/opds/[redacted]/" + title.lowercased().replacingOccurrences(of: " ", with: "-"),
                            summary: summary)
        return item
    }

    static let items: [PublicationItem] = [
        folder("By Newest", .issues, summary: "Books sorted by date"),
        folder("By Author", .sections),
        folder("Want to Read", .unknown),
        folder("\u{1B}[31mHostile\u{7} title", .issues),
        folder("Retro Gamer 251", .issue, summary: "PDF - 2.1 MB"),
    ]

    private func render(width: Int, height: Int, items: [PublicationItem] = items, loading: Bool = false, selected: Int = 0,
                        prompt: String? = nil) -> Buffer {
        let layout = ShelfLayout(width: width, height: height)
        var state = ShelfState()
        state.selected = selected
        if let prompt {
            state.isEditingFilter = true
            state.filter = prompt
        }
        state.clamp(count: items.count, columns: layout.columns, visibleRows: layout.visibleRows)
        let range = layout.visibleRange(firstRow: state.firstRow, count: items.count)
        var model = ShelfModel(status: loading ? "Fetching http://127.0.0.1:8080/api/opds/[redacted]…" : "Kavita's server · / searches it")
        model.screen = .browse
        model.catalogTitle = "Kavita › Library"
        model.totalCount = items.count
        model.headerNote = "4 sections · 1 issue"
        model.isLoading = loading
        var buffer = Buffer(width: width, height: height)
        ShelfScreen(layout: layout, model: model, state: state, visibleItems: [], selectedItem: nil, itemCount: items.count,
                    theme: Theme(colors: .none), visiblePublications: Array(items[range]),
                    selectedPublication: items.indices.contains(state.selected) ? items[state.selected] : nil)
            .render(into: &buffer)
        return buffer
    }

    func testSectionsIssuesAndDetails() {
        assertSnapshot(render(width: 120, height: 32), named: "browse-120x32")
    }

    func testNarrowWithTheSearchPrompt() {
        assertSnapshot(render(width: 60, height: 20, selected: 4, prompt: "retro"), named: "browse-60x20-search")
    }

    func testLoading() {
        assertSnapshot(render(width: 60, height: 20, items: [], loading: true), named: "browse-loading")
    }

    func testEverySizeDownToOneByOne() {
        for width in [1, 2, 17, 40, 61, 200] {
            for height in [1, 3, 15, 20, 50] {
                let buffer = render(width: width, height: height)
                XCTAssertEqual(buffer.lines().count, height)
            }
        }
    }
}
