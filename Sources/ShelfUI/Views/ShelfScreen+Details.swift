import Foundation
import NewsstandKit

/// The details pane: what the selected card says at length.
extension ShelfScreen {
    func publicationLines(_ item: PublicationItem, width: Int) -> [(String, Style)] {
        var lines: [(String, Style)] = []
        for line in TextLayout.wrap(item.title, width: width, lines: Self.longText) { lines.append((line, theme.title)) }
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
            for line in TextLayout.wrap(message, width: width, lines: Self.longText) { lines.append((line, theme.failure)) }
        }
        if let newest = item.newestTitle {
            lines.append(("", .plain))
            lines.append(("Newest:", theme.dim))
            for line in TextLayout.wrap(newest, width: width, lines: Self.longText) { lines.append((line, .plain)) }
            if let date = item.newestDate { lines.append((Formatting.day(date), theme.dim)) }
        }
        return lines
    }

    func folderLines(_ item: PublicationItem, _ folder: PublicationItem.Folder, width: Int) -> [(String, Style)] {
        var lines: [(String, Style)] = []
        for line in TextLayout.wrap(item.title, width: width, lines: Self.longText) { lines.append((line, theme.title)) }
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
            for line in TextLayout.wrap(summary, width: width, lines: Self.longText) { lines.append((line, .plain)) }
        }
        return lines
    }

    /// What the details pane says of the selection, line by line, under its heading; nil when
    /// nothing is selected.
    func detailsPane(width: Int) -> (heading: String, lines: [(String, Style)])? {
        switch model.screen {
        case .browse:
            guard let item = selectedPublication, let folder = item.folder else { return nil }
            return ("Section", folderLines(item, folder, width: width))
        case .newsstand:
            return selectedPublication.map { ("Publication", publicationLines($0, width: width)) }
        case .issues, .new:
            return selectedItem.map { ("Details", issueLines($0, width: width)) }
        }
    }

    /// How many lines of the details pane do not fit in it: as far as `]` scrolls.
    public var detailsOverflow: Int {
        guard layout.fitsACard, let area = layout.details, area.height > 4,
              let pane = detailsPane(width: max(1, area.width - 4)) else { return 0 }
        return max(0, pane.lines.count - (area.height - 2))
    }

    func issueLines(_ item: ShelfItem, width: Int) -> [(String, Style)] {
        var lines: [(String, Style)] = []
        // The whole title, and a failure's whole sentence: the card has room for neither.
        for line in TextLayout.wrap(item.title, width: width, lines: Self.longText) { lines.append((line, theme.title)) }
        lines.append(("", .plain))
        lines.append((Formatting.day(item.releaseDate) + "  " + (item.isFree ? "free" : "paid") + (item.price.map { " · " + $0 } ?? ""), theme.dim))
        if let authors = item.authors {
            for line in TextLayout.wrap("By " + authors, width: width, lines: Self.longText) { lines.append((line, theme.dim)) }
        }
        if let size = item.size { lines.append(("Size: " + Formatting.bytes(size), .plain)) }
        if let publication = item.publication { lines.append((publication, theme.dim)) }
        let stateStyle: Style = if case .failed = item.state { theme.failure } else { .plain }
        for line in TextLayout.wrap("State: " + describe(item.state), width: width, lines: Self.longText) { lines.append((line, stateStyle)) }
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
            for line in TextLayout.wrap(summary, width: width, lines: Self.longText) { lines.append((line, .plain)) }
        }
        if let path = model.selectedPath {
            lines.append(("", .plain))
            lines.append(("File:", theme.dim))
            var rest = Substring(path)
            while !rest.isEmpty {
                lines.append((String(rest.prefix(width)), theme.dim))
                rest = rest.dropFirst(width)
            }
        }
        return lines
    }

    /// As many lines as a title or summary of the largest size the catalog checks let through
    /// can take in a narrow pane: the text is whole, and the pane scrolls.
    static let longText = 400

    func renderDetails(into buffer: inout Buffer, area: Rect) {
        if area.height > 4 {
            renderDetailsPane(into: &buffer, area: area)
        } else {
            renderDetailsStrip(into: &buffer, area: area)
        }
    }

    /// The boxed pane, scrolled by `state.detailsOffset`, with marks on its border for the lines
    /// above and below.
    private func renderDetailsPane(into buffer: inout Buffer, area: Rect) {
        let inner = Rect(x: area.x + 2, y: area.y + 1, width: area.width - 4, height: area.height - 2)
        guard let pane = detailsPane(width: max(1, inner.width)) else { return }
        buffer.box(area, style: theme.border)
        buffer.write(" \(pane.heading) ", x: area.x + 2, y: area.y, style: theme.title, clip: area)
        let top = min(state.detailsOffset, max(0, pane.lines.count - inner.height))
        for (offset, line) in pane.lines.dropFirst(top).prefix(inner.height).enumerated() {
            buffer.write(DisplayWidth.truncate(line.0, to: inner.width), x: inner.x, y: inner.y + offset, style: line.1, clip: inner)
        }
        let border = Rect(x: area.x + 1, y: area.y, width: area.width - 2, height: area.height)
        func mark(_ text: String, y: Int) {
            let width = DisplayWidth.of(text)
            guard width + DisplayWidth.of(pane.heading) + 4 <= border.width else { return }
            buffer.write(text, x: border.maxX - width, y: y, style: theme.key, clip: border)
        }
        let keys = { (action: ShelfSettings.Action) in settings.keys[action]?.first.map { " · " + $0 } ?? "" }
        if top > 0 { mark(" ↑ \(top)\(keys(.detailsUp)) ", y: area.y) }
        let below = pane.lines.count - top - inner.height
        if below > 0 { mark(" ↓ \(below) more\(keys(.detailsDown)) ", y: area.maxY - 1) }
    }

    /// The strip below a short grid: the selection in three lines, cut.
    private func renderDetailsStrip(into buffer: inout Buffer, area: Rect) {
        let inner = Rect(x: area.x + 1, y: area.y, width: area.width - 2, height: area.height)
        let rows: [(String, Style)]
        switch model.screen {
        case .browse:
            guard let item = selectedPublication, let folder = item.folder else { return }
            let lines = folderLines(item, folder, width: max(1, area.width - 4))
            rows = [("", Style.plain), (item.title, theme.title), lines[min(lines.count - 1, 1)]]
        case .newsstand:
            guard let publication = selectedPublication else { return }
            let lines = publicationLines(publication, width: inner.width)
            let first = publication.title + " · " + Formatting.count(publication.issueCount, "issue")
                + " · \(publication.newCount) new · \(publication.unreadCount) unread · \(publication.downloadedCount) kept"
            rows = [("", Style.plain), (first, theme.title)] + lines.dropFirst(lines.firstIndex { $0.0.isEmpty }.map { $0 + 3 } ?? 5).prefix(2)
        case .issues, .new:
            guard let item = selectedItem else { return }
            var first = item.title + " · " + Formatting.day(item.releaseDate)
            if let size = item.size { first += " · " + Formatting.bytes(size) }
            // The state on a line of its own, a failure's sentence on two: what went wrong is
            // worth more than the summary.
            let failed: Bool = if case .failed = item.state { true } else { false }
            let state = TextLayout.wrap(describe(item.state).prefix(1).uppercased() + describe(item.state).dropFirst(),
                                        width: inner.width, lines: failed ? 2 : 1)
            var lines: [(String, Style)] = [("", .plain), (first, theme.title)] + state.map { ($0, failed ? theme.failure : .plain) }
            if let path = model.selectedPath {
                lines.append(("On disk: " + path, theme.dim))
            } else if let summary = item.summary {
                lines.append((summary, .plain))
            }
            rows = lines
        }
        buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), with: Cell("─", style: theme.border))
        for (offset, line) in rows.prefix(inner.height).enumerated() {
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
        case .waitingForNetwork(let error):
            return "waiting for the network: \(error.message) It goes on when the server answers (r refreshes)."
        case .verifying: return "verifying"
        case .downloaded: return "downloaded"
        case .failed(let error): return (error.needsCredentials ? "locked: " : "failed: ") + error.message
        }
    }
}
