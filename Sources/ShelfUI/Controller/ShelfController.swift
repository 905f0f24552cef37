import Foundation
import NewsstandKit

/// Runs the shelf: turns keys, mouse, store notifications and signals into store calls and
/// redraws. Confined to the thread that calls ``run()``; never waits on the network.
public final class ShelfController {
    private let newsstand: Newsstand
    private let store: Store
    private let terminal: any Terminal
    private let opener: Opener
    private let waker = Waker()
    private let signals: ShelfSignals
    private let covers: CoverLoader
    private let theme: Theme

    private var state = ShelfState()
    /// The filtered, sorted issues: what the grid shows.
    private var order: [Issue] = []
    private var layout: ShelfLayout
    private var lastRender: UInt64 = 0
    private var needsRender = true
    private var running = true
    private var exitStatus: Int32 = 0

    /// Redraws at most this often while things change (progress, covers).
    static let minimumFrameInterval: UInt64 = 50_000_000

    /// A shelf of `store`'s issues; downloads, reading and deleting go through `newsstand`.
    public init(newsstand: Newsstand, store: Store, terminal: any Terminal, opener: Opener = .fromEnvironment()) {
        self.newsstand = newsstand
        self.store = store
        self.terminal = terminal
        self.opener = opener
        signals = ShelfSignals(waker: waker)
        theme = Theme(colors: terminal.colorSupport)
        layout = ShelfLayout(width: terminal.width, height: terminal.height)
        let signals = signals
        covers = CoverLoader(store: store) { signals.mark { $0.redraw = true } }
    }

    /// Shows the shelf until the user quits or a signal arrives; returns the exit status.
    public func run() -> Int32 {
        waker.catchTerminationSignals()
        let observers = signals.observe(store)
        defer {
            let center = store.configuration.notificationCenter
            observers.forEach(center.removeObserver)
        }
        // The cached catalog first: the shelf appears at once, then the network catches up.
        store.loadCache()
        newsstand.resumeInterruptedDownloads(in: store)
        store.refresh { [newsstand, store] _ in newsstand.resumeInterruptedDownloads(in: store) }

        while running {
            if waker.receivedSignal != 0 {
                exitStatus = 128 + waker.receivedSignal
                break
            }
            applyChanges(signals.take())
            var timeout: Double?
            if needsRender {
                let elapsed = DispatchTime.now().uptimeNanoseconds - lastRender
                if elapsed >= Self.minimumFrameInterval {
                    render()
                } else {
                    timeout = Double(Self.minimumFrameInterval - elapsed) / 1e9
                }
            }
            let event = terminal.nextEvent(timeout: timeout, wakeDescriptor: waker.descriptor)
            waker.drain()
            if let event { handle(event) }
        }
        newsstand.stopDownloadsForLater(waitingUpTo: 2)
        terminal.end()
        return exitStatus
    }

    // MARK: Changes from other threads

    private func applyChanges(_ changes: ShelfSignals.Changes) {
        if changes.issuesReplaced || (changes.statesChanged && state.sort == .state) {
            rebuildOrder()
        }
        if changes.librarySizeStale {
            DispatchQueue.global(qos: .utility).async { [store, signals] in
                let size = store.library.sizeOnDisk()
                signals.librarySize.withLock { $0 = size }
                signals.mark { $0.redraw = true }
            }
        }
        if changes.redraw { needsRender = true }
    }

    private func rebuildOrder() {
        let selectedID = order.indices.contains(state.selected) ? order[state.selected].localKey : nil
        var keyed = store.issues.map { (issue: $0, entry: $0.entry) }
        if !state.filter.isEmpty {
            let filter = state.filter
            keyed = keyed.filter {
                $0.entry.title.range(of: filter, options: [.caseInsensitive, .diacriticInsensitive]) != nil
                    || $0.issue.id.range(of: filter, options: .caseInsensitive) != nil
            }
        }
        func newerFirst(_ a: CatalogEntry, _ b: CatalogEntry) -> Bool {
            switch (a.releaseDate, b.releaseDate) {
            case let (x?, y?) where x != y: return x > y
            case (_?, nil): return true
            case (nil, _?): return false
            default: return a.title.localizedStandardCompare(b.title) == .orderedAscending
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
                    dates[a] != dates[b] ? dates[a] > dates[b] : newerFirst(keyed[a].entry, keyed[b].entry)
                }
                keyed = sorted.map { keyed[$0] }
            }
        case .title:
            keyed.sort { $0.entry.title.localizedStandardCompare($1.entry.title) == .orderedAscending }
        case .state:
            let ranked = keyed.map { (item: $0, rank: Self.rank($0.issue.state)) }
            keyed = ranked.sorted { $0.rank != $1.rank ? $0.rank < $1.rank : newerFirst($0.item.entry, $1.item.entry) }.map(\.item)
        }
        order = keyed.map(\.issue)
        if let selectedID, let index = order.firstIndex(where: { $0.localKey == selectedID }) {
            state.selected = index
        }
        needsRender = true
    }

    private static func rank(_ state: DownloadState) -> Int {
        switch state {
        case .downloading, .verifying: return 0
        case .queued, .retrying: return 1
        case .failed: return 2
        case .partial: return 3
        case .downloaded: return 4
        case .remote: return 5
        }
    }

    // MARK: Drawing

    private func render() {
        lastRender = DispatchTime.now().uptimeNanoseconds
        needsRender = false
        layout = ShelfLayout(width: terminal.width, height: terminal.height)
        state.clamp(count: order.count, columns: layout.columns, visibleRows: layout.visibleRows)
        let range = layout.visibleRange(firstRow: state.firstRow, count: order.count)
        let visible = Array(order[range])
        if theme.colors == .palette256 { covers.request(visible) }
        let items = visible.map { ShelfItem(issue: $0, cover: covers.image(for: $0.localKey)) }
        let selected = order.indices.contains(state.selected) ? order[state.selected] : nil
        let selectedItem = selected.map { issue in
            range.contains(state.selected) ? items[state.selected - range.lowerBound] : ShelfItem(issue: issue, cover: nil)
        }

        var model = ShelfModel(catalogTitle: store.catalogTitle, status: store.status.summary)
        switch store.status {
        case .offline, .failed: model.statusIsWarning = true
        default: break
        }
        model.totalCount = store.numberOfIssues
        let active = newsstand.activeIssues
        model.activeDownloads = active.count
        model.bytesPerSecond = active.reduce(0) { total, issue in
            if case .downloading(let progress) = issue.state { return total + progress.bytesPerSecond }
            return total
        }
        model.librarySize = signals.librarySize.withLock { $0 }
        model.selectedPath = selected?.installedPath

        var buffer = Buffer(width: terminal.width, height: terminal.height)
        ShelfScreen(layout: layout, model: model, state: state, visibleItems: items, selectedItem: selectedItem,
                    itemCount: order.count, theme: theme).render(into: &buffer)
        terminal.draw(buffer)
    }

    // MARK: Input

    private func handle(_ event: InputEvent) {
        needsRender = true
        switch event {
        case .resize:
            layout = ShelfLayout(width: terminal.width, height: terminal.height)
        case .mouse(let action, let x, let y):
            handleMouse(action, x: x, y: y)
        case .key(let key):
            if state.isEditingFilter {
                handleFilterKey(key)
            } else if state.overlay != .none {
                handleOverlayKey(key)
            } else {
                state.message = nil
                handleShelfKey(key)
            }
        }
    }

    private func handleShelfKey(_ key: Key) {
        let columns = max(1, layout.columns)
        let page = columns * max(1, layout.visibleRows)
        switch key {
        case .left, .character("h"): move(by: -1)
        case .right, .character("l"): move(by: 1)
        case .up, .character("k"): move(by: -columns)
        case .down, .character("j"): move(by: columns)
        case .pageUp: move(by: -page)
        case .pageDown: move(by: page)
        case .home, .character("g"): state.selected = 0
        case .end, .character("G"): state.selected = max(0, order.count - 1)
        case .enter: selectedIssue.map(primaryAction)
        case .character("d"): selectedIssue.map(download)
        case .character("x"): selectedIssue.map(newsstand.cancelDownload)
        case .character("D"), .delete: selectedIssue.map(confirmDelete)
        case .character("/"):
            state.isEditingFilter = true
        case .character("s"):
            state.sort = state.sort.next
            rebuildOrder()
        case .character("r"):
            store.refresh()
        case .character("?"):
            state.overlay = .help
        case .character("q"), .character("\u{4}"):
            let active = newsstand.activeIssues.count
            if active > 0 {
                state.overlay = .confirmQuit(activeDownloads: active)
            } else {
                running = false
            }
        case .escape:
            if !state.filter.isEmpty {
                state.filter = ""
                rebuildOrder()
            }
        default:
            break
        }
    }

    private func handleFilterKey(_ key: Key) {
        switch key {
        case .enter:
            state.isEditingFilter = false
            state.selected = 0
            state.firstRow = 0
        case .escape:
            state.isEditingFilter = false
            state.filter = ""
            rebuildOrder()
        case .backspace, .delete:
            if !state.filter.isEmpty {
                state.filter.removeLast()
                rebuildOrder()
            }
        case .character(let character):
            state.filter.append(character)
            rebuildOrder()
            state.selected = 0
        default:
            break
        }
    }

    private func handleOverlayKey(_ key: Key) {
        let yes = key == .character("y") || key == .character("Y")
        switch state.overlay {
        case .none:
            break
        case .help:
            state.overlay = .none
        case .confirmDelete(let id, _):
            state.overlay = .none
            if yes || key == .enter, let issue = store.issue(withID: id) {
                do {
                    try newsstand.delete(issue)
                    signals.mark { $0.librarySizeStale = true }
                } catch {
                    state.message = error.message
                }
            }
        case .confirmQuit:
            state.overlay = .none
            if yes || key == .enter || key == .character("q") { running = false }
        }
    }

    private func handleMouse(_ action: MouseAction, x: Int, y: Int) {
        guard state.overlay == .none, !state.isEditingFilter else { return }
        switch action {
        case .scrollUp: move(by: -max(1, layout.columns))
        case .scrollDown: move(by: max(1, layout.columns))
        case .click, .doubleClick:
            guard let index = layout.itemIndex(atX: x, y: y, firstRow: state.firstRow), index < order.count else { return }
            state.selected = index
            if action == .doubleClick { primaryAction(order[index]) }
        }
    }

    private func move(by offset: Int) {
        guard !order.isEmpty else { return }
        state.selected = min(max(0, state.selected + offset), order.count - 1)
    }

    private var selectedIssue: Issue? {
        order.indices.contains(state.selected) ? order[state.selected] : nil
    }

    // MARK: Actions

    private func primaryAction(_ issue: Issue) {
        switch issue.state {
        case .downloaded: read(issue)
        case .remote, .partial, .failed: download(issue)
        case .queued, .downloading, .retrying, .verifying: state.message = "Already downloading; x cancels."
        }
    }

    private func download(_ issue: Issue) {
        if case .downloaded = issue.state {
            state.message = "Already downloaded: Enter reads it."
            return
        }
        newsstand.download(issue)
    }

    private func confirmDelete(_ issue: Issue) {
        switch issue.state {
        case .downloaded, .partial, .failed:
            state.overlay = .confirmDelete(id: issue.localKey, title: issue.title)
        case .remote:
            state.message = "Nothing to delete: the issue is not downloaded."
        case .queued, .downloading, .retrying, .verifying:
            state.message = "Downloading: x cancels it first."
        }
    }

    /// Leaves the screen to the reader, then takes it back; the issue is then read.
    private func read(_ issue: Issue) {
        terminal.suspend()
        defer { terminal.resume() }
        do {
            try newsstand.open(issue, with: opener)
        } catch {
            state.message = error.message
        }
    }
}
