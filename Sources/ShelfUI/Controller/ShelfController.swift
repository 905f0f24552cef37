import Foundation
import NewsstandKit

/// Runs the shelf: the newsstand view of every publication, one publication's issues, the new
/// issues of all of them, and a publication's server walked as folders. Turns keys, mouse, store notifications and signals into newsstand
/// calls and redraws. Confined to the thread that calls ``run()``; never waits on the network.
public final class ShelfController {
    /// What is on screen.
    enum Screen {
        case newsstand
        case issues(Store)
        case new
        /// The server of `Store`, walked as folders (``browseLevels``).
        case browse(Store)
    }

    /// One level of a browsed feed: its sections (and any issues), or a search's results.
    struct BrowseLevel {
        var title: String
        var url: URL
        var items: [PublicationItem] = []
        /// Each item's link (a section) or nil (an issue of a search's results).
        var links: [FeedLink?] = []
        var search: FeedSearch?
        var isLoading = true
        /// A search's results rather than a section.
        var isSearch = false
        /// Which fetch it waits for.
        var request = 0
        var state = ShelfState()
    }

    /// What a publication's card counts, worked out when its issues or their states change.
    private struct Counts {
        var new = 0
        var unread = 0
        var downloaded = 0
        var newest: Issue?
    }

    private let newsstand: Newsstand
    private let terminal: any Terminal
    private let opener: Opener
    private let waker = Waker()
    private let signals: ShelfSignals
    private let covers: CoverLoader
    private let theme: Theme
    private let settings: ShelfSettings

    private var screen: Screen
    /// The newsstand view's selection, kept while a publication is open.
    private var newsstandState = ShelfState()
    /// The issue screens' selection, filter and sort.
    private var state = ShelfState()
    /// The filtered, sorted issues: what an issue grid shows.
    private var order: [Issue] = []
    /// The filtered publications: what the newsstand view shows.
    private var shownStores: [Store] = []
    private var counts: [String: Counts] = [:]
    /// Publications whose counts are out of date; nil for all of them.
    private var countsStale: Set<String>? = nil
    /// What each cached copy's info file said, read once, for the cards drawn before the copies.
    private var cachedSummaries: [String: (title: String?, issueCount: Int?, fetchedAt: Date)?] = [:]
    /// Stores whose cached copy has been read (or found missing) since the shelf opened.
    private let loadedStores = Locked(Set<String>())
    private var layout: ShelfLayout
    /// `$NEWSSTAND_TRACE`: a line per frame (milliseconds since start, covers on screen) for
    /// the benchmark, which cannot see inside the process.
    private let trace: FrameTrace?
    private var lastRender: UInt64 = 0
    private var needsRender = true
    /// Draw without waiting for the frame interval: a key was pressed, a cover arrived.
    private var renderNow = true
    private var running = true
    private var exitStatus: Int32 = 0
    /// The levels of the browsed feed, the current one last; where `back` returns after the first.
    private var browseLevels: [BrowseLevel] = []
    private var screenBeforeBrowse: Screen = .newsstand
    private var browseRequests = 0
    /// Fetched pages of a browsed feed, handed over from the background.
    private let browseResults = Locked<[(request: Int, result: Result<FeedBrowser.CheckedPage, NewsstandError>)]>([])
    /// Adds a subscription to the configuration (the command line's config file); nil: cannot.
    private let subscribe: ((Subscription) throws(NewsstandError) -> Void)?

    /// Redraws at most this often while things change on their own (progress); keys and
    /// covers are drawn at once.
    static let minimumFrameInterval: UInt64 = 50_000_000

    /// The shelf of `newsstand`. It opens on `store`'s issues when one is given (a one-off
    /// catalog, `--subscription`) or there is only one publication, else on the newsstand view.
    public init(newsstand: Newsstand, store: Store? = nil, terminal: any Terminal, opener: Opener = .fromEnvironment(),
                settings: ShelfSettings = ShelfSettings(), subscribe: ((Subscription) throws(NewsstandError) -> Void)? = nil) {
        self.newsstand = newsstand
        self.subscribe = subscribe
        self.terminal = terminal
        self.opener = opener
        self.settings = settings
        trace = ProcessInfo.processInfo.environment["NEWSSTAND_TRACE"].flatMap(FrameTrace.init(path:))
        signals = ShelfSignals(waker: waker)
        theme = Theme(colors: terminal.colorSupport, overrides: settings.colors)
        layout = ShelfLayout(width: terminal.width, height: terminal.height)
        if let store = store ?? (newsstand.stores.count == 1 ? newsstand.stores[0] : nil) {
            screen = .issues(store)
        } else {
            screen = .newsstand
        }
        let signals = signals
        let trace = trace
        covers = CoverLoader(newsstand: newsstand, colors: terminal.colorSupport) {
            trace?.write("cover")
            signals.mark {
                $0.redraw = true
                $0.urgent = true
            }
        }
    }

    /// Shows the shelf until the user quits or a signal arrives; returns the exit status.
    public func run() -> Int32 {
        waker.catchTerminationSignals()
        let center = newsstand.configuration.notificationCenter
        let observers = signals.observe(newsstand.stores, center: center)
        defer { observers.forEach(center.removeObserver) }
        start()

        while running {
            if waker.receivedSignal != 0 {
                exitStatus = 128 + waker.receivedSignal
                break
            }
            applyChanges(signals.take())
            var timeout: Double?
            if needsRender {
                let elapsed = DispatchTime.now().uptimeNanoseconds - lastRender
                if renderNow || elapsed >= Self.minimumFrameInterval {
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

    /// The cached catalogs first, then the network: the shelf appears at once and catches up.
    private func start() {
        if case .issues(let store) = screen {
            // One publication: its copy is read before the first frame (it is one file).
            store.loadCache()
            loadedStores.withLock { _ = $0.insert(store.name) }
            newsstand.resumeInterruptedDownloads(in: store)
            store.refresh { [newsstand, store] _ in newsstand.resumeInterruptedDownloads(in: store) }
            return
        }
        // Many: the first frame is drawn from each copy's small info file; the copies are read
        // on other threads, and each refresh starts once every copy is in.
        let stores = newsstand.stores
        DispatchQueue.global(qos: .userInitiated).async { [newsstand, signals, loadedStores] in
            DispatchQueue.concurrentPerform(iterations: stores.count) { index in
                let store = stores[index]
                if store.numberOfIssues == 0 { store.loadWithoutNetwork() }
                loadedStores.withLock { _ = $0.insert(store.name) }
                signals.mark {
                    $0.redraw = true
                    $0.issuesReplaced = true
                }
            }
            for store in stores { newsstand.resumeInterruptedDownloads(in: store) }
            newsstand.refreshAll(respectingFreshness: true, each: { store, _ in
                newsstand.resumeInterruptedDownloads(in: store)
            }, completion: { _ in })
        }
    }

    // MARK: Changes from other threads

    private func applyChanges(_ changes: ShelfSignals.Changes) {
        // Counts are for the newsstand view and the New view's header: an issue screen leaves
        // them to be done when the newsstand view comes back (100,000 issues are not free).
        if changes.everythingChanged {
            countsStale = nil
        } else if countsStale != nil {
            countsStale!.formUnion(changes.changedSubscriptions)
        }
        if isNewsstandScreen || isNewScreen {
            if countsStale == nil {
                recount()
            } else if !countsStale!.isEmpty {
                recount(only: countsStale!)
            }
            countsStale = []
        }
        if changes.issuesReplaced || (changes.statesChanged && (state.sort == .state || isNewScreen)) {
            rebuildOrder()
        }
        if changes.librarySizeStale {
            DispatchQueue.global(qos: .utility).async { [newsstand, signals] in
                let size = newsstand.stores.reduce(Int64(0)) { $0 + $1.library.sizeOnDisk() }
                signals.librarySize.withLock { $0 = size }
                signals.mark { $0.redraw = true }
            }
        }
        applyBrowseResults()
        if changes.redraw { needsRender = true }
        if changes.urgent { renderNow = true }
    }

    private var isNewScreen: Bool {
        if case .new = screen { return true }
        return false
    }

    /// What each publication's card counts (or only those of `names`): new, unread and kept
    /// issues, and the newest one.
    private func recount(only names: Set<String>? = nil) {
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
        rebuildPublications()
    }

    private func rebuildPublications() {
        let filter = newsstandState.filter
        shownStores = newsstand.stores.filter { store in
            filter.isEmpty || store.displayTitle.range(of: filter, options: [.caseInsensitive, .diacriticInsensitive]) != nil
                || store.name.range(of: filter, options: .caseInsensitive) != nil
        }
        needsRender = true
    }

    private func rebuildOrder() {
        guard !isNewsstandScreen else { return }
        let selectedID = order.indices.contains(state.selected) ? order[state.selected].address : nil
        let issues: [Issue]
        switch screen {
        case .newsstand, .browse: issues = []
        case .issues(let store): issues = store.issues
        case .new: issues = newsstand.stores.flatMap { $0.issues.filter { $0.reading?.isNew ?? false } }
        }
        var keyed = issues.map { (issue: $0, entry: $0.entry) }
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
        if let selectedID, let index = order.firstIndex(where: { $0.address == selectedID }) {
            state.selected = index
        }
        needsRender = true
    }

    private var isNewsstandScreen: Bool {
        if case .newsstand = screen { return true }
        return false
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
        renderNow = false
        layout = ShelfLayout(width: terminal.width, height: terminal.height)
        var model = ShelfModel()
        let active = newsstand.activeIssues
        model.activeDownloads = active.count
        model.bytesPerSecond = active.reduce(0) { total, issue in
            if case .downloading(let progress) = issue.state { return total + progress.bytesPerSecond }
            return total
        }
        model.librarySize = signals.librarySize.withLock { $0 }
        model.storageBudget = newsstand.configuration.maxStorage
        model.newTotal = counts.values.reduce(0) { $0 + $1.new }

        var buffer = Buffer(width: terminal.width, height: terminal.height)
        switch screen {
        case .newsstand:
            model.screen = .newsstand
            model.totalCount = newsstand.stores.count
            (model.status, model.statusIsWarning) = newsstandStatus()
            newsstandState.clamp(count: shownStores.count, columns: layout.columns, visibleRows: layout.visibleRows)
            let range = layout.visibleRange(firstRow: newsstandState.firstRow, count: shownStores.count)
            let visible = shownStores[range].map(publicationItem)
            let selected = shownStores.indices.contains(newsstandState.selected)
                ? (range.contains(newsstandState.selected) ? visible[newsstandState.selected - range.lowerBound]
                   : publicationItem(shownStores[newsstandState.selected]))
                : nil
            ShelfScreen(layout: layout, model: model, state: newsstandState, visibleItems: [], selectedItem: nil,
                        itemCount: shownStores.count, theme: theme, visiblePublications: visible, selectedPublication: selected,
                        settings: settings)
                .render(into: &buffer)
        case .issues, .new:
            state.clamp(count: order.count, columns: layout.columns, visibleRows: layout.visibleRows)
            let range = layout.visibleRange(firstRow: state.firstRow, count: order.count)
            let visible = Array(order[range])
            covers.request(visible, columns: CardView.coverColumns, rows: CardView.coverRows)
            let items = visible.map(issueItem)
            let selected = order.indices.contains(state.selected) ? order[state.selected] : nil
            var selectedItem = selected.map { issue in
                range.contains(state.selected) ? items[state.selected - range.lowerBound] : issueItem(issue)
            }
            if let issue = selected, issue.installedPath != nil {
                selectedItem?.sizeOnDisk = issue.library.sizeOnDisk(key: issue.localKey)
                selectedItem?.serverFileName = issue.library.serverFileName(for: issue.localKey)
            }
            model.selectedPath = selected?.installedPath
            if case .issues(let store) = screen {
                model.screen = .issues
                model.catalogTitle = store.displayTitle
                model.status = store.status.summary
                switch store.status {
                case .offline, .failed: model.statusIsWarning = true
                default: break
                }
                model.totalCount = store.numberOfIssues
            } else {
                model.screen = .new
                model.catalogTitle = "New"
                model.totalCount = counts.values.reduce(0) { $0 + $1.new }
                (model.status, model.statusIsWarning) = newsstandStatus()
            }
            ShelfScreen(layout: layout, model: model, state: state, visibleItems: items, selectedItem: selectedItem,
                        itemCount: order.count, theme: theme, settings: settings).render(into: &buffer)
            trace?.write("frame covers=\(items.filter { $0.cover != nil }.count)")
        case .browse(let store):
            renderBrowse(store, model: &model, into: &buffer)
        }
        terminal.draw(buffer)
        trace?.write("drawn")
    }

    private func issueItem(_ issue: Issue) -> ShelfItem {
        var item = ShelfItem(issue: issue, cover: covers.image(for: issue, columns: CardView.coverColumns, rows: CardView.coverRows))
        if case .new = screen { item.publication = newsstand.store(for: issue)?.displayTitle }
        return item
    }

    private func cachedSummary(_ store: Store) -> (title: String?, issueCount: Int?, fetchedAt: Date)? {
        if let known = cachedSummaries[store.name] { return known }
        let summary = store.cachedSummary
        cachedSummaries[store.name] = .some(summary)
        return summary
    }

    private func publicationItem(_ store: Store) -> PublicationItem {
        let count = counts[store.name] ?? Counts()
        let loaded = loadedStores.withLock { $0.contains(store.name) }
        var title = store.displayTitle
        var issueCount = store.numberOfIssues
        if !loaded, let summary = cachedSummary(store) {
            // Before its copy is read: what the copy's info file says.
            if store.subscription.title == nil, let cachedTitle = summary.title { title = cachedTitle }
            issueCount = summary.issueCount ?? 0
        }
        var item = PublicationItem(name: store.name, title: title, issueCount: issueCount, newCount: count.new,
                                   unreadCount: count.unread, downloadedCount: count.downloaded, condition: condition(of: store, loaded: loaded))
        if let newest = count.newest {
            covers.request([newest], columns: CardView.coverColumns, rows: CardView.coverRows)
            item.cover = covers.image(for: newest, columns: CardView.coverColumns, rows: CardView.coverRows)
            item.newestTitle = newest.title
            item.newestDate = newest.entry.releaseDate
        }
        return item
    }

    private func condition(of store: Store, loaded: Bool) -> PublicationItem.Condition {
        switch store.status {
        case .idle:
            if !loaded { return .loading }
            return cachedSummary(store).map { .fresh($0.fetchedAt) } ?? .loading
        case .loading(let hasIssues):
            return hasIssues || loaded ? .refreshing : .loading
        case .ready(let source, let fetchedAt):
            return source == .file ? .fresh(nil) : .fresh(fetchedAt)
        case .offline(let since, let reason):
            return reason.needsCredentials ? .needsCredentials : .offline(since: since)
        case .failed(let error):
            return error.needsCredentials ? .needsCredentials : .failed(error.message)
        }
    }

    /// The newsstand's status line: what is refreshing, what failed, or that all is well.
    private func newsstandStatus() -> (String, Bool) {
        var refreshing = 0, offline = 0, failed = 0
        for store in newsstand.stores {
            switch store.status {
            case .loading: refreshing += 1
            case .offline: offline += 1
            case .failed: failed += 1
            default: break
            }
        }
        if let store = selectedStore, case .failed(let error) = store.status, isNewsstandScreen {
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

    private var selectedStore: Store? {
        shownStores.indices.contains(newsstandState.selected) ? shownStores[newsstandState.selected] : nil
    }

    // MARK: Input

    /// Which screen is up, to tell whether a key changed anything.
    private var screenName: String {
        switch screen {
        case .newsstand: return "newsstand"
        case .issues(let store): return "issues:" + store.name
        case .new: return "new"
        case .browse: return "browse:\(browseLevels.count)"
        }
    }

    private func handle(_ event: InputEvent) {
        let before = (screenName, state, newsstandState, order.count)
        handleEvent(event)
        // A key that changed nothing (the first card, h) costs no frame.
        if case .key = event, !isBrowseScreen, before == (screenName, state, newsstandState, order.count) { return }
        needsRender = true
        renderNow = true
    }

    private func handleEvent(_ event: InputEvent) {
        switch event {
        case .resize:
            layout = ShelfLayout(width: terminal.width, height: terminal.height)
        case .mouse(let action, let x, let y):
            handleMouse(action, x: x, y: y)
        case .key(let key) where isBrowseScreen:
            handleBrowseKey(key)
        case .key(let key):
            if isNewsstandScreen {
                if newsstandState.isEditingFilter {
                    if editFilter(&newsstandState, key) { rebuildPublications() }
                } else if newsstandState.overlay != .none {
                    handleOverlayKey(key)
                } else {
                    newsstandState.message = nil
                    handleNewsstandKey(key)
                }
            } else if state.isEditingFilter {
                if editFilter(&state, key) { rebuildOrder() }
            } else if state.overlay != .none {
                handleOverlayKey(key)
            } else {
                state.message = nil
                handleShelfKey(key)
            }
        }
    }

    /// The name the configuration's `[keys]` uses for a key.
    static func keyName(_ key: Key) -> String {
        switch key {
        case .character(" "): return "space"
        case .character(let character): return String(character)
        case .enter: return "enter"
        case .escape: return "escape"
        case .backspace: return "backspace"
        case .delete: return "delete"
        case .tab: return "tab"
        case .up: return "up"
        case .down: return "down"
        case .left: return "left"
        case .right: return "right"
        case .pageUp: return "pageup"
        case .pageDown: return "pagedown"
        case .home: return "home"
        case .end: return "end"
        }
    }

    /// Moves the selection for a movement key (never rebound); says whether it was one.
    private func handleMovement(_ key: Key, selected: inout Int, count: Int) -> Bool {
        let columns = max(1, layout.columns)
        let page = columns * max(1, layout.visibleRows)
        let offset: Int
        switch key {
        case .left, .character("h"): offset = -1
        case .right, .character("l"): offset = 1
        case .up, .character("k"): offset = -columns
        case .down, .character("j"): offset = columns
        case .pageUp: offset = -page
        case .pageDown: offset = page
        case .home, .character("g"): offset = -selected
        case .end, .character("G"): offset = count - 1 - selected
        default: return false
        }
        if count > 0 { selected = min(max(0, selected + offset), count - 1) }
        return true
    }

    private func handleNewsstandKey(_ key: Key) {
        if handleMovement(key, selected: &newsstandState.selected, count: shownStores.count) { return }
        switch settings.action(for: Self.keyName(key)) {
        case .open?: selectedStore.map(openPublication)
        case .newIssues?: openNew()
        case .refresh?: selectedStore?.refresh()
        case .refreshAll?: newsstand.refreshAll(completion: { _ in })
        case .markAllRead?: selectedStore.map { markAllRead($0.issues) }
        case .browse?: selectedStore.map(openBrowse)
        case .filter?: newsstandState.isEditingFilter = true
        case .help?: newsstandState.overlay = .help
        case .quit?: askToQuit(&newsstandState)
        case .back?:
            if !newsstandState.filter.isEmpty {
                newsstandState.filter = ""
                rebuildPublications()
            }
        default:
            if key == .character("\u{4}") { askToQuit(&newsstandState) }
        }
    }

    private func handleShelfKey(_ key: Key) {
        if handleMovement(key, selected: &state.selected, count: order.count) { return }
        switch settings.action(for: Self.keyName(key)) {
        case .open?: selectedIssue.map(primaryAction)
        case .download?: selectedIssue.map(download)
        case .cancel?: selectedIssue.map(newsstand.cancelDownload)
        case .delete?: selectedIssue.map(confirmDelete)
        case .toggleRead?: selectedIssue.map(toggleRead)
        case .togglePin?: selectedIssue.map(togglePinned)
        case .markAllRead?:
            if case .issues(let store) = screen { markAllRead(store.issues) } else { markAllRead(order) }
        case .filter?:
            state.isEditingFilter = true
        case .sort?:
            state.sort = state.sort.next
            rebuildOrder()
        case .refresh?:
            if case .issues(let store) = screen { store.refresh() } else { newsstand.refreshAll(completion: { _ in }) }
        case .refreshAll?:
            newsstand.refreshAll(completion: { _ in })
        case .newIssues?:
            openNew()
        case .browse?:
            if case .issues(let store) = screen { openBrowse(store) }
        case .help?:
            state.overlay = .help
        case .quit?:
            askToQuit(&state)
        case .back?:
            // Esc first clears a filter, as it does in the prompt.
            if key == .escape && !state.filter.isEmpty {
                state.filter = ""
                rebuildOrder()
            } else {
                backToNewsstand()
            }
        case .subscribe?, nil:
            if key == .character("\u{4}") { askToQuit(&state) }
        }
    }

    private func askToQuit(_ state: inout ShelfState) {
        let active = newsstand.activeIssues.count
        if active > 0 {
            state.overlay = .confirmQuit(activeDownloads: active)
        } else {
            running = false
        }
    }

    private func openPublication(_ store: Store) {
        // A navigation feed has sections, not issues: its card opens them.
        if store.numberOfIssues == 0, !store.navigation.isEmpty {
            openBrowse(store)
            return
        }
        screen = .issues(store)
        state = ShelfState()
        rebuildOrder()
    }

    private func openNew() {
        screen = .new
        state = ShelfState()
        if let stale = countsStale { recount(only: stale) } else { recount() }
        countsStale = []
        rebuildOrder()
    }

    private func backToNewsstand() {
        screen = .newsstand
        order = []
        if let stale = countsStale { recount(only: stale) } else { recount() }
        countsStale = []
    }

    /// Applies a key to the filter prompt; returns whether the list must be filtered again.
    private func editFilter(_ state: inout ShelfState, _ key: Key) -> Bool {
        switch key {
        case .enter:
            state.isEditingFilter = false
            state.selected = 0
            state.firstRow = 0
            return false
        case .escape:
            state.isEditingFilter = false
            state.filter = ""
            return true
        case .backspace, .delete:
            guard !state.filter.isEmpty else { return false }
            state.filter.removeLast()
            return true
        case .character(let character):
            state.filter.append(character)
            state.selected = 0
            return true
        default:
            return false
        }
    }

    private func handleOverlayKey(_ key: Key) {
        let yes = key == .character("y") || key == .character("Y")
        let overlay = isNewsstandScreen ? newsstandState.overlay : state.overlay
        newsstandState.overlay = .none
        state.overlay = .none
        switch overlay {
        case .none, .help:
            break
        case .confirmDelete(let address, _):
            if yes || key == .enter, let issue = try? newsstand.issue(addressed: address) {
                do {
                    try newsstand.delete(issue)
                    signals.mark { $0.librarySizeStale = true }
                } catch {
                    state.message = error.message
                }
            }
        case .confirmQuit:
            if yes || key == .enter || key == .character("q") { running = false }
        }
    }

    private func handleMouse(_ action: MouseAction, x: Int, y: Int) {
        if isBrowseScreen {
            handleBrowseMouse(action, x: x, y: y)
            return
        }
        let onNewsstand = isNewsstandScreen
        let current = onNewsstand ? newsstandState : state
        guard current.overlay == .none, !current.isEditingFilter else { return }
        let count = onNewsstand ? shownStores.count : order.count
        var selected = current.selected
        switch action {
        case .scrollUp: _ = handleMovement(.up, selected: &selected, count: count)
        case .scrollDown: _ = handleMovement(.down, selected: &selected, count: count)
        case .click, .doubleClick:
            guard let index = layout.itemIndex(atX: x, y: y, firstRow: current.firstRow), index < count else { return }
            selected = index
        }
        if onNewsstand { newsstandState.selected = selected } else { state.selected = selected }
        guard action == .doubleClick else { return }
        if onNewsstand { openPublication(shownStores[selected]) } else { primaryAction(order[selected]) }
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

    private func toggleRead(_ issue: Issue) {
        let read = !(issue.reading?.isRead ?? false)
        do {
            try newsstand.setRead(read, [issue])
            state.message = read ? "Marked read." : "Marked unread."
        } catch {
            state.message = error.message
        }
    }

    private func togglePinned(_ issue: Issue) {
        let pinned = !(issue.reading?.pinned ?? false)
        do {
            try newsstand.setPinned(pinned, [issue])
            state.message = pinned ? "Pinned: the storage budget keeps it." : "Unpinned."
        } catch {
            state.message = error.message
        }
    }

    private func markAllRead(_ issues: [Issue]) {
        let unread = issues.filter { !($0.reading?.isRead ?? false) }
        do {
            try newsstand.setRead(true, unread)
            let message = "Marked \(Formatting.count(unread.count, "issue")) read."
            if isNewsstandScreen { newsstandState.message = message } else { state.message = message }
        } catch {
            if isNewsstandScreen { newsstandState.message = error.message } else { state.message = error.message }
        }
        rebuildOrder()
    }

    private func confirmDelete(_ issue: Issue) {
        switch issue.state {
        case .downloaded, .partial, .failed:
            state.overlay = .confirmDelete(id: issue.address, title: issue.title)
        case .remote:
            state.message = "Nothing to delete: the issue is not downloaded."
        case .queued, .downloading, .retrying, .verifying:
            state.message = "Downloading: x cancels it first."
        }
    }

    /// Leaves the screen to the reader, then takes it back; the issue is then read.
    private func read(_ issue: Issue) {
        terminal.suspend()
        defer {
            terminal.resume()
            // The reader had the screen: all of it is drawn again.
            needsRender = true
            renderNow = true
        }
        do {
            try newsstand.open(issue, with: opener)
        } catch {
            state.message = error.message
        }
    }
}

// MARK: - Browsing a server

extension ShelfController {
    private var isBrowseScreen: Bool {
        if case .browse = screen { return true }
        return false
    }

    /// Opens `store`'s server as folders, starting at its own feed: the sections its catalog
    /// already listed at once, else fetched.
    private func openBrowse(_ store: Store) {
        screenBeforeBrowse = screen
        screen = .browse(store)
        var level = BrowseLevel(title: store.displayTitle, url: store.subscription.url)
        level.search = store.search
        browseLevels = [level]
        let known = store.navigation
        if !known.isEmpty {
            fill(&browseLevels[0], links: known, entries: [], search: store.search)
        } else {
            fetchLevel(store, url: store.subscription.url)
        }
    }

    private func fetchLevel(_ store: Store, url: URL) {
        let subscription = store.subscription
        fetchLevel { () throws(NewsstandError) in try FeedBrowser(subscription: subscription).checkedPage(at: url) }
    }

    /// Loads a page for the current level off this thread; ``applyBrowseResults()`` takes it.
    private func fetchLevel(_ load: @escaping @Sendable () throws(NewsstandError) -> FeedBrowser.CheckedPage) {
        browseRequests += 1
        let request = browseRequests
        browseLevels[browseLevels.count - 1].request = request
        browseLevels[browseLevels.count - 1].isLoading = true
        let (results, signals) = (browseResults, signals)
        DispatchQueue.global(qos: .userInitiated).async {
            let result = Result { () throws(NewsstandError) in try load() }
            results.withLock { $0.append((request, result)) }
            signals.mark {
                $0.redraw = true
                $0.urgent = true
            }
        }
    }

    private func applyBrowseResults() {
        let arrived = browseResults.withLock { results -> [(request: Int, result: Result<FeedBrowser.CheckedPage, NewsstandError>)] in
            defer { results.removeAll() }
            return results
        }
        // A page for a level left since is dropped.
        for (request, result) in arrived {
            guard let index = browseLevels.lastIndex(where: { $0.request == request }) else { continue }
            switch result {
            case .success(let checked):
                let (page, entries) = (checked.page, checked.entries)
                fill(&browseLevels[index], links: page.navigation, entries: entries, search: page.search)
                if let title = page.title, !browseLevels[index].isSearch, index > 0 {
                    browseLevels[index].title = title
                }
            case .failure(let error):
                browseLevels[index].isLoading = false
                browseLevels[index].state.message = error.message
            }
            needsRender = true
            renderNow = true
        }
    }

    private func fill(_ level: inout BrowseLevel, links: [FeedLink], entries: [CatalogEntry], search: FeedSearch?) {
        let secrets = browseSecrets
        var items: [PublicationItem] = []
        var targets: [FeedLink?] = []
        for link in links {
            var item = PublicationItem(name: link.address, title: link.title, issueCount: 0, condition: .fresh(nil))
            let kind: PublicationItem.Folder.Kind = link.isAcquisitionFeed.map { $0 ? .issues : .sections } ?? .unknown
            item.folder = .init(kind: kind, address: Redaction.redact(link.address, secrets: secrets), summary: link.summary)
            items.append(item)
            targets.append(link)
        }
        for entry in entries.prefix(500) {
            var item = PublicationItem(name: entry.id, title: entry.title, issueCount: 0, condition: .fresh(nil))
            item.folder = .init(kind: .issue, address: Redaction.redact(entry.downloadAddress, secrets: secrets), summary: entry.summary)
            items.append(item)
            targets.append(nil)
        }
        level.items = items
        level.links = targets
        level.search = search ?? level.search
        level.isLoading = false
    }

    private var browseSecrets: [String] {
        guard case .browse(let store) = screen else { return [] }
        return URLSecrets.secrets(in: store.subscription.url)
    }

    private func renderBrowse(_ store: Store, model: inout ShelfModel, into buffer: inout Buffer) {
        guard !browseLevels.isEmpty else { return }
        let index = browseLevels.count - 1
        let level = browseLevels[index]
        browseLevels[index].state.clamp(count: level.items.count, columns: layout.columns, visibleRows: layout.visibleRows)
        let levelState = browseLevels[index].state
        model.screen = .browse
        model.catalogTitle = browseLevels.map(\.title).joined(separator: " › ")
        model.totalCount = level.items.count
        model.isLoading = level.isLoading
        let sections = level.links.filter { $0 != nil }.count
        model.headerNote = Formatting.count(sections, "section") + (sections == level.items.count ? "" : " · " + Formatting.count(level.items.count - sections, "issue"))
        if level.isLoading {
            model.status = level.isSearch ? "Searching…" : "Fetching \(Redaction.redact(level.url.absoluteString, secrets: browseSecrets))…"
        } else {
            model.status = "\(store.displayTitle)'s server" + (level.search == nil ? "" : " · / searches it")
        }
        let range = layout.visibleRange(firstRow: levelState.firstRow, count: level.items.count)
        let visible = Array(level.items[range])
        let selected = level.items.indices.contains(levelState.selected) ? level.items[levelState.selected] : nil
        ShelfScreen(layout: layout, model: model, state: levelState, visibleItems: [], selectedItem: nil, itemCount: level.items.count,
                    theme: theme, visiblePublications: visible, selectedPublication: selected, settings: settings)
            .render(into: &buffer)
    }

    private func handleBrowseKey(_ key: Key) {
        guard case .browse(let store) = screen, !browseLevels.isEmpty else { return }
        let index = browseLevels.count - 1
        if browseLevels[index].state.isEditingFilter {
            editSearch(store, key)
            return
        }
        if browseLevels[index].state.overlay != .none {
            if case .confirmQuit = browseLevels[index].state.overlay,
               key == .character("y") || key == .character("Y") || key == .enter || key == .character("q") {
                running = false
            }
            browseLevels[index].state.overlay = .none
            return
        }
        browseLevels[index].state.message = nil
        if handleMovement(key, selected: &browseLevels[index].state.selected, count: browseLevels[index].items.count) { return }
        let level = browseLevels[index]
        let selected = level.state.selected
        let link = level.links.indices.contains(selected) ? level.links[selected] : nil
        switch settings.action(for: Self.keyName(key)) {
        case .open?:
            guard level.items.indices.contains(selected) else { return }
            guard let link, let url = URL(string: link.address) else {
                browseLevels[index].state.message = "An issue of the server: subscribe to a section that lists it to download it."
                return
            }
            var next = BrowseLevel(title: link.title, url: url)
            next.search = level.search
            browseLevels.append(next)
            fetchLevel(store, url: url)
        case .subscribe?:
            guard let link else {
                browseLevels[index].state.message = "Select a section to subscribe to."
                return
            }
            subscribeToSection(link, from: store)
        case .filter?:
            if level.search == nil {
                browseLevels[index].state.message = "This server's feed offers no search."
            } else {
                browseLevels[index].state.isEditingFilter = true
                browseLevels[index].state.filter = ""
            }
        case .back?:
            browseLevels.removeLast()
            if browseLevels.isEmpty { screen = screenBeforeBrowse }
        case .help?:
            browseLevels[index].state.overlay = .help
        case .quit?:
            askToQuit(&browseLevels[index].state)
        default:
            if key == .character("\u{4}") { askToQuit(&browseLevels[index].state) }
        }
    }

    /// The search prompt: typed here, run on Enter as a new level of results.
    private func editSearch(_ store: Store, _ key: Key) {
        let index = browseLevels.count - 1
        switch key {
        case .enter:
            browseLevels[index].state.isEditingFilter = false
            let terms = browseLevels[index].state.filter.trimmingCharacters(in: .whitespaces)
            browseLevels[index].state.filter = ""
            guard !terms.isEmpty, let search = browseLevels[index].search else { return }
            var results = BrowseLevel(title: "Search “\(terms)”", url: browseLevels[index].url)
            results.search = search
            results.isSearch = true
            browseLevels.append(results)
            let subscription = store.subscription
            // An OpenSearch description is fetched on the loading thread too: the shelf never waits.
            fetchLevel { () throws(NewsstandError) in
                let browser = FeedBrowser(subscription: subscription)
                return try browser.checkedPage(at: try browser.searchURL(search, terms: terms))
            }
        case .escape:
            browseLevels[index].state.isEditingFilter = false
            browseLevels[index].state.filter = ""
        case .backspace, .delete:
            if !browseLevels[index].state.filter.isEmpty { browseLevels[index].state.filter.removeLast() }
        case .character(let character):
            browseLevels[index].state.filter.append(character)
        default:
            break
        }
    }

    private func subscribeToSection(_ link: FeedLink, from store: Store) {
        let index = browseLevels.count - 1
        guard let subscribe, let url = URL(string: link.address) else {
            browseLevels[index].state.message = "Subscribing needs the configuration file: newsstand subscribe URL."
            return
        }
        let taken = Set(newsstand.stores.map(\.name))
        let stem = Subscription.suggestedName(for: url)
        var name = stem
        var suffix = 2
        while taken.contains(name) {
            name = "\(stem)-\(suffix)"
            suffix += 1
        }
        var subscription = Subscription(name: name, url: url)
        // The same server's credentials go with it; another server's never do.
        if RequestProfile.origin(of: url) == RequestProfile.origin(of: store.subscription.url) {
            subscription.credentials = store.subscription.credentials
            subscription.certificateAuthorities = store.subscription.certificateAuthorities
        }
        do {
            try subscribe(subscription)
            browseLevels[index].state.message = "Subscribed as \(name): it is on the newsstand from the next start."
        } catch {
            browseLevels[index].state.message = error.message
        }
    }

    private func handleBrowseMouse(_ action: MouseAction, x: Int, y: Int) {
        guard !browseLevels.isEmpty else { return }
        let index = browseLevels.count - 1
        let count = browseLevels[index].items.count
        switch action {
        case .scrollUp: _ = handleMovement(.up, selected: &browseLevels[index].state.selected, count: count)
        case .scrollDown: _ = handleMovement(.down, selected: &browseLevels[index].state.selected, count: count)
        case .click, .doubleClick:
            guard let item = layout.itemIndex(atX: x, y: y, firstRow: browseLevels[index].state.firstRow), item < count else { return }
            browseLevels[index].state.selected = item
            if action == .doubleClick { handleBrowseKey(.enter) }
        }
    }
}
