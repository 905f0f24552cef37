import Foundation
import NewsstandKit

/// One level of a publication's server walked as folders: its sections (and any issues), or a
/// search's results. Enter opens a section as the next page, Backspace goes back a level, `+`
/// subscribes to a section, `/` searches. Pages are fetched off the shelf's thread.
final class BrowsePage: ShelfPage {
    private let context: ShelfContext
    private let store: Store
    /// The titles of the levels above this one, for the header's path.
    private let path: [String]
    private var title: String
    private let url: URL
    private var items: [PublicationItem] = []
    /// Each item's link (a section) or nil (an issue).
    private var links: [FeedLink?] = []
    private var search: FeedSearch?
    private var isLoading = true
    /// A search's results rather than a section.
    private let isSearch: Bool
    /// Which fetch it waits for.
    private var request = 0
    var state = ShelfState()

    /// The first level: `store`'s own feed, its sections known from its catalog or fetched.
    convenience init(context: ShelfContext, store: Store) {
        self.init(context: context, store: store, path: [], title: store.displayTitle, url: store.subscription.url,
                  search: store.search, isSearch: false)
        let known = store.navigation
        if !known.isEmpty {
            fill(links: known, entries: [], search: store.search)
        } else {
            fetch(url)
        }
    }

    private init(context: ShelfContext, store: Store, path: [String], title: String, url: URL, search: FeedSearch?, isSearch: Bool) {
        self.context = context
        self.store = store
        self.path = path
        self.title = title
        self.url = url
        self.search = search
        self.isSearch = isSearch
    }

    private var secrets: [String] { URLSecrets.secrets(in: store.subscription.url) }

    private func fetch(_ url: URL) {
        let subscription = store.subscription
        request = context.fetch { () throws(NewsstandError) in try FeedBrowser(subscription: subscription).checkedPage(at: url) }
        isLoading = true
    }

    /// Takes this page's fetched page from those that arrived.
    func take(_ arrived: [(request: Int, result: Result<FeedBrowser.CheckedPage, NewsstandError>)]) {
        for (request, result) in arrived where request == self.request {
            switch result {
            case .success(let checked):
                fill(links: checked.page.navigation, entries: checked.entries, search: checked.page.search)
                if let title = checked.page.title, !isSearch, !path.isEmpty { self.title = title }
            case .failure(let error):
                isLoading = false
                state.message = .error(error.message)
            }
            context.redrawNow()
        }
    }

    private func fill(links: [FeedLink], entries: [CatalogEntry], search: FeedSearch?) {
        let secrets = secrets
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
        self.items = items
        self.links = targets
        self.search = search ?? self.search
        isLoading = false
    }

    // MARK: Input

    func handle(_ key: Key) -> PageAction {
        if state.isEditingFilter { return editSearch(key) }
        if state.overlay != .none {
            if state.answerOverlay(key) == .quit { context.running = false }
            return .redraw
        }
        state.message = nil
        if context.move(&state, key, count: items.count) { return .redraw }
        if context.handleShared(key, &state) { return .redraw }
        let selected = state.selected
        let link = links.indices.contains(selected) ? links[selected] : nil
        switch context.settings.action(for: ShelfController.keyName(key)) {
        case .open?:
            guard items.indices.contains(selected) else { return .redraw }
            guard let link, let url = URL(string: link.address) else {
                state.message = .info("An issue of the server: subscribe to a section that lists it to download it.")
                return .redraw
            }
            let next = BrowsePage(context: context, store: store, path: path + [title], title: link.title, url: url, search: search, isSearch: false)
            next.fetch(url)
            return .push(next)
        case .subscribe?:
            guard let link else {
                state.message = .info("Select a section to subscribe to.")
                return .redraw
            }
            subscribe(to: link)
        case .filter?:
            if search == nil {
                state.message = .info("This server's feed offers no search.")
            } else {
                state.isEditingFilter = true
                state.filter = ""
            }
        case .back?:
            return .pop
        case .help?:
            state.overlay = .help
        case .quit?:
            context.askToQuit(&state)
        default:
            break
        }
        return .redraw
    }

    /// The search prompt: typed here, run on Enter as a new page of results.
    private func editSearch(_ key: Key) -> PageAction {
        switch key {
        case .enter:
            state.isEditingFilter = false
            let terms = state.filter.trimmingCharacters(in: .whitespaces)
            state.filter = ""
            guard !terms.isEmpty, let search else { return .redraw }
            let results = BrowsePage(context: context, store: store, path: path + [title], title: "Search “\(terms)”", url: url,
                                     search: search, isSearch: true)
            let subscription = store.subscription
            // An OpenSearch description is fetched on the loading thread too: the shelf never waits.
            results.request = context.fetch { () throws(NewsstandError) in
                let browser = FeedBrowser(subscription: subscription)
                return try browser.checkedPage(at: try browser.searchURL(search, terms: terms))
            }
            return .push(results)
        case .escape:
            state.isEditingFilter = false
            state.filter = ""
        case .backspace, .delete:
            if !state.filter.isEmpty { state.filter.removeLast() }
        case .character(let character):
            state.filter.append(character)
        default:
            break
        }
        return .redraw
    }

    private func subscribe(to link: FeedLink) {
        guard let subscribe = context.subscribe, let url = URL(string: link.address) else {
            state.message = .warning("Subscribing needs the configuration file: newsstand subscribe URL.")
            return
        }
        let name = Subscription.unusedName(for: url, taken: Set(context.newsstand.stores.map(\.name)))
        var subscription = Subscription(name: name, url: url)
        // The same server's credentials go with it; another server's never do.
        if RequestProfile.origin(of: url) == RequestProfile.origin(of: store.subscription.url) {
            subscription.credentials = store.subscription.credentials
            subscription.certificateAuthorities = store.subscription.certificateAuthorities
        }
        do {
            try subscribe(subscription)
            state.message = .success("Subscribed as \(name): it is on the newsstand from the next start.")
        } catch {
            state.message = .error(error.message)
        }
    }

    func handleMouse(_ action: MouseAction, x: Int, y: Int) -> PageAction {
        switch context.point(&state, action, x: x, y: y, count: items.count) {
        case .ignored: return .none
        case .moved: return .redraw
        case .opened: return handle(.enter)
        }
    }

    // MARK: Drawing

    func render(into buffer: inout Buffer) {
        let layout = context.layout
        var model = context.baseModel()
        state.clamp(count: items.count, columns: layout.columns, visibleRows: layout.visibleRows)
        model.screen = .browse
        model.catalogTitle = (path + [title]).joined(separator: " › ")
        model.totalCount = items.count
        model.isLoading = isLoading
        let sections = links.filter { $0 != nil }.count
        model.headerNote = Formatting.count(sections, "section") + (sections == items.count ? "" : " · " + Formatting.count(items.count - sections, "issue"))
        if isLoading {
            model.status = isSearch ? "Searching…" : "Fetching \(Redaction.redact(url.absoluteString, secrets: secrets))…"
        } else {
            model.status = "\(store.displayTitle)'s server" + (search == nil ? "" : " · / searches it")
        }
        let range = layout.visibleRange(firstRow: state.firstRow, count: items.count)
        let visible = Array(items[range])
        let selected = items.indices.contains(state.selected) ? items[state.selected] : nil
        context.draw(ShelfScreen(layout: layout, model: model, state: state, visibleItems: [], selectedItem: nil, itemCount: items.count,
                                 theme: context.theme, visiblePublications: visible, selectedPublication: selected, settings: context.settings),
                     into: &buffer)
    }
}
