import Foundation
import NewsstandKit

/// Every publication as a card: its newest cover, what is new and unread, whether it is fresh.
final class NewsstandPage: ShelfPage {
    private let context: ShelfContext
    var state = ShelfState()
    /// The publications the filter leaves, in the configuration's order.
    private var shown: [Store] = []

    init(context: ShelfContext) {
        self.context = context
        shown = context.newsstand.stores
    }

    private var newsstand: Newsstand { context.newsstand }
    private var selectedStore: Store? { shown.indices.contains(state.selected) ? shown[state.selected] : nil }

    func apply(_ changes: ShelfSignals.Changes) {
        if context.recountStale() { filterPublications() }
    }

    func reappeared() {
        context.recountStale()
        filterPublications()
    }

    private func filterPublications() {
        let filter = state.filter
        shown = newsstand.stores.filter { store in
            filter.isEmpty || store.displayTitle.range(of: filter, options: [.caseInsensitive, .diacriticInsensitive]) != nil
                || store.name.range(of: filter, options: .caseInsensitive) != nil
        }
        context.needsRender = true
    }

    // MARK: Input

    func handle(_ key: Key) -> PageAction {
        let before = state
        if state.isEditingFilter {
            if state.editFilter(key) { filterPublications() }
        } else if state.overlay != .none {
            switch state.answerOverlay(key) {
            case .quit: context.running = false
            case .markAllRead: selectedStore.map { context.markAllRead($0.issues, &state) }
            case .dismissed, .delete: break
            }
        } else {
            state.message = nil
            if let action = handleCommand(key) { return action }
        }
        return state == before ? .none : .redraw
    }

    private func handleCommand(_ key: Key) -> PageAction? {
        if context.move(&state, key, count: shown.count) { return nil }
        if context.handleShared(key, &state) { return .redraw }
        switch context.settings.action(for: ShelfController.keyName(key)) {
        case .open?: return selectedStore.flatMap(open)
        case .newIssues?: return .push(IssuesPage(context: context, source: .newIssues))
        case .refresh?: selectedStore?.refresh()
        case .refreshAll?: newsstand.refreshAll(completion: { _ in })
        case .markAllRead?: selectedStore.map { context.askToMarkRead($0.issues, title: $0.displayTitle, &state) }
        case .browse?: return selectedStore.map { .push(BrowsePage(context: context, store: $0)) }
        case .filter?: state.isEditingFilter = true
        case .help?: state.overlay = .help
        case .quit?: context.askToQuit(&state)
        case .back?:
            if !state.filter.isEmpty {
                state.filter = ""
                filterPublications()
            }
        default:
            break
        }
        return nil
    }

    /// A publication's issues; a navigation feed's card opens its sections instead.
    private func open(_ store: Store) -> PageAction {
        if store.numberOfIssues == 0, !store.navigation.isEmpty { return .push(BrowsePage(context: context, store: store)) }
        return .push(IssuesPage(context: context, source: .publication(store)))
    }

    func handleMouse(_ action: MouseAction, x: Int, y: Int) -> PageAction {
        guard !isTakingKeys else { return .none }
        switch context.point(&state, action, x: x, y: y, count: shown.count) {
        case .ignored: return .none
        case .moved: return .redraw
        case .opened(let index): return open(shown[index])
        }
    }

    // MARK: Drawing

    func render(into buffer: inout Buffer) {
        let layout = context.layout
        var model = context.baseModel()
        model.screen = .newsstand
        model.totalCount = newsstand.stores.count
        (model.status, model.statusIsWarning) = context.newsstandStatus(selected: selectedStore)
        state.clamp(count: shown.count, columns: layout.columns, visibleRows: layout.visibleRows)
        let range = layout.visibleRange(firstRow: state.firstRow, count: shown.count)
        let visible = shown[range].map(publicationItem)
        let selected = shown.indices.contains(state.selected)
            ? (range.contains(state.selected) ? visible[state.selected - range.lowerBound] : publicationItem(shown[state.selected]))
            : nil
        context.draw(ShelfScreen(layout: layout, model: model, state: state, visibleItems: [], selectedItem: nil, itemCount: shown.count,
                                 theme: context.theme, visiblePublications: visible, selectedPublication: selected, settings: context.settings),
                     into: &buffer)
    }

    private func publicationItem(_ store: Store) -> PublicationItem {
        let count = context.counts[store.name] ?? ShelfContext.Counts()
        let loaded = context.loadedStores.withLock { $0.contains(store.name) }
        var title = store.displayTitle
        var issueCount = store.numberOfIssues
        if !loaded, let summary = context.cachedSummary(store) {
            // Before its copy is read: what the copy's info says.
            if store.subscription.title == nil, let cachedTitle = summary.title { title = cachedTitle }
            issueCount = summary.issueCount ?? 0
        }
        var item = PublicationItem(name: store.name, title: title, issueCount: issueCount, newCount: count.new,
                                   unreadCount: count.unread, downloadedCount: count.downloaded, condition: condition(of: store, loaded: loaded))
        if let newest = count.newest {
            let covers = context.covers
            covers.request([newest], columns: CardView.coverColumns, rows: context.layout.coverRows)
            item.cover = covers.image(for: newest, columns: CardView.coverColumns, rows: context.layout.coverRows)
            item.newestTitle = newest.title
            item.newestDate = newest.entry.releaseDate
        }
        return item
    }

    private func condition(of store: Store, loaded: Bool) -> PublicationItem.Condition {
        switch store.status {
        case .idle:
            if !loaded { return .loading }
            return context.cachedSummary(store).map { .fresh($0.fetchedAt) } ?? .loading
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
}
