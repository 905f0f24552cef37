import Foundation
import NewsstandKit

/// What every page of the shelf shares: the newsstand and its services, the layout, the
/// publications' counts, and the requests for a frame. Confined to the shelf's thread.
final class ShelfContext {
    let newsstand: Newsstand
    let terminal: any Terminal
    let opener: Opener
    let covers: CoverLoader
    let theme: Theme
    let settings: ShelfSettings
    let signals: ShelfSignals
    /// Adds a subscription to the configuration (the command line's config file); nil: cannot.
    let subscribe: ((Subscription) throws(NewsstandError) -> Void)?
    /// `$NEWSSTAND_TRACE`: a line per frame for the benchmark, which cannot see inside the process.
    let trace: FrameTrace?
    var layout: ShelfLayout
    /// Covers in a grid, or a line each: the reader's last choice, else the configuration's.
    private(set) var viewMode: ShelfSettings.ViewMode
    /// False once the reader has quit.
    var running = true
    /// A frame is due: something on screen changed.
    var needsRender = true
    /// Draw without waiting for the frame interval: a key was pressed, a page arrived.
    var renderNow = true
    /// How far the last frame's details pane could scroll (``ShelfScreen/detailsOverflow``).
    private var detailsOverflow = 0

    /// What a publication's card counts, worked out when its issues or their states change.
    struct Counts {
        var new = 0
        var unread = 0
        var downloaded = 0
        var newest: Issue?
    }

    private(set) var counts: [String: Counts] = [:]
    /// Publications whose counts are out of date; nil for all of them.
    private var countsStale: Set<String>? = nil
    /// Stores whose cached copy has been read (or found missing) since the shelf opened.
    let loadedStores = Locked(Set<String>())
    /// What each cached copy's info said, read once, for the cards drawn before the copies.
    private var cachedSummaries: [String: (title: String?, issueCount: Int?, fetchedAt: Date)?] = [:]
    /// Pages fetched for browse pages, handed over from the background, by request number.
    let fetched = Locked<[(request: Int, result: Result<FeedBrowser.CheckedPage, NewsstandError>)]>([])
    private var requests = 0

    init(newsstand: Newsstand, terminal: any Terminal, opener: Opener, settings: ShelfSettings,
         subscribe: ((Subscription) throws(NewsstandError) -> Void)?, waker: Waker) {
        self.newsstand = newsstand
        self.terminal = terminal
        self.opener = opener
        self.settings = settings
        self.subscribe = subscribe
        let trace = ProcessInfo.processInfo.environment["NEWSSTAND_TRACE"].flatMap(FrameTrace.init(path:))
        self.trace = trace
        let signals = ShelfSignals(waker: waker)
        self.signals = signals
        theme = Theme(colors: terminal.colorSupport, overrides: settings.colors)
        viewMode = Self.rememberedView(in: newsstand.configuration.directories) ?? settings.view
        layout = ShelfLayout(width: terminal.width, height: terminal.height, mode: viewMode)
        covers = CoverLoader(newsstand: newsstand, colors: terminal.colorSupport, pictures: terminal.pictureStore,
                             enabled: settings.covers != .off) {
            trace?.write("cover")
            signals.mark {
                $0.redraw = true
                $0.urgent = true
            }
        }
    }

    private static func rememberedView(in directories: Directories) -> ShelfSettings.ViewMode? {
        directories.stateNote("shelf-view").flatMap(ShelfSettings.ViewMode.init(rawValue:))
    }

    /// Switches between the grid and the list, on every page, and remembers the choice.
    func toggleView() {
        viewMode = viewMode.other
        relayout()
        // Not worth a failure: the next start opens in the configuration's view instead.
        try? newsstand.configuration.directories.saveStateNote("shelf-view", viewMode.rawValue)
    }

    /// The layout for the terminal's size and the view.
    func relayout() {
        layout = ShelfLayout(width: terminal.width, height: terminal.height, mode: viewMode)
    }

    /// Asks for a frame now (a key's effect is drawn at once).
    func redrawNow() {
        needsRender = true
        renderNow = true
    }

    // MARK: Counts

    /// Notes which publications' counts changed; they are done when a page that shows them asks.
    func countsChanged(_ changes: ShelfSignals.Changes) {
        if changes.everythingChanged {
            countsStale = nil
        } else if countsStale != nil {
            countsStale!.formUnion(changes.changedSubscriptions)
        }
    }

    /// Brings the stale counts up to date; says whether any was done.
    @discardableResult
    func recountStale() -> Bool {
        defer { countsStale = [] }
        guard let stale = countsStale else {
            recount(only: nil)
            return true
        }
        guard !stale.isEmpty else { return false }
        recount(only: stale)
        return true
    }

    /// New, unread and kept issues of each publication (or only those of `names`), and its newest.
    private func recount(only names: Set<String>?) {
        for store in newsstand.stores where names?.contains(store.name) ?? true {
            var count = Counts()
            var newestDate = -Double.infinity
            for issue in store.issues {
                if let reading = issue.reading, reading.isNew { count.new += 1 }
                if case .downloaded = issue.state {
                    count.downloaded += 1
                    if !(issue.reading?.isRead ?? false) { count.unread += 1 }
                }
                let date = issue.entry.releaseDate?.timeIntervalSince1970 ?? -Double.infinity
                if count.newest == nil || date > newestDate {
                    count.newest = issue
                    newestDate = date
                }
            }
            counts[store.name] = count
        }
        needsRender = true
    }

    var newTotal: Int { counts.values.reduce(0) { $0 + $1.new } }

    func cachedSummary(_ store: Store) -> (title: String?, issueCount: Int?, fetchedAt: Date)? {
        if let known = cachedSummaries[store.name] { return known }
        let summary = store.cachedSummary
        cachedSummaries[store.name] = .some(summary)
        return summary
    }

    // MARK: Frames

    /// Draws a page's screen, noting how far its details pane can scroll.
    func draw(_ screen: ShelfScreen, into buffer: inout Buffer) {
        detailsOverflow = screen.detailsOverflow
        screen.render(into: &buffer)
    }

    /// The header's figures every page shows: downloads, speed, library size and budget, new issues.
    func baseModel() -> ShelfModel {
        var model = ShelfModel()
        let active = newsstand.activeIssues
        model.activeDownloads = active.count
        model.bytesPerSecond = active.reduce(0) { total, issue in
            if case .downloading(let progress) = issue.state { return total + progress.bytesPerSecond }
            return total
        }
        model.librarySize = signals.librarySize.withLock { $0 }
        model.storageBudget = newsstand.configuration.maxStorage
        model.newTotal = newTotal
        return model
    }

    /// The newsstand's status line: what is refreshing, what failed, or that all is well; a
    /// selected publication's failure first.
    func newsstandStatus(selected: Store?) -> (String, Bool) {
        var refreshing = 0, offline = 0, failed = 0
        for store in newsstand.stores {
            switch store.status {
            case .loading: refreshing += 1
            case .offline: offline += 1
            case .failed: failed += 1
            default: break
            }
        }
        if let store = selected, case .failed(let error) = store.status {
            return (store.displayTitle + ": " + error.message, true)
        }
        var parts: [String] = []
        if refreshing > 0 { parts.append("refreshing \(refreshing) of \(newsstand.stores.count)") }
        if offline > 0 { parts.append("\(offline) offline") }
        if failed > 0 { parts.append("\(failed) failed") }
        guard !parts.isEmpty else { return ("Up to date", false) }
        let text = parts.joined(separator: " · ")
        return (text.prefix(1).uppercased() + text.dropFirst(), offline + failed > 0)
    }

    // MARK: Actions every page shares

    /// Quits, or asks first on `state`'s overlay while downloads run.
    func askToQuit(_ state: inout ShelfState) {
        let active = newsstand.activeIssues.count
        if active > 0 {
            state.overlay = .confirmQuit(activeDownloads: active)
        } else {
            running = false
        }
    }

    /// Moves `state`'s selection in a grid of `count` items for a movement key.
    func move(_ state: inout ShelfState, _ key: Key, count: Int) -> Bool {
        state.move(key, count: count, columns: layout.columns, visibleRows: layout.visibleRows)
    }

    /// Does what a key does alike on every page (the details pane's scrolling, the view's
    /// switch); says whether it was such a key, so that the page draws a frame.
    func handleShared(_ key: Key, _ state: inout ShelfState) -> Bool {
        switch settings.action(for: ShelfController.keyName(key)) {
        case .detailsDown?: scrollDetails(&state, pages: 1)
        case .detailsUp?: scrollDetails(&state, pages: -1)
        case .toggleView?: toggleView()
        default: return false
        }
        return true
    }

    /// Scrolls the details pane by `pages` of its height (less two lines, kept for context), or
    /// by `lines`; within what the last frame showed.
    func scrollDetails(_ state: inout ShelfState, pages: Int = 0, lines: Int = 0) {
        let height = max(0, (layout.details?.height ?? 0) - 2)
        let step = pages * max(1, height - 2) + lines
        state.detailsOffset = max(0, min(detailsOverflow, min(state.detailsOffset, detailsOverflow) + step))
    }

    /// What the mouse did to a grid of cards.
    enum Pointing {
        case ignored
        /// The selection moved (a wheel) or a card was clicked.
        case moved
        /// The card at this index was double-clicked: it is to be opened.
        case opened(Int)
    }

    /// Applies a mouse action to `state`'s grid of `count` cards.
    func point(_ state: inout ShelfState, _ action: MouseAction, x: Int, y: Int, count: Int) -> Pointing {
        let overDetails = layout.details?.contains(x: x, y: y) ?? false
        switch action {
        case .scrollUp where overDetails: scrollDetails(&state, lines: -3)
        case .scrollDown where overDetails: scrollDetails(&state, lines: 3)
        case .scrollUp: _ = move(&state, .up, count: count)
        case .scrollDown: _ = move(&state, .down, count: count)
        case .click, .doubleClick:
            guard let index = layout.itemIndex(atX: x, y: y, firstRow: state.firstRow), index < count else { return .ignored }
            state.selected = index
            if action == .doubleClick { return .opened(index) }
        }
        return .moved
    }

    /// Asks before marking `issues` (all of `title`'s) read; says so when none is unread.
    func askToMarkRead(_ issues: [Issue], title: String, _ state: inout ShelfState) {
        let unread = issues.filter { !($0.reading?.isRead ?? false) }.count
        if unread == 0 {
            state.message = .info("Every issue of “\(title)” is read already.")
        } else {
            state.overlay = .confirmMarkRead(title: title, count: unread)
        }
    }

    /// Marks the issues read, saying so (or why not) on `state`'s status line.
    func markAllRead(_ issues: [Issue], _ state: inout ShelfState) {
        let unread = issues.filter { !($0.reading?.isRead ?? false) }
        do {
            try newsstand.setRead(true, unread)
            state.message = .success("Marked \(Formatting.count(unread.count, "issue")) read.")
        } catch {
            state.message = .error(error.message)
        }
    }

    /// Fetches a page off this thread; the page whose request it is takes it from ``fetched``.
    func fetch(_ load: @escaping @Sendable () throws(NewsstandError) -> FeedBrowser.CheckedPage) -> Int {
        requests += 1
        let request = requests
        let (fetched, signals) = (fetched, signals)
        DispatchQueue.global(qos: .userInitiated).async {
            let result = Result { () throws(NewsstandError) in try load() }
            fetched.withLock { $0.append((request, result)) }
            signals.mark {
                $0.redraw = true
                $0.urgent = true
            }
        }
        return request
    }
}
