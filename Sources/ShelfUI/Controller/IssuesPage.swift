import Foundation
import NewsstandKit

/// A grid of issues: one publication's, or the new issues of all of them. Enter reads or
/// downloads, and the keys act on the selected issue.
final class IssuesPage: ShelfPage {
    enum Source {
        case publication(Store)
        /// The new issues of every publication.
        case newIssues
    }

    private let context: ShelfContext
    let source: Source
    var state = ShelfState()
    /// The filtered, sorted issues: what the grid shows.
    private var order: [Issue] = []
    /// What the disk says of the selected issue (its size, the server's file name), read once
    /// per issue and state rather than every frame.
    private var selectedDetails: (address: String, path: String, size: Int64?, serverFileName: String?)?

    init(context: ShelfContext, source: Source) {
        self.context = context
        self.source = source
        if case .newIssues = source { context.recountStale() }
        rebuildOrder()
    }

    private var newsstand: Newsstand { context.newsstand }
    private var selectedIssue: Issue? { order.indices.contains(state.selected) ? order[state.selected] : nil }
    private var isNewIssues: Bool {
        if case .newIssues = source { return true }
        return false
    }

    func apply(_ changes: ShelfSignals.Changes) {
        // The New view's header counts every publication's new issues.
        if isNewIssues { context.recountStale() }
        if changes.issuesReplaced || (changes.statesChanged && (state.sort == .state || isNewIssues)) {
            rebuildOrder()
        }
    }

    func reappeared() {
        rebuildOrder()
    }

    private func rebuildOrder() {
        let selectedID = selectedIssue?.address
        let issues: [Issue]
        switch source {
        case .publication(let store): issues = store.issues
        case .newIssues: issues = newsstand.stores.flatMap { $0.issues.filter { $0.reading?.isNew ?? false } }
        }
        var keyed = issues.map { (issue: $0, entry: $0.entry) }
        if !state.filter.isEmpty {
            let filter = state.filter
            keyed = keyed.filter {
                $0.entry.title.range(of: filter, options: [.caseInsensitive, .diacriticInsensitive]) != nil
                    || $0.issue.id.range(of: filter, options: .caseInsensitive) != nil
            }
        }
        switch state.sort {
        case .date:
            // Sorting indices by a plain number moves far less than sorting the entries themselves
            // (100,000 of them when the shelf opens).
            let dates = keyed.map { $0.entry.releaseDate?.timeIntervalSince1970 ?? -.infinity }
            // Catalogs usually list issues oldest or newest first: then no sort is needed.
            if zip(dates, dates.dropFirst()).allSatisfy({ $0 > $1 }) {
                break
            } else if zip(dates, dates.dropFirst()).allSatisfy({ $0 < $1 }) {
                keyed.reverse()
            } else {
                let sorted = keyed.indices.sorted { a, b in
                    dates[a] != dates[b] ? dates[a] > dates[b] : Self.newerFirst(keyed[a].entry, keyed[b].entry)
                }
                keyed = sorted.map { keyed[$0] }
            }
        case .title:
            keyed.sort { $0.entry.title.localizedStandardCompare($1.entry.title) == .orderedAscending }
        case .state:
            let ranked = keyed.map { (item: $0, rank: Self.rank($0.issue.state)) }
            keyed = ranked.sorted { $0.rank != $1.rank ? $0.rank < $1.rank : Self.newerFirst($0.item.entry, $1.item.entry) }.map(\.item)
        }
        order = keyed.map(\.issue)
        if let selectedID, let index = order.firstIndex(where: { $0.address == selectedID }) {
            state.selected = index
        }
        context.needsRender = true
    }

    /// Newest release first; undated after; titles in a person's order break ties.
    private static func newerFirst(_ a: CatalogEntry, _ b: CatalogEntry) -> Bool {
        switch (a.releaseDate, b.releaseDate) {
        case let (x?, y?) where x != y: return x > y
        case (_?, nil): return true
        case (nil, _?): return false
        default: return a.title.localizedStandardCompare(b.title) == .orderedAscending
        }
    }

    private static func rank(_ state: DownloadState) -> Int {
        switch state {
        case .downloading, .verifying: return 0
        case .queued, .retrying, .waitingForNetwork: return 1
        case .failed: return 2
        case .partial: return 3
        case .downloaded: return 4
        case .remote: return 5
        }
    }

    // MARK: Input

    func handle(_ key: Key) -> PageAction {
        let before = (state, order.count)
        if state.isEditingFilter {
            if state.editFilter(key) { rebuildOrder() }
        } else if state.overlay != .none {
            answerOverlay(key)
        } else {
            state.message = nil
            if let action = handleCommand(key) { return action }
        }
        return before == (state, order.count) ? .none : .redraw
    }

    private func handleCommand(_ key: Key) -> PageAction? {
        if context.move(&state, key, count: order.count) { return nil }
        if context.handleShared(key, &state) { return .redraw }
        switch context.settings.action(for: ShelfController.keyName(key)) {
        case .open?: selectedIssue.map(primaryAction)
        case .download?: selectedIssue.map(download)
        case .cancel?: selectedIssue.map(newsstand.cancelDownload)
        case .delete?: selectedIssue.map(confirmDelete)
        case .toggleRead?: selectedIssue.map(toggleRead)
        case .togglePin?: selectedIssue.map(togglePinned)
        case .markAllRead?:
            context.askToMarkRead(markableIssues, title: sourceTitle, &state)
        case .filter?:
            state.isEditingFilter = true
        case .sort?:
            state.sort = state.sort.next
            rebuildOrder()
        case .refresh?:
            if case .publication(let store) = source { store.refresh() } else { newsstand.refreshAll(completion: { _ in }) }
        case .refreshAll?:
            newsstand.refreshAll(completion: { _ in })
        case .newIssues?:
            return .replace(IssuesPage(context: context, source: .newIssues))
        case .browse?:
            if case .publication(let store) = source { return .push(BrowsePage(context: context, store: store)) }
        case .help?:
            state.overlay = .help
        case .quit?:
            context.askToQuit(&state)
        case .back?:
            // Esc first clears a filter, as it does in the prompt.
            if key == .escape && !state.filter.isEmpty {
                state.filter = ""
                rebuildOrder()
            } else {
                return .pop
            }
        // Every page's keys are the context's (handleShared, above); + is for browsing only.
        case .detailsUp?, .detailsDown?, .toggleView?, .subscribe?, nil:
            break
        }
        return nil
    }

    private func answerOverlay(_ key: Key) {
        switch state.answerOverlay(key) {
        case .dismissed:
            break
        case .quit:
            context.running = false
        case .markAllRead:
            context.markAllRead(markableIssues, &state)
            rebuildOrder()
        case .delete(let address):
            guard let issue = try? newsstand.issue(addressed: address) else { return }
            do {
                try newsstand.delete(issue)
                context.signals.mark { $0.librarySizeStale = true }
            } catch {
                state.message = .error(error.message)
            }
        }
    }

    func handleMouse(_ action: MouseAction, x: Int, y: Int) -> PageAction {
        guard !isTakingKeys else { return .none }
        switch context.point(&state, action, x: x, y: y, count: order.count) {
        case .ignored: return .none
        case .moved: break
        case .opened(let index): primaryAction(order[index])
        }
        return .redraw
    }

    // MARK: Actions

    private func primaryAction(_ issue: Issue) {
        switch issue.state {
        case .downloaded: read(issue)
        case .remote, .partial, .failed: download(issue)
        case .queued, .downloading, .retrying, .waitingForNetwork, .verifying: state.message = .info("Already downloading; x cancels.")
        }
    }

    private func download(_ issue: Issue) {
        if case .downloaded = issue.state {
            state.message = .info("Already downloaded: Enter reads it.")
            return
        }
        newsstand.download(issue)
    }

    private func toggleRead(_ issue: Issue) {
        let read = !(issue.reading?.isRead ?? false)
        do {
            try newsstand.setRead(read, [issue])
            state.message = .success(read ? "Marked read." : "Marked unread.")
        } catch {
            state.message = .error(error.message)
        }
    }

    private func togglePinned(_ issue: Issue) {
        let pinned = !(issue.reading?.pinned ?? false)
        do {
            try newsstand.setPinned(pinned, [issue])
            state.message = .success(pinned ? "Pinned: the storage budget keeps it." : "Unpinned.")
        } catch {
            state.message = .error(error.message)
        }
    }

    /// What `M` marks read: the publication's every issue, or the new issues shown.
    private var markableIssues: [Issue] {
        if case .publication(let store) = source { return store.issues }
        return order
    }

    private var sourceTitle: String {
        if case .publication(let store) = source { return store.displayTitle }
        return "New"
    }

    private func confirmDelete(_ issue: Issue) {
        switch issue.state {
        case .downloaded, .partial, .failed:
            state.overlay = .confirmDelete(id: issue.address, title: issue.title)
        case .remote:
            state.message = .info("Nothing to delete: the issue is not downloaded.")
        case .queued, .downloading, .retrying, .waitingForNetwork, .verifying:
            state.message = .info("Downloading: x cancels it first.")
        }
    }

    /// Leaves the screen to the reader, then takes it back; the issue is then read.
    private func read(_ issue: Issue) {
        context.terminal.suspend()
        defer {
            context.terminal.resume()
            // The reader had the screen: all of it is drawn again.
            context.redrawNow()
        }
        do {
            try newsstand.open(issue, with: context.opener)
        } catch {
            state.message = .error(error.message)
        }
    }

    // MARK: Drawing

    func render(into buffer: inout Buffer) {
        let layout = context.layout
        var model = context.baseModel()
        state.clamp(count: order.count, columns: layout.columns, visibleRows: layout.visibleRows)
        let range = layout.visibleRange(firstRow: state.firstRow, count: order.count)
        let visible = Array(order[range])
        if context.layout.coverRows > 0 { context.covers.request(visible, columns: CardView.coverColumns, rows: context.layout.coverRows) }
        let items = visible.map(issueItem)
        let selected = selectedIssue
        var selectedItem = selected.map { issue in
            range.contains(state.selected) ? items[state.selected - range.lowerBound] : issueItem(issue)
        }
        if let issue = selected, let path = issue.installedPath {
            let details = self.details(of: issue, installedAt: path)
            selectedItem?.sizeOnDisk = details.size
            selectedItem?.serverFileName = details.serverFileName
        }
        model.selectedPath = selected?.installedPath
        switch source {
        case .publication(let store):
            model.screen = .issues
            model.catalogTitle = store.displayTitle
            model.status = store.status.summary
            switch store.status {
            case .offline, .failed: model.statusIsWarning = true
            default: break
            }
            model.totalCount = store.numberOfIssues
        case .newIssues:
            model.screen = .new
            model.catalogTitle = "New"
            model.totalCount = context.newTotal
            (model.status, model.statusIsWarning) = context.newsstandStatus(selected: nil)
        }
        context.draw(ShelfScreen(layout: layout, model: model, state: state, visibleItems: items, selectedItem: selectedItem,
                                 itemCount: order.count, theme: context.theme, settings: context.settings),
                     into: &buffer)
        context.trace?.write("frame covers=\(items.filter { $0.cover != nil }.count)")
    }

    private func issueItem(_ issue: Issue) -> ShelfItem {
        let covers = context.covers
        var item = ShelfItem(issue: issue, cover: covers.image(for: issue, columns: CardView.coverColumns, rows: context.layout.coverRows))
        let publication = newsstand.store(for: issue)?.displayTitle
        // Among several publications' issues (the New view) the name is what tells them apart.
        if isNewIssues {
            item.publication = publication
        } else if let publication {
            item.cardTitle = ShelfItem.titleWithout(publication: publication, item.title)
        }
        return item
    }

    private func details(of issue: Issue, installedAt path: String) -> (size: Int64?, serverFileName: String?) {
        if let known = selectedDetails, known.address == issue.address, known.path == path { return (known.size, known.serverFileName) }
        let size = issue.library.sizeOnDisk(key: issue.localKey)
        let name = issue.library.serverFileName(for: issue.localKey)
        selectedDetails = (issue.address, path, size, name)
        return (size, name)
    }
}
