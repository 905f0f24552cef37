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
        renderCards(visibleItems, empty: empty, into: &buffer) { item, selected in
            CardView(item: item, isSelected: selected, theme: theme)
        }
    }

    private func renderPublications(into buffer: inout Buffer) {
        let empty: String
        if model.screen == .browse {
            empty = model.isLoading ? "Loading…" : "Nothing here: no sections, no issues."
        } else {
            empty = model.totalCount == 0 ? "No subscriptions: newsstand subscribe URL adds one." : "No publication matches “\(state.filter)”."
        }
        renderCards(visiblePublications, empty: empty, into: &buffer) { item, selected in
            PublicationCardView(item: item, isSelected: selected, theme: theme)
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
    }

    private func publicationLines(_ item: PublicationItem, width: Int) -> [(String, Style)] {
        var lines: [(String, Style)] = []
        for line in TextLayout.wrap(item.title, width: width, lines: 2) { lines.append((line, theme.title)) }
        lines.append((item.name, theme.dim))
        lines.append(("", .plain))
        lines.append((Formatting.count(item.issueCount, "issue") + ", \(item.downloadedCount) kept", .plain))
        lines.append(("\(item.newCount) new, \(item.unreadCount) unread", item.newCount + item.unreadCount > 0 ? theme.unread : .plain))
        switch item.condition {
        case .loading: lines.append(("Reading the cached catalog…", theme.dim))
        case .fresh(let date?): lines.append(("Up to date: " + Formatting.moment(date), .plain))
        case .fresh(nil): lines.append(("A local catalog", .plain))
        case .refreshing: lines.append(("Refreshing…", theme.queued))
        case .offline(let since): lines.append(("Offline since " + Formatting.moment(since), theme.failure))
        case .needsCredentials: lines.append(("Needs credentials: add them to config.toml", theme.failure))
        case .failed(let message):
            for line in TextLayout.wrap(message, width: width, lines: 4) { lines.append((line, theme.failure)) }
        }
        if let newest = item.newestTitle {
            lines.append(("", .plain))
            lines.append(("Newest:", theme.dim))
            for line in TextLayout.wrap(newest, width: width, lines: 2) { lines.append((line, .plain)) }
            if let date = item.newestDate { lines.append((Formatting.day(date), theme.dim)) }
        }
        return lines
    }

    private func folderLines(_ item: PublicationItem, _ folder: PublicationItem.Folder, width: Int) -> [(String, Style)] {
        var lines: [(String, Style)] = []
        for line in TextLayout.wrap(item.title, width: width, lines: 2) { lines.append((line, theme.title)) }
        let kind: String = switch folder.kind {
        case .sections: "Sections: Enter opens them"
        case .issues: "Issues: + subscribes to this feed"
        case .unknown: "A feed: Enter opens it"
        case .issue: "An issue of the server"
        }
        lines.append((kind, .plain))
        lines.append(("", .plain))
        var rest = Substring(folder.address)
        while !rest.isEmpty {
            lines.append((String(rest.prefix(width)), theme.dim))
            rest = rest.dropFirst(width)
        }
        if let summary = folder.summary, !summary.isEmpty {
            lines.append(("", .plain))
            for line in TextLayout.wrap(summary, width: width, lines: 4) { lines.append((line, .plain)) }
        }
        return lines
    }

    private func renderDetails(into buffer: inout Buffer, area: Rect) {
        if model.screen == .browse {
            guard let item = selectedPublication, let folder = item.folder else { return }
            let lines = folderLines(item, folder, width: max(1, area.width - 4))
            if area.height > 4 {
                buffer.box(area, style: theme.border)
                buffer.write(" Section ", x: area.x + 2, y: area.y, style: theme.title, clip: area)
                let inner = Rect(x: area.x + 2, y: area.y + 1, width: area.width - 4, height: area.height - 2)
                for (offset, line) in lines.prefix(inner.height).enumerated() {
                    buffer.write(DisplayWidth.truncate(line.0, to: inner.width), x: inner.x, y: inner.y + offset, style: line.1, clip: inner)
                }
            } else {
                let inner = Rect(x: area.x + 1, y: area.y, width: area.width - 2, height: area.height)
                buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: Cell("─", style: theme.border))
                let rows = [("", Style.plain), (item.title, theme.title), lines[min(lines.count - 1, 1)]]
                for (offset, line) in rows.prefix(inner.height).enumerated() {
                    buffer.write(DisplayWidth.truncate(line.0, to: inner.width), x: inner.x, y: inner.y + offset, style: line.1, clip: inner)
                }
            }
            return
        }
        if model.screen == .newsstand {
            guard let publication = selectedPublication else { return }
            if area.height > 4 {
                buffer.box(area, style: theme.border)
                buffer.write(" Publication ", x: area.x + 2, y: area.y, style: theme.title, clip: area)
                let inner = Rect(x: area.x + 2, y: area.y + 1, width: area.width - 4, height: area.height - 2)
                for (offset, line) in publicationLines(publication, width: inner.width).prefix(inner.height).enumerated() {
                    buffer.write(DisplayWidth.truncate(line.0, to: inner.width), x: inner.x, y: inner.y + offset, style: line.1, clip: inner)
                }
            } else {
                let inner = Rect(x: area.x + 1, y: area.y, width: area.width - 2, height: area.height)
                buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: Cell("─", style: theme.border))
                let lines = publicationLines(publication, width: inner.width)
                let first = publication.title + " · " + Formatting.count(publication.issueCount, "issue")
                    + " · \(publication.newCount) new · \(publication.unreadCount) unread · \(publication.downloadedCount) kept"
                let rows = [("", Style.plain), (first, theme.title)] + lines.dropFirst(5).prefix(2)
                for (offset, line) in rows.prefix(inner.height).enumerated() {
                    buffer.write(DisplayWidth.truncate(line.0, to: inner.width), x: inner.x, y: inner.y + offset, style: line.1, clip: inner)
                }
            }
            return
        }
        guard let item = selectedItem else { return }
        let isPane = area.height > 4
        var lines: [(String, Style)] = []
        let inner: Rect
        if isPane {
            buffer.box(area, style: theme.border)
            buffer.write(" Details ", x: area.x + 2, y: area.y, style: theme.title, clip: area)
            inner = Rect(x: area.x + 2, y: area.y + 1, width: area.width - 4, height: area.height - 2)
            for line in TextLayout.wrap(item.title, width: inner.width, lines: 3) { lines.append((line, theme.title)) }
            lines.append(("", .plain))
            lines.append((Formatting.day(item.releaseDate) + "  " + (item.isFree ? "free" : "paid") + (item.price.map { " · " + $0 } ?? ""), theme.dim))
            if let authors = item.authors { lines.append(("By " + authors, theme.dim)) }
            if let size = item.size { lines.append(("Size: " + Formatting.bytes(size), .plain)) }
            if let publication = item.publication { lines.append((publication, theme.dim)) }
            lines.append(("State: " + describe(item.state), .plain))
            var marks: [String] = []
            if item.isNew { marks.append("new") }
            if item.isRead { marks.append("read") } else if item.isUnread { marks.append("unread") }
            if item.isPinned { marks.append("pinned") }
            if !marks.isEmpty {
                lines.append((marks.joined(separator: ", ").prefix(1).uppercased() + marks.joined(separator: ", ").dropFirst(),
                              item.isNew || item.isUnread ? theme.unread : .plain))
            }
            if let firstSeen = item.firstSeen { lines.append(("First seen: " + Formatting.moment(firstSeen), .plain)) }
            if let openedAt = item.openedAt { lines.append(("Opened: " + Formatting.moment(openedAt), .plain)) }
            if let sizeOnDisk = item.sizeOnDisk {
                lines.append(("On disk: " + Formatting.bytes(sizeOnDisk) + (item.mediaType.map { ", " + $0 } ?? ""), .plain))
            } else if let mediaType = item.mediaType {
                lines.append(("Type: " + mediaType, .plain))
            }
            if let name = item.serverFileName { lines.append(("Server's name: " + name, theme.dim)) }
            if let summary = item.summary, !summary.isEmpty {
                lines.append(("", .plain))
                for line in TextLayout.wrap(summary, width: inner.width, lines: 6) { lines.append((line, .plain)) }
            }
            if let path = model.selectedPath {
                lines.append(("", .plain))
                lines.append(("File:", theme.dim))
                var rest = Substring(path)
                while !rest.isEmpty {
                    lines.append((String(rest.prefix(inner.width)), theme.dim))
                    rest = rest.dropFirst(inner.width)
                }
            }
        } else {
            inner = Rect(x: area.x + 1, y: area.y, width: area.width - 2, height: area.height)
            buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: Cell("─", style: theme.border))
            lines.append(("", .plain))
            var first = item.title + " · " + Formatting.day(item.releaseDate)
            if let size = item.size { first += " · " + Formatting.bytes(size) }
            first += " · " + describe(item.state)
            lines.append((first, theme.title))
            lines.append((item.summary ?? "", .plain))
            lines.append((model.selectedPath.map { "On disk: " + $0 } ?? "", theme.dim))
        }
        for (offset, line) in lines.prefix(inner.height).enumerated() {
            buffer.write(DisplayWidth.truncate(line.0, to: inner.width), x: inner.x, y: inner.y + offset, style: line.1, clip: inner)
        }
    }

    func describe(_ state: DownloadState) -> String {
        switch state {
        case .remote: return "not downloaded"
        case .partial(let received, let total):
            return "partly downloaded (" + Formatting.bytes(received) + (total.map { " of " + Formatting.bytes($0) } ?? "") + ")"
        case .queued: return "queued"
        case .downloading(let progress):
            var text = "downloading " + Formatting.bytes(progress.received)
            if let total = progress.total { text += " of " + Formatting.bytes(total) }
            text += ", " + Formatting.bytes(Int64(progress.bytesPerSecond)) + "/s"
            if let eta = progress.secondsRemaining { text += ", " + Formatting.duration(eta) + " left" }
            return text
        case .retrying(let error, let attempt, let delay):
            return "attempt \(attempt) failed: \(error.message) Retrying in \(Int(delay.rounded())) s."
        case .verifying: return "verifying"
        case .downloaded: return "downloaded"
        case .failed(let error): return (error.needsCredentials ? "locked: " : "failed: ") + error.message
        }
    }

    private func renderTooSmall(into buffer: inout Buffer) {
        let area = Rect(x: 0, y: layout.header.maxY, width: buffer.width, height: max(0, layout.status.y - layout.header.maxY))
        let lines = ["Terminal too small", "need \(ShelfLayout.cardWidth)×\(ShelfLayout.cardHeight + 2)"]
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
        let warning = model.statusIsWarning || state.message != nil
        let style = warning ? theme.statusWarning : theme.statusBar
        buffer.fill(area, with: Cell(" ", style: style))
        var right = ""
        if model.activeDownloads > 0 {
            right += "↓ \(model.activeDownloads) · \(Formatting.bytes(Int64(model.bytesPerSecond)))/s · "
        }
        right += "library \(Formatting.bytes(model.librarySize))"
        if let budget = model.storageBudget { right += " of \(Formatting.bytes(budget))" }
        right += " · ? help "
        if let message = state.message {
            // A message is what the user must read now: it gets the whole line.
            buffer.write(DisplayWidth.truncate(" " + message, to: area.width), x: 0, y: area.y, style: style, clip: area)
            return
        }
        let left = " " + model.status
        let rightWidth = DisplayWidth.of(right)
        let leftRoom = area.width - rightWidth - 1
        if leftRoom >= 12 {
            buffer.write(DisplayWidth.truncate(left, to: leftRoom), x: 0, y: area.y, style: style, clip: area)
            buffer.write(right, x: area.maxX - rightWidth, y: area.y, style: style, clip: area)
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
                (keys(.subscribe), "subscribe to the section under the cursor"),
                (keys(.filter), "search the server (where its feed offers it)"),
                (keys(.back), "up one level, then back"),
                (keys(.help), "this help"),
                (keys(.quit), "quit (downloads resume next time)"),
            ]
        }
        if screen == .newsstand {
            return [
                ("← ↓ ↑ → h j k l", "move"),
                (keys(.open), "open the publication's issues"),
                (keys(.newIssues), "new issues of every publication"),
                (keys(.refresh) + " · " + keys(.refreshAll), "refresh this publication · all of them"),
                (keys(.markAllRead), "mark all of its issues read"),
                (keys(.browse), "browse its server's sections"),
                (keys(.filter), "filter by title (Enter keeps, Esc clears)"),
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
            (keys(.filter), "filter by title (Enter keeps, Esc clears)"),
            (keys(.sort), "sort by date, title or state"),
            (keys(.toggleRead) + " · " + keys(.togglePin), "mark read or unread · pin or unpin"),
            (keys(.markAllRead), "mark all of them read"),
            (keys(.refresh), "refresh the catalog"),
            (keys(.browse), "browse the server's sections"),
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
        let height = min(buffer.height, lines.count + 4)
        let area = Rect(x: (buffer.width - width) / 2, y: (buffer.height - height) / 2, width: width, height: height)
        buffer.fill(area, with: Cell(" ", style: theme.overlay))
        buffer.box(area, style: theme.selectedBorder)
        buffer.write(" Keys ", x: area.x + 2, y: area.y, style: theme.title, clip: area)
        let inner = Rect(x: area.x + 2, y: area.y + 2, width: area.width - 4, height: area.height - 3)
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
