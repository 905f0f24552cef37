import Foundation
import NewsstandKit

/// Runs the shelf: a stack of pages — the newsstand of every publication, one publication's
/// issues, the new issues of all of them, a server walked as folders (a page per level) — and
/// the loop that owns the waker, frame pacing and signals. Keys and the mouse go to the page on
/// top, which answers with an action. Confined to the thread that calls ``run()``; never waits
/// on the network.
public final class ShelfController {
    private let context: ShelfContext
    private let waker = Waker()
    /// The pages, the one on screen last.
    private var pages: [any ShelfPage] = []
    private var lastRender: UInt64 = 0
    private var exitStatus: Int32 = 0
    /// The publication the shelf opens on, if any.
    private let openingStore: Store?

    /// Redraws at most this often while things change on their own (progress); keys and
    /// covers are drawn at once.
    static let minimumFrameInterval: UInt64 = 50_000_000

    /// The shelf of `newsstand`. It opens on `store`'s issues when one is given (a one-off
    /// catalog, `--subscription`) or there is only one publication, else on the newsstand view.
    public init(newsstand: Newsstand, store: Store? = nil, terminal: any Terminal, opener: Opener = .fromEnvironment(),
                settings: ShelfSettings = ShelfSettings(), subscribe: ((Subscription) throws(NewsstandError) -> Void)? = nil) {
        context = ShelfContext(newsstand: newsstand, terminal: terminal, opener: opener, settings: settings, subscribe: subscribe,
                               waker: waker)
        openingStore = store ?? (newsstand.stores.count == 1 ? newsstand.stores[0] : nil)
    }

    private var newsstand: Newsstand { context.newsstand }
    private var top: any ShelfPage { pages[pages.count - 1] }

    /// Shows the shelf until the user quits or a signal arrives; returns the exit status.
    public func run() -> Int32 {
        waker.catchTerminationSignals()
        let center = newsstand.configuration.notificationCenter
        let observers = context.signals.observe(newsstand.stores, center: center)
        defer { observers.forEach(center.removeObserver) }
        start()

        while context.running {
            if waker.receivedSignal != 0 {
                exitStatus = 128 + waker.receivedSignal
                break
            }
            applyChanges(context.signals.take())
            var timeout: Double?
            if context.needsRender {
                let elapsed = DispatchTime.now().uptimeNanoseconds - lastRender
                if context.renderNow || elapsed >= Self.minimumFrameInterval {
                    render()
                } else {
                    timeout = Double(Self.minimumFrameInterval - elapsed) / 1e9
                }
            }
            // Another process's download or sync shows within a second: one look a second at
            // the reading state's change counter, the catching up itself off this thread.
            let sinceLook = DispatchTime.now().uptimeNanoseconds - lastLookElsewhere
            if sinceLook >= Self.lookElsewhereInterval {
                lookElsewhere()
                timeout = min(timeout ?? 1, 1)
            } else {
                timeout = min(timeout ?? 1, Double(Self.lookElsewhereInterval - sinceLook) / 1e9)
            }
            let event = context.terminal.nextEvent(timeout: timeout, wakeDescriptor: waker.descriptor)
            waker.drain()
            if let event { handle(event) }
        }
        newsstand.stopDownloadsForLater(waitingUpTo: 2)
        context.terminal.end()
        return exitStatus
    }

    private static let lookElsewhereInterval: UInt64 = 1_000_000_000
    private var lastLookElsewhere: UInt64 = 0

    private func lookElsewhere() {
        lastLookElsewhere = DispatchTime.now().uptimeNanoseconds
        guard newsstand.readingStateChangedElsewhere() else { return }
        DispatchQueue.global(qos: .userInitiated).async { [newsstand, signals = context.signals] in
            newsstand.catchUpWithOtherProcesses()
            signals.mark {
                $0.redraw = true
                $0.issuesReplaced = true
                $0.statesChanged = true
                $0.librarySizeStale = true
                $0.everythingChanged = true
            }
        }
    }

    /// The cached catalogs first, then the network: the shelf appears at once and catches up.
    private func start() {
        pages = [NewsstandPage(context: context)]
        if let store = openingStore {
            // One publication: its copy is read before the first frame (it is one file).
            store.loadCache()
            context.loadedStores.withLock { _ = $0.insert(store.name) }
            pages.append(IssuesPage(context: context, source: .publication(store)))
            newsstand.resumeInterruptedDownloads(in: store)
            store.refresh { [newsstand, store] _ in newsstand.resumeInterruptedDownloads(in: store) }
            return
        }
        // Many: the first frame is drawn from each copy's small info; the copies are read
        // on other threads, and each refresh starts once every copy is in.
        let stores = newsstand.stores
        DispatchQueue.global(qos: .userInitiated).async { [newsstand, signals = context.signals, loadedStores = context.loadedStores] in
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
            newsstand.refreshAll(.respectingFreshness, each: { store, _ in
                newsstand.resumeInterruptedDownloads(in: store)
            }, completion: { _ in })
        }
    }

    /// Changes from other threads: counts marked stale, the page on top brought up to date.
    private func applyChanges(_ changes: ShelfSignals.Changes) {
        context.countsChanged(changes)
        top.apply(changes)
        // Fetched pages go to the browse pages waiting for them; a page for a level left since is dropped.
        let arrived = context.fetched.withLock { fetched in
            defer { fetched.removeAll() }
            return fetched
        }
        if !arrived.isEmpty {
            for case let page as BrowsePage in pages { page.take(arrived) }
        }
        if changes.librarySizeStale {
            DispatchQueue.global(qos: .utility).async { [newsstand, signals = context.signals] in
                let size = newsstand.stores.reduce(Int64(0)) { $0 + $1.library.sizeOnDisk() }
                signals.librarySize.withLock { $0 = size }
                signals.mark { $0.redraw = true }
            }
        }
        if changes.redraw { context.needsRender = true }
        if changes.urgent { context.renderNow = true }
    }

    private func render() {
        lastRender = DispatchTime.now().uptimeNanoseconds
        context.needsRender = false
        context.renderNow = false
        let terminal = context.terminal
        context.relayout()
        var buffer = Buffer(width: terminal.width, height: terminal.height)
        top.render(into: &buffer)
        terminal.draw(buffer)
        context.trace?.write("drawn")
    }

    // MARK: Input

    private func handle(_ event: InputEvent) {
        let action: PageAction
        switch event {
        case .resize:
            context.relayout()
            action = .redraw
        case .mouse(let mouse, let x, let y):
            action = top.handleMouse(mouse, x: x, y: y)
            // A click is always drawn, even one that changed nothing.
            if case .none = action { context.redrawNow() }
        case .key(.character("\u{4}")) where !top.isTakingKeys:
            // Ctrl-D quits from every page, as in a shell, whatever the keys are bound to.
            context.askToQuit(&top.state)
            action = .redraw
        case .key(let key):
            action = top.handle(key)
        }
        perform(action)
    }

    private func perform(_ action: PageAction) {
        switch action {
        case .none:
            // A key that changed nothing (the first card, h) costs no frame.
            return
        case .redraw:
            break
        case .push(let page):
            pages.append(page)
        case .pop:
            if pages.count > 1 {
                pages.removeLast()
                top.reappeared()
            }
        case .replace(let page):
            pages[pages.count - 1] = page
        }
        context.redrawNow()
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
}
