import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Adds a subscription to the configuration file, keeping everything else in it as it was.
    struct Subscribe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscribe",
            abstract: "Subscribe to a publication's catalog; every setting of the config file is an option here too.")

        @Argument(help: "The catalog's URL, a local catalog file, or a short name that `newsstand discover` lists.")
        var url: String

        @Option(help: "The subscription's name: its folder and its handle (default: made from the URL).")
        var name: String?

        @Option(help: "A title to show instead of the catalog's.")
        var title: String?

        @Option(help: "What to download on its own: none, latest, all-free, or a number of newest issues.")
        var autoDownload: String?

        @Option(help: "Downloaded issues to keep (older read ones are removed).")
        var keep: Int?

        @Option(help: "Bytes of downloaded issues to keep, such as \"2 GiB\".")
        var keepSize: String?

        @OptionGroup var credentials: CredentialOptions

        @Option(help: ArgumentHelp("An extra header, \"Name: value\"; repeat for more.", valueName: "header"))
        var header: [String] = []

        @Option(help: ArgumentHelp("A query argument added to every request, \"name=value\"; repeat for more.", valueName: "name=value"))
        var query: [String] = []

        @Option(help: "A PEM file of certificate authorities to trust for this publication.")
        var caFile: String?

        @Option(help: "Downloads of this publication at once.")
        var jobs: Int?

        @Option(help: "A cap on each download's speed, such as \"500 KiB\" (per second).")
        var limitRate: String?

        @Option(help: "Pages of a paginated feed read at most on each refresh (default 100).")
        var maxPages: Int?

        @Flag(name: [.customLong("no-check"), .customLong("no-fetch")],
              help: "Save the subscription without fetching its catalog first (offline now).")
        var noCheck = false

        func run() throws {
            try reportingFailures {
                let path = NewsstandOptions.configPath
                let config = try NewsstandOptions.loadConfig()
                var catalogURL = try NewsstandOptions.parse(url)
                // A directory's short name, unless a file of that name is here.
                let listed = catalogURL.isFileURL && !FileManager.default.fileExists(atPath: catalogURL.path)
                    ? CatalogDirectory(adding: config?.directory ?? []).entry(named: url) : nil
                if let listed { catalogURL = listed.url }
                if catalogURL.isFileURL, !FileManager.default.fileExists(atPath: catalogURL.path) {
                    let failure = Subscription.isValidName(url)
                        ? "There is no catalog file at \(TextSanitizer.inert(catalogURL.path)), and no catalog of that name in `newsstand discover`: give an http(s) URL, the path of a catalog file, or a name it lists."
                        : "There is no catalog file at \(TextSanitizer.inert(catalogURL.path)): give an http(s) URL or the path of a catalog file."
                    throw CommandFailure(failure, status: .noCatalog)
                }
                let taken = Set(config?.subscriptions.map(\.name) ?? [])
                let chosen = name ?? listed.map(\.name).flatMap { taken.contains($0) ? nil : $0 } ?? Subscription.unusedName(for: catalogURL, taken: taken)
                guard Subscription.isValidName(chosen) else {
                    throw CommandFailure("--name \(TextSanitizer.inert(chosen)): use lowercase letters, digits, - and _ (it names a folder).", status: .usage)
                }
                if let existing = config?.subscriptions.first(where: { $0.url == catalogURL }) {
                    throw CommandFailure("\(TextSanitizer.inert(URLSecrets.redacted(catalogURL))) is already subscribed as \(existing.name).", status: .usage)
                }
                var subscription = Subscription(name: chosen, url: catalogURL)
                try apply(to: &subscription)
                // The catalog is fetched before anything is saved: a subscription that can never
                // work (a 404, a web page, a closed port) is refused, and the file is left as it was.
                var checked: Result<(Store, Store.RefreshSummary), NewsstandError>?
                if !noCheck {
                    var configuration = Newsstand.Configuration()
                    configuration.maxStorage = config?.maxStorage
                    let newsstand = try Newsstand(configuration: configuration, subscriptions: [subscription])
                    let store = newsstand.stores[0]
                    checked = store.refreshAndWait().map { (store, $0) }
                    if case .failure(let error) = checked, !error.needsCredentials {
                        let failure = CommandFailure(error: error, store: store)
                        throw CommandFailure("Not subscribed: \(failure.message) (--no-check saves it all the same.)", exitCode: failure.exitCode)
                    }
                }
                try ConfigEditor(path: path).add(subscription)
                // Read back through the same rules a hand edit meets.
                guard let saved = try NewsstandConfig.load(path: path)?.subscription(named: chosen) else {
                    throw CommandFailure("The subscription was written but cannot be read back from \(path).")
                }
                Output.line("Subscribed to \(TextSanitizer.inert(saved.displayAddress)) as \(chosen) (in \(path)).")
                switch checked {
                case .success(let (store, summary))?:
                    printWarnings(store)
                    let format = store.format.map { " (\($0.rawValue))" } ?? ""
                    Output.line("\(chosen): \(TextSanitizer.inert(store.displayTitle)), \(Formatting.count(summary.totalIssues, "issue"))\(format).")
                    if summary.totalIssues == 0, !store.navigation.isEmpty {
                        Output.line("It is a navigation feed of \(Formatting.count(store.navigation.count, "section")): `newsstand browse \(chosen)` lists them; subscribe to one of them instead.")
                    }
                case .failure(let error)?:
                    // Saved: the credentials may come next, with the command the message names.
                    throw CommandFailure("\(chosen): subscribed, but the server wants credentials first. \(error.message)", status: ExitStatus(error.code))
                case nil:
                    break
                }
            }
        }

        /// The options, through the same table of settings the config file is read by.
        private func apply(to subscription: inout Subscription) throws {
            let given: [(SubscriptionSetting, SettingValue?)] = [
                (.title, title.map(SettingValue.text)), (.autoDownload, autoDownload.map(SettingValue.text)),
                (.keep, keep.map(SettingValue.integer)), (.keepSize, keepSize.map(SettingValue.text)),
                (.caFile, try caFile.map { .text(try Self.readablePath($0)) }), (.jobs, jobs.map(SettingValue.integer)),
                (.limitRate, limitRate.map(SettingValue.text)), (.maxPages, maxPages.map(SettingValue.integer)),
            ]
            for case let (setting, value?) in given {
                do {
                    try setting.apply(value, to: &subscription)
                } catch {
                    throw ValidationError("\(setting.option): expected \(error.expected).")
                }
            }
            subscription.credentials = try credentials.source()
            for line in header {
                do {
                    subscription.headers.append(try HeaderField(line: line))
                } catch {
                    throw ValidationError("--header: expected \(error.expected).")
                }
            }
            for pair in query {
                do {
                    subscription.query.append(try Subscription.queryArgument(pair))
                } catch {
                    throw ValidationError("--query: expected \(error.expected).")
                }
            }
        }

        /// A certificate file named on the command line, made absolute; it must be readable now.
        private static func readablePath(_ path: String) throws -> String {
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            guard FileManager.default.isReadableFile(atPath: absolute) else {
                throw ValidationError("--ca-file \(TextSanitizer.inert(path)) is not a readable file.")
            }
            return absolute
        }
    }

    /// Removes a subscription from the configuration file.
    struct Unsubscribe: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unsubscribe", abstract: "Remove a subscription; its downloaded issues stay unless --delete-issues.")

        @Argument(help: "The subscription's name.")
        var name: String

        @Flag(help: "Also delete its downloaded issues, covers and cached catalog.")
        var deleteIssues = false

        func run() throws {
            try reportingFailures {
                let path = NewsstandOptions.configPath
                _ = try NewsstandOptions.loadConfig()
                try ConfigEditor(path: path).remove(name: name)
                Output.line("Unsubscribed from \(name).")
                guard deleteIssues, Subscription.isValidName(name) else { return }
                let directories = Directories.fromEnvironment()
                let library = Library(directories: directories, subscriptionName: name)
                try? FileManager.default.removeItem(atPath: library.root)
                for suffix in [".catalog", ".json", ".catalog.retired"] { unlink(directories.cache + "/catalogs/" + name + suffix) }
                try? ReadingState(path: Newsstand.Configuration(directories: directories).readingStatePath).forget(subscription: name)
                Output.line("Deleted the issues of \(name).")
            }
        }
    }

    /// Lists the subscriptions.
    struct Subscriptions: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "subscriptions", abstract: "List the subscriptions and their settings (no secrets).")

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            try reportingFailures {
                let subscriptions = try NewsstandOptions.loadConfig()?.subscriptions ?? []
                if json {
                    var writer = JSONWriter(capacity: 256)
                    writer.beginObject()
                    writer.key("subscriptions")
                    writer.beginArray()
                    for subscription in subscriptions {
                        writer.beginObject()
                        writer.field("autoDownload", subscription.autoDownload.description)
                        writer.field("credentials", Self.credentials(subscription))
                        writer.field("keep", subscription.keepIssues.map(Int64.init))
                        writer.field("keepBytes", subscription.keepBytes)
                        writer.field("name", subscription.name)
                        writer.field("title", subscription.title.map(TextSanitizer.inert))
                        writer.field("url", subscription.displayAddress)
                        writer.endObject()
                    }
                    writer.endArray()
                    writer.endObject()
                    Output.write(bytes: writer.bytes + [0x0A], to: STDOUT_FILENO)
                    return
                }
                if subscriptions.isEmpty {
                    Output.line("No subscriptions yet (the shelf shows the bundled demo): newsstand subscribe URL")
                    return
                }
                // Columns: the names padded to the longest, the addresses to theirs (up to 60).
                let addresses = subscriptions.map { TextSanitizer.inert($0.displayAddress) }
                let nameWidth = subscriptions.map { DisplayWidth.of($0.name) }.max() ?? 0
                let addressWidth = min(60, addresses.map { DisplayWidth.of($0) }.max() ?? 0)
                for (subscription, address) in zip(subscriptions, addresses) {
                    var details = ["auto-download \(subscription.autoDownload)"]
                    if let keep = subscription.keepIssues { details.append("keep \(keep)") }
                    if let bytes = subscription.keepBytes { details.append("keep \(Formatting.bytes(bytes))") }
                    if let kind = Self.credentials(subscription) { details.append(kind) }
                    Output.line("\(DisplayWidth.pad(subscription.name, to: nameWidth))  \(DisplayWidth.pad(address, to: addressWidth))  \(details.joined(separator: ", "))")
                }
            }
        }

        /// How the subscription authenticates, never with what.
        static func credentials(_ subscription: Subscription) -> String? {
            switch subscription.credentials {
            case .basic(let user, _, let pin)?: return "\(pin?.rawValue ?? "password") as \(TextSanitizer.inert(user))"
            case .bearer?: return "bearer token"
            case .netrc?: return "netrc"
            case nil: return nil
            }
        }
    }
}
