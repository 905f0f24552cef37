import ArgumentParser
import Foundation
import NewsstandKit
import ShelfUI

/// The options every subcommand shares: which publications, and how to download.
struct NewsstandOptions: ParsableArguments {
    @Option(name: .long, help: "A one-off catalog: an http(s) URL or a local property list, instead of the subscriptions.")
    var catalog: String?

    @Option(name: [.short, .long], help: "Only this subscription.")
    var subscription: String?

    @Option(name: .long, help: "Downloads that run at once, across every subscription (default: the config's jobs, else 3).")
    var jobs: Int?

    @Option(name: .long, help: "Seconds without data before a download is retried.")
    var stallTimeout: Int = 30

    @Option(name: .long, help: "Attempts per download before giving up.")
    var attempts: Int = 5

    @Option(name: .long, help: "Seconds before the second attempt; later waits double.")
    var retryDelay: Double = 1

    @Option(name: .long, help: ArgumentHelp(
        "Trust the certificate authorities in this PEM file instead of the system's.",
        discussion: "For a publisher with a private authority. Certificates are always verified.", valueName: "pem-file"))
    var caFile: String?

    func validate() throws {
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be between 1 and 64.") }
        guard stallTimeout >= 1 else { throw ValidationError("--stall-timeout must be at least 1 second.") }
        guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1.") }
        guard retryDelay >= 0 else { throw ValidationError("--retry-delay cannot be negative.") }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--ca-file \(TextSanitizer.inert(caFile)) is not a readable file.")
        }
        if catalog != nil && subscription != nil { throw ValidationError("Pass --catalog or --subscription, not both.") }
    }

    static var configPath: String { Directories.fromEnvironment().configFile }

    /// The configuration, or nil when there is none. A broken one stops everything (exit 64).
    static func loadConfig() throws -> NewsstandConfig? {
        let config = try NewsstandConfig.load(path: configPath)
        // The shelf's [keys] and [colors] are the shelf's to check, but a mistake in them stops
        // every command, as any mistake in the file does.
        if let config { _ = try ShelfSettings(config: config) }
        for warning in config?.warnings ?? [] { Output.error("newsstand: warning: \(warning)") }
        return config
    }

    /// The subscriptions this run works with: the one-off catalog (or the configured subscription
    /// with its URL), else every configured subscription, else the bundled demo.
    func subscriptions(_ config: NewsstandConfig?) throws -> [Subscription] {
        var subscriptions: [Subscription]
        if let value = catalog ?? ProcessInfo.processInfo.environment["NEWSSTAND_CATALOG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let url = try Self.parse(value)
            if let configured = config?.subscriptions.first(where: { $0.url == url }) {
                subscriptions = [configured]
            } else {
                // Named as earlier versions named its folder, so a one-off catalog keeps its issues.
                subscriptions = [Subscription(name: Library.legacyKey(for: url), url: url)]
            }
        } else if let config, !config.subscriptions.isEmpty {
            subscriptions = config.subscriptions
        } else {
            guard let demo = BundledDemo.catalogURL else {
                throw CommandFailure("The bundled demo catalog is missing: subscribe to a catalog (newsstand subscribe URL) or pass --catalog URL.")
            }
            subscriptions = [Subscription(name: "demo", url: demo)]
        }
        if let caFile {
            let path = caFile.hasPrefix("/") ? caFile : FileManager.default.currentDirectoryPath + "/" + caFile
            for index in subscriptions.indices { subscriptions[index].certificateAuthorities = path }
        }
        return subscriptions
    }

    static func parse(_ value: String) throws -> URL {
        if value.contains("://") {
            // A malformed URL of any shape is one failure with one exit status: bad usage.
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(),
                  ["http", "https", "file"].contains(scheme), scheme == "file" || !(url.host ?? "").isEmpty
            else {
                throw CommandFailure("\(TextSanitizer.inert(value)) is neither an http(s) URL nor a local file: give the catalog's http or https address, or its path.",
                                     status: .usage)
            }
            return url
        }
        let path = value.hasPrefix("/") ? value : FileManager.default.currentDirectoryPath + "/" + value
        return URL(fileURLWithPath: path).standardizedFileURL
    }

    /// Every newsstand made, kept until the process exits: freeing 100,000 issues one by one after
    /// the output is written took a tenth of `list`'s time, and the kernel frees them at once.
    /// Written only on the main thread, before any other thread exists.
    nonisolated(unsafe) private static var keptUntilExit: [Newsstand] = []

    /// The newsstand for this run.
    func makeNewsstand() throws -> Newsstand {
        try makeNewsstand(config: Self.loadConfig())
    }

    /// The newsstand for a command whose first work is a fetch: its reading state is opened
    /// beside the request, and the command asks ``ReadingState/opened()`` before it ends.
    func makeFetchingNewsstand() throws -> Newsstand {
        try makeNewsstand(config: Self.loadConfig(), opensReadingStateInBackground: true)
    }

    /// The newsstand for this run, from a configuration already read.
    ///
    /// `waitsForNetwork`: downloads whose server does not answer wait for it (the shelf, open
    /// for hours) instead of failing after their attempts (a command, which should end).
    /// The newsstand of the configuration; `forShelf` for the shelf, which waits for the network
    /// and has its stores make every issue with its catalog (a command makes an issue when it
    /// first looks at it); `opensReadingStateInBackground` for ``makeFetchingNewsstand()``.
    func makeNewsstand(config: NewsstandConfig?, forShelf: Bool = false, opensReadingStateInBackground: Bool = false) throws -> Newsstand {
        var configuration = Newsstand.Configuration()
        configuration.opensReadingStateInBackground = opensReadingStateInBackground
        configuration.policy.waitsForNetwork = forShelf
        configuration.makesIssuesWhenAsked = !forShelf
        configuration.policy.maximumConcurrentDownloads = jobs ?? config?.jobs ?? 3
        configuration.policy.stallTimeout = stallTimeout
        configuration.policy.maximumAttempts = attempts
        configuration.policy.baseRetryDelay = retryDelay
        configuration.maxStorage = config?.maxStorage
        configuration.engine.hostConnections = config?.hostConnections ?? TransferEngine.defaultHostConnections
        let newsstand = try Newsstand(configuration: configuration, subscriptions: try subscriptions(config))
        if let subscription, newsstand.store(named: subscription) == nil {
            // No exit while the reading state may still be opening on its own thread.
            try? newsstand.readingState.opened()
            throw NewsstandError(.unknownSubscription, "There is no subscription named \(TextSanitizer.inert(subscription)): see `newsstand subscriptions`.")
        }
        Self.keptUntilExit.append(newsstand)
        return newsstand
    }

    /// The newsstand with the issues `addresses` name (`NAME/ID`, IDs, or unique parts of
    /// IDs), their catalogs loaded. Every address is tried: each one that names no issue is
    /// reported on stderr and kept in `unresolved`; only when none names one is it an error.
    func resolve(_ addresses: [String]) throws -> ResolvedIssues {
        let newsstand = try makeNewsstand()
        try loadCatalogs(newsstand, selectedStores(newsstand), needing: addresses, subscription: subscription)
        var resolved = ResolvedIssues(newsstand: newsstand)
        for address in addresses {
            do {
                let issue = try newsstand.issue(addressed: address, in: subscription)
                if !resolved.issues.contains(where: { $0 === issue }) { resolved.issues.append(issue) }
            } catch {
                if addresses.count == 1 { throw error }
                Output.error("newsstand: \(error.message)")
                resolved.unresolved.append(error)
            }
        }
        if resolved.issues.isEmpty, let first = resolved.unresolved.first { throw ExitStatus(first.code).code }
        return resolved
    }

    /// The stores this run looks at: `--subscription`'s, else all.
    func selectedStores(_ newsstand: Newsstand) -> [Store] {
        guard let subscription else { return newsstand.stores }
        return newsstand.store(named: subscription).map { [$0] } ?? []
    }
}

/// Loads what a command that looks issues up needs: the cached catalogs of the subscriptions the
/// addresses name (`NAME/ID`; a bare ID needs them all), and a fresh fetch only of those whose
/// copy does not know an address asked for. With no addresses, every selected catalog.
func loadCatalogs(_ newsstand: Newsstand, _ stores: [Store], needing addresses: [String] = [], subscription: String? = nil) throws {
    func named(_ address: String) -> Store? {
        guard subscription == nil, let slash = address.firstIndex(of: "/") else { return nil }
        return stores.first { $0.name == address[..<slash] }
    }
    let bare = addresses.contains { named($0) == nil }
    let needed = addresses.isEmpty || bare ? stores : stores.filter { store in addresses.contains { named($0) === store } }
    let cached = newsstand.loadCaches(needed) == needed.count
    if addresses.isEmpty, cached { return }
    let unknown = addresses.filter { (try? newsstand.issue(addressed: $0, in: subscription)) == nil }
    if !addresses.isEmpty, unknown.isEmpty { return }
    let stale = addresses.isEmpty || unknown.contains(where: { named($0) == nil }) ? needed
        : needed.filter { store in unknown.contains { named($0) === store } }
    for (store, result) in refreshAll(newsstand, stale) {
        printWarnings(store, among: stale.count)
        if case .failure(let error) = result, store.numberOfIssues == 0, stale.count == 1 {
            throw CommandFailure(error: error, store: store)
        } else if case .failure = result, store.numberOfIssues == 0 {
            Output.error("newsstand: \(store.name): \(store.statusLine)")
        }
    }
}

/// Refreshes `stores` as one group (all of the newsstand's, or a selection).
func refreshAll(_ newsstand: Newsstand, _ stores: [Store], _ options: Store.RefreshOptions = []) -> [(store: Store, result: Result<Store.RefreshSummary, NewsstandError>)] {
    if stores.count == newsstand.stores.count {
        return newsstand.refreshAllAndWait(options)
    }
    return stores.map { ($0, $0.refreshAndWait(options)) }
}

/// The entries `store` skipped, at most twenty lines; named after the store when there are several.
func printWarnings(_ store: Store, among count: Int = 1) {
    let warnings = store.warnings
    let prefix = count > 1 ? "\(store.name): " : ""
    for warning in warnings.prefix(20) {
        Output.error("warning: \(prefix)\(warning)")
    }
    if warnings.count > 20 { Output.error("warning: \(prefix)… and \(warnings.count - 20) more entries skipped.") }
    let withoutDownload = store.itemsWithoutDownload
    if withoutDownload > 0 {
        let offer = withoutDownload == 1 ? "offers" : "offer"
        Output.error("note: \(prefix)\(Formatting.count(withoutDownload, "item")) of the feed \(offer) nothing to download as a PDF, EPUB, CBZ or zip, and \(withoutDownload == 1 ? "is" : "are") not listed.")
    }
    for remark in store.remarks { Output.error("note: \(prefix)\(remark)") }
}

/// The issues a command's addresses named, and the failures of those that named none.
struct ResolvedIssues {
    let newsstand: Newsstand
    var issues: [Issue] = []
    var unresolved: [NewsstandError] = []

    /// Ends a command that did its work on the issues found: non-zero when an address named none.
    func finish() throws {
        if let first = unresolved.first { throw ExitStatus(first.code).code }
    }
}
