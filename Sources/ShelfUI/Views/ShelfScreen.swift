import Foundation
import NewsstandKit

/// The whole screen: header, grid of cards, details, status line, and any overlay on top.
public struct ShelfScreen {
    public let layout: ShelfLayout
    public let model: ShelfModel
    public let state: ShelfState
    /// The cards on screen, in order, starting at `layout.visibleRange(...)`.
    public let visibleItems: [ShelfItem]
    /// The selected card's item, for the details pane.
    public let selectedItem: ShelfItem?
    /// How many cards match the filter.
    public let itemCount: Int
    public let theme: Theme
    /// The newsstand view's cards on screen (when `model.screen` is `.newsstand`).
    public let visiblePublications: [PublicationItem]
    public let selectedPublication: PublicationItem?
    /// The keys, for the help overlay.
    public let settings: ShelfSettings

    public init(layout: ShelfLayout, model: ShelfModel, state: ShelfState, visibleItems: [ShelfItem],
                selectedItem: ShelfItem?, itemCount: Int, theme: Theme,
                visiblePublications: [PublicationItem] = [], selectedPublication: PublicationItem? = nil,
                settings: ShelfSettings = ShelfSettings()) {
        self.layout = layout
        self.model = model
        self.state = state
        self.visibleItems = visibleItems
        self.selectedItem = selectedItem
        self.itemCount = itemCount
        self.theme = theme
        self.visiblePublications = visiblePublications
        self.selectedPublication = selectedPublication
        self.settings = settings
    }

    public func render(into buffer: inout Buffer) {
        buffer.fill(buffer.area)
        guard buffer.width > 0, buffer.height > 0 else { return }
        renderHeader(into: &buffer)
        if layout.fitsACard {
            renderGrid(into: &buffer)
            if let details = layout.details { renderDetails(into: &buffer, area: details) }
            if let rule = layout.listRule { renderListRule(into: &buffer, area: rule) }
        } else {
            renderTooSmall(into: &buffer)
        }
        renderStatus(into: &buffer)
        switch state.overlay {
        case .none: break
        case .help: renderHelp(into: &buffer)
        case .confirmDelete(_, let title):
            renderDialog(into: &buffer, lines: ["Delete “\(title)”?", "The PDF is removed from disk.", "", "y: delete    n: keep"])
        case .confirmQuit(let count):
            renderDialog(into: &buffer, lines: ["\(count) download\(count == 1 ? " is" : "s are") running.",
                                                "Quit? They resume next time.", "", "y: quit    n: stay"])
        case .confirmMarkRead(let title, let count):
            renderDialog(into: &buffer, lines: ["Mark \(Formatting.count(count, "unread issue")) of “\(title)” read?", "",
                                                "y: mark read    n: leave them"])
        }
    }

    private func renderHeader(into buffer: inout Buffer) {
        let area = layout.header
        guard !area.isEmpty else { return }
        buffer.fill(area, with: Cell(" ", style: theme.header))
        let title: String
        var right: String
        switch model.screen {
        case .newsstand:
            title = " newsstand"
            right = Formatting.count(model.totalCount, "publication")
            if model.newTotal > 0 { right += " · \(model.newTotal) new" }
        case .issues:
            title = " newsstand" + (model.catalogTitle.map { " · " + $0 } ?? "")
            right = "\(itemCount) of \(model.totalCount) · sort: \(state.sort.rawValue)"
        case .new:
            title = " newsstand · New"
            right = "\(itemCount) of \(model.totalCount) · sort: \(state.sort.rawValue)"
        case .browse:
            title = " newsstand · Browse" + (model.catalogTitle.map { " · " + $0 } ?? "")
            right = model.headerNote ?? Formatting.count(model.totalCount, "section")
        }
        if !state.filter.isEmpty && !state.isEditingFilter { right += " · filter: " + state.filter }
        right += " "
        let rightWidth = DisplayWidth.of(right)
        let titleWidth = buffer.write(DisplayWidth.truncate(title, to: max(0, area.width - 1)), x: 0, y: area.y, style: theme.header, clip: area)
        if titleWidth + rightWidth + 2 <= area.width {
            buffer.write(right, x: area.maxX - rightWidth, y: area.y, style: theme.header, clip: area)
        }
    }

    private func renderGrid(into buffer: inout Buffer) {
        if model.screen == .newsstand || model.screen == .browse {
            renderPublications(into: &buffer)
            return
        }
        let empty: String
        if model.screen == .new && state.filter.isEmpty {
            empty = "Nothing new: every issue has been seen."
        } else {
            empty = model.totalCount == 0 ? "No issues yet." : "No issue matches “\(state.filter)”."
        }
        if layout.mode == .list {
            renderCards(visibleItems, empty: empty, into: &buffer) { IssueRowView(item: $0, isSelected: $1, theme: theme) }
            return
        }
        renderCards(visibleItems, empty: empty, into: &buffer) { item, selected in
            CardView(item: item, isSelected: selected, theme: theme, coverRows: layout.coverRows)
        }
    }

    private func renderPublications(into buffer: inout Buffer) {
        let empty: String
        if model.screen == .browse {
            empty = model.isLoading ? "Loading…" : "Nothing here: no sections, no issues."
        } else {
            empty = model.totalCount == 0 ? "No subscriptions: newsstand subscribe URL adds one." : "No publication matches “\(state.filter)”."
        }
        if layout.mode == .list {
            renderCards(visiblePublications, empty: empty, into: &buffer) { PublicationRowView(item: $0, isSelected: $1, theme: theme) }
            return
        }
        renderCards(visiblePublications, empty: empty, into: &buffer) { item, selected in
            PublicationCardView(item: item, isSelected: selected, theme: theme, coverRows: layout.coverRows)
        }
    }

    /// The grid's visible cards, or one line in its middle when there are none.
    private func renderCards<Item, View: ShelfCard>(_ items: [Item], empty: String, into buffer: inout Buffer,
                                                     card: (Item, Bool) -> View) {
        if itemCount == 0 {
            let (line, offset) = TextLayout.center(empty, width: layout.grid.width)
            buffer.write(line, x: layout.grid.x + offset, y: layout.grid.y + layout.grid.height / 2, style: theme.dim, clip: layout.grid)
            return
        }
        let range = layout.visibleRange(firstRow: state.firstRow, count: itemCount)
        for (offset, item) in items.prefix(range.count).enumerated() {
            let rect = layout.cardRect(column: offset % layout.columns, row: offset / layout.columns)
            card(item, range.lowerBound + offset == state.selected).render(into: &buffer, area: rect.intersection(layout.grid))
        }
        // The list counts what is off screen on its closing line.
        guard layout.mode == .grid else { return }
        // How many cards are off screen, at the right of the grid's top and bottom lines: in the
        // space beside the cards when there is some, else on the last card's border, short of its corner.
        let grid = layout.grid
        let cardsEnd = layout.cardRect(column: layout.columns - 1, row: 0).maxX
        func place(_ mark: String, y: Int) {
            let width = DisplayWidth.of(mark)
            let end = grid.maxX - cardsEnd >= width ? grid.maxX : cardsEnd - 1
            buffer.write(mark, x: end - width, y: y, style: theme.key, clip: grid)
        }
        if range.lowerBound > 0 { place(" ↑ \(range.lowerBound) more ", y: grid.y) }
        if range.upperBound < itemCount {
            place(" ↓ \(itemCount - range.upperBound) more ", y: grid.y + min(grid.height, layout.visibleRows * layout.cardHeight) - 1)
        }
    }

    /// The line under the list, with how many lines are above and below the screen.
    private func renderListRule(into buffer: inout Buffer, area: Rect) {
        buffer.fill(area, with: Cell("─", style: theme.border))
        let range = layout.visibleRange(firstRow: state.firstRow, count: itemCount)
        var marks: [String] = []
        if range.lowerBound > 0 { marks.append("↑ \(range.lowerBound) more") }
        if range.upperBound < itemCount { marks.append("↓ \(itemCount - range.upperBound) more") }
        guard !marks.isEmpty else { return }
        let text = " " + marks.joined(separator: " · ") + " "
        buffer.write(text, x: max(area.x, area.maxX - 1 - DisplayWidth.of(text)), y: area.y, style: theme.key, clip: area)
    }

    private func renderTooSmall(into buffer: inout Buffer) {
        let area = Rect(x: 0, y: layout.header.maxY, width: buffer.width, height: max(0, layout.status.y - layout.header.maxY))
        let lines = ["Terminal too small", "need \(ShelfLayout.cardWidth)×\(ShelfLayout.compactCardHeight + 2)"]
        let top = area.y + max(0, (area.height - lines.count) / 2)
        for (index, line) in lines.enumerated() {
            let (text, offset) = TextLayout.center(line, width: area.width)
            buffer.write(text, x: offset, y: top + index, style: theme.dim, clip: area.isEmpty ? buffer.area : area)
        }
    }

    private func renderStatus(into buffer: inout Buffer) {
        let area = layout.status
        guard !area.isEmpty else { return }
        if state.isEditingFilter {
            buffer.fill(area)
            let prompt = (model.screen == .browse ? "search the server: " : "/") + state.filter
            let used = buffer.write(prompt, x: 0, y: area.y, style: .plain, clip: area)
            buffer.set(min(used, area.width - 1), area.y, Cell(" ", style: Style(reverse: true)))
            let hint = model.screen == .browse ? "  Enter search · Esc cancel" : "  Enter keep · Esc clear"
            if used + 1 + DisplayWidth.of(hint) <= area.width {
                buffer.write(hint, x: used + 1, y: area.y, style: theme.dim, clip: area)
            }
            return
        }
        let style = state.message.map { theme.status($0.kind) } ?? (model.statusIsWarning ? theme.statusWarning : theme.statusBar)
        buffer.fill(area, with: Cell(" ", style: style))
        let left = " " + (state.message?.text ?? model.status)
        // The right-hand figures give way, least needed first (the budget, the library's size,
        // the speed), before the status or message on the left is cut.
        let downloads = model.activeDownloads > 0 ? "↓ \(model.activeDownloads)" : nil
        let speed = model.activeDownloads > 0 ? Formatting.bytes(Int64(model.bytesPerSecond)) + "/s" : nil
        let library = "library " + Formatting.bytes(model.librarySize)
        let budget = model.storageBudget.map { library + " of " + Formatting.bytes($0) }
        let rights = [[downloads, speed, budget ?? library], [downloads, speed, library], [downloads, speed], [downloads], []]
            .map { ($0.compactMap { $0 } + ["? help "]).joined(separator: " · ") }
        let leftWidth = DisplayWidth.of(left)
        if let right = rights.first(where: { area.width - DisplayWidth.of($0) - 1 >= leftWidth }) {
            buffer.write(left, x: 0, y: area.y, style: style, clip: area)
            buffer.write(right, x: area.maxX - DisplayWidth.of(right), y: area.y, style: style, clip: area)
            return
        }
        // A message is what the user must read now: the line is its own when it needs all of it.
        let right = rights[rights.count - 1]
        let leftRoom = area.width - DisplayWidth.of(right) - 1
        if state.message == nil && leftRoom >= 12 {
            buffer.write(DisplayWidth.truncate(left, to: leftRoom), x: 0, y: area.y, style: style, clip: area)
            buffer.write(right, x: area.maxX - DisplayWidth.of(right), y: area.y, style: style, clip: area)
        } else {
            buffer.write(DisplayWidth.truncate(left, to: area.width), x: 0, y: area.y, style: style, clip: area)
        }
    }

    /// The help overlay's lines for a screen, with the keys the configuration binds.
    static func helpLines(for screen: ShelfScreenKind, settings: ShelfSettings) -> [(String, String)] {
        func keys(_ action: ShelfSettings.Action) -> String {
            let names = ["enter": "Enter", "escape": "Esc", "backspace": "Backspace", "delete": "Delete", "space": "Space", "tab": "Tab"]
            return (settings.keys[action] ?? []).map { names[$0] ?? $0 }.joined(separator: " / ")
        }
        if screen == .browse {
            return [
                ("← ↓ ↑ → h j k l", "move"),
                (keys(.open), "open the section"),
                (keys(.subscribe), "subscribe to the selected section"),
                (keys(.filter), "search the server (if it offers it)"),
                (keys(.back), "up one level, then back"),
                (keys(.toggleView), "grid or list view"),
                (keys(.detailsUp) + " · " + keys(.detailsDown), "scroll the details up · down"),
                (keys(.help), "this help"),
                (keys(.quit), "quit (downloads resume next time)"),
            ]
        }
        if screen == .newsstand {
            return [
                ("← ↓ ↑ → h j k l", "move"),
                (keys(.open), "open the publication's issues"),
                (keys(.newIssues), "new issues of every publication"),
                (keys(.refresh) + " · " + keys(.refreshAll), "refresh this one · all of them"),
                (keys(.markAllRead), "mark every issue read (asks first)"),
                (keys(.browse), "browse its server's sections"),
                (keys(.filter), "filter (Enter keeps, Esc clears)"),
                (keys(.back), "clear the filter"),
                (keys(.toggleView), "grid or list view (remembered)"),
                (keys(.detailsUp) + " · " + keys(.detailsDown), "scroll the details up · down"),
                (keys(.help), "this help"),
                (keys(.quit), "quit (downloads resume next time)"),
                ("mouse", "click selects, double-click opens"),
            ]
        }
        return [
            ("← ↓ ↑ → h j k l", "move"),
            ("PgUp PgDn Home End", "page through the shelf"),
            (keys(.open), "download, or read when downloaded"),
            (keys(.download) + " · " + keys(.cancel), "download · cancel the download"),
            (keys(.delete), "delete the downloaded issue"),
            (keys(.filter), "filter (Enter keeps, Esc clears)"),
            (keys(.sort), "sort by date, title or state"),
            (keys(.toggleRead) + " · " + keys(.togglePin), "mark read or unread · pin or unpin"),
            (keys(.markAllRead), "mark all of them read (asks first)"),
            (keys(.refresh) + " · " + keys(.refreshAll), "refresh the catalog · every catalog"),
            (keys(.newIssues), "new issues of every publication"),
            (keys(.browse), "browse the server's sections"),
            (keys(.toggleView), "grid or list view (remembered)"),
            (keys(.detailsUp) + " · " + keys(.detailsDown), "scroll the details up · down"),
            (keys(.help), "this help"),
            (keys(.back), "back to the newsstand"),
            (keys(.quit), "quit (downloads resume next time)"),
            ("mouse", "click selects, double-click opens"),
        ]
    }

    private func renderHelp(into buffer: inout Buffer) {
        let keyWidth = 19
        let lines = Self.helpLines(for: model.screen, settings: settings).map { (DisplayWidth.pad($0.0, to: keyWidth), $0.1) }
        let width = min(buffer.width, 2 + keyWidth + 2 + (lines.map { DisplayWidth.of($0.1) }.max() ?? 0) + 2)
        // A blank line under the title when there is room for it: at 60×20 every key fits without.
        let margin = lines.count + 4 <= buffer.height ? 1 : 0
        let height = min(buffer.height, lines.count + 3 + margin)
        let area = Rect(x: (buffer.width - width) / 2, y: (buffer.height - height) / 2, width: width, height: height)
        buffer.fill(area, with: Cell(" ", style: theme.overlay))
        buffer.box(area, style: theme.selectedBorder)
        buffer.write(" Keys ", x: area.x + 2, y: area.y, style: theme.title, clip: area)
        let inner = Rect(x: area.x + 2, y: area.y + 1 + margin, width: area.width - 4, height: area.height - 2 - margin)
        for (offset, line) in lines.prefix(inner.height).enumerated() {
            let used = buffer.write(line.0, x: inner.x, y: inner.y + offset, style: theme.key, clip: inner)
            buffer.write("  " + line.1, x: inner.x + used, y: inner.y + offset, style: .plain, clip: inner)
        }
    }

    private func renderDialog(into buffer: inout Buffer, lines: [String]) {
        let width = min(buffer.width, max(30, (lines.map { DisplayWidth.of($0) }.max() ?? 0) + 6))
        let height = min(buffer.height, lines.count + 2)
        let area = Rect(x: (buffer.width - width) / 2, y: (buffer.height - height) / 2, width: width, height: height)
        buffer.fill(area, with: Cell(" ", style: theme.overlay))
        buffer.box(area, style: theme.selectedBorder, heavy: true)
        let inner = area.inset(by: 1)
        for (offset, line) in lines.prefix(inner.height).enumerated() {
            let (text, shift) = TextLayout.center(line, width: inner.width)
            buffer.write(text, x: inner.x + shift, y: inner.y + offset, style: offset == 0 ? theme.title : .plain, clip: inner)
        }
    }
}
