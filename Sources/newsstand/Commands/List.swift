import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Lists the issues of every subscription (or one) and what is on disk and read.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the issues of every subscription (fetching catalogs first unless --offline).")

        @OptionGroup var options: NewsstandOptions

        @Flag(name: .long, help: "Print one JSON object instead of a table.")
        var json = false

        @Flag(name: .long, help: "Use the cached catalogs; do not touch the network.")
        var offline = false

        func run() throws {
            try reportingFailures {
                let newsstand = try options.makeNewsstand()
                let stores = options.selectedStores(newsstand)
                var printer = Printer(json: json)
                // Each publication is printed, then its issues dropped: a hundred of them are never
                // all in memory at once.
                if offline {
                    guard stores.contains(where: \.hasCachedCopy) else {
                        throw CommandFailure("No cached copy of the catalog exists yet: run `newsstand refresh` while online.", status: .noCatalog)
                    }
                    newsstand.withEachCachedStore(stores) { store, _ in printer.print(store) }
                } else {
                    let results = refreshAll(newsstand, stores, .respectingFreshness)
                    for (store, result) in results {
                        printWarnings(store, among: stores.count)
                        if case .failure(let error) = result {
                            if stores.count == 1 && store.numberOfIssues == 0 { throw CommandFailure(error: error, store: store) }
                            Output.error("newsstand: \(store.name): \(store.statusLine)")
                        }
                    }
                    for store in stores {
                        printer.print(store)
                        store.unloadIssues()
                    }
                }
                printer.finish()
            }
        }

        /// Prints publications one after another: a table, or one JSON object whose `issues` come
        /// first (written as each publication is read) and `subscriptions` last. Nothing is
        /// written before the first publication, and every failure comes before it, so that
        /// standard output holds one whole document or nothing.
        private struct Printer {
            let json: Bool
            private var wroteIssue = false
            private var subscriptions = JSONWriter(capacity: 256)
            private var printedAny = false

            init(json: Bool) {
                self.json = json
                if json { subscriptions.beginArray() }
            }

            mutating func print(_ store: Store) {
                if json && !printedAny { Output.write(bytes: Array("{\"issues\":[".utf8), to: STDOUT_FILENO) }
                if json {
                    printJSON(store)
                } else {
                    if printedAny { Output.line("") }
                    List.printTable(store)
                }
                printedAny = true
            }

            mutating func finish() {
                guard json else { return }
                if !printedAny { Output.write(bytes: Array("{\"issues\":[".utf8), to: STDOUT_FILENO) }
                subscriptions.endArray()
                Output.write(bytes: Array("],\"subscriptions\":".utf8) + subscriptions.bytes + Array("}\n".utf8), to: STDOUT_FILENO)
            }

            private mutating func printJSON(_ store: Store) {
                let source: String
                switch store.catalogSource {
                case .network?: source = "network"
                case .file?: source = "file"
                default: source = "cache"
                }
                subscriptions.beginObject()
                subscriptions.field("fetchedAt", store.catalogFetchedAt.map(Formatting.timestamp))
                subscriptions.field("name", store.name)
                subscriptions.field("source", source)
                subscriptions.field("status", store.statusLine)
                subscriptions.field("title", store.catalogTitle.map(TextSanitizer.inert))
                subscriptions.field("url", store.subscription.displayAddress)
                subscriptions.field("format", store.format?.rawValue)
                subscriptions.endObject()
                // A large catalog is written in pieces on every core, then printed in order.
                let issues = store.issues
                let parts = Pieces.map(issues.count) { range, _ -> [UInt8] in
                    var part = JSONWriter(capacity: 256 * range.count)
                    for issue in issues[range] { List.writeIssue(issue, to: &part) }
                    return part.bytes
                }
                for part in parts where !part.isEmpty {
                    if wroteIssue { Output.write(bytes: [UInt8(ascii: ",")], to: STDOUT_FILENO) }
                    wroteIssue = true
                    Output.write(bytes: part, to: STDOUT_FILENO)
                }
            }
        }

        private static func printTable(_ store: Store) {
            let width = Output.terminalWidth
            let issues = store.issues
            Output.line("\(store.name): \(TextSanitizer.inert(store.displayTitle)) — \(Formatting.count(issues.count, "issue")) · \(store.statusLine)")
            // Cut to fit a terminal only: a script reading a pipe gets every ID whole.
            let longestID = max(2, issues.map { DisplayWidth.of(TextSanitizer.inert($0.id)) }.max() ?? 2)
            let idWidth = width == nil ? longestID : min(24, longestID)
            let stateWidth = 11
            let header = [DisplayWidth.pad("ID", to: idWidth), DisplayWidth.pad("DATE", to: 10), "FREE",
                          DisplayWidth.pad("STATE", to: stateWidth), "    ", "TITLE"].joined(separator: "  ")
            let titleColumn = idWidth + 10 + 4 + stateWidth + 4 + 10
            let titleWidth = width.map { max(8, $0 - titleColumn) }
            Output.line(header)
            for issue in issues {
                let entry = issue.entry
                var title = TextSanitizer.inert(entry.title)
                if let titleWidth { title = DisplayWidth.truncate(title, to: titleWidth) }
                let reading = issue.reading
                let badge = reading?.pinned == true ? "PIN " : reading?.isNew == true ? "NEW " : reading?.isRead == true ? "read" : "    "
                let id = TextSanitizer.inert(issue.id)
                let row = [DisplayWidth.pad(width == nil ? id : DisplayWidth.truncate(id, to: idWidth), to: idWidth),
                           DisplayWidth.pad(Formatting.day(entry.releaseDate), to: 10),
                           entry.isFree ? "yes " : "no  ", DisplayWidth.pad(entry.acquisition.throughWebPage ? "web page" : stateText(issue.state), to: stateWidth), badge, title]
                Output.line(row.joined(separator: "  "))
            }
        }

        private static func stateText(_ state: DownloadState) -> String {
            switch state {
            case .downloaded: return "downloaded"
            case .partial(let received, let total):
                if let total, total > 0 { return "partial \(Int(Double(received) * 100 / Double(total)))%" }
                return "partial"
            default: return "remote"
            }
        }

        private static func writeIssue(_ issue: Issue, to json: inout JSONWriter) {
            let entry = issue.entry
            var state = "remote", path: String?, partialBytes: Int64?
            switch issue.state {
            case .downloaded(let installed):
                state = "downloaded"
                path = installed
            case .partial(let received, _):
                state = "partial"
                partialBytes = received
            default:
                break
            }
            let reading = issue.reading
            json.beginObject()
            // Looked for on downloaded issues only, the ones a cover is made from: one stat each.
            if path != nil, issue.coverIsMadeFromIssue {
                json.key("coverMadeFromIssue")
                json.boolean(true)
            }
            json.key("free")
            json.boolean(entry.isFree)
            json.field("id", TextSanitizer.inert(issue.id))
            json.field("localKey", issue.localKey)
            json.field("mediaType", issue.installedType.mimeType)
            json.field("price", entry.price.map(TextSanitizer.inert))
            json.field("authors", entry.authors.map(TextSanitizer.inert))
            json.key("new")
            json.boolean(reading?.isNew ?? false)
            json.field("openedAt", reading?.openedAt.map(Formatting.timestamp))
            json.field("partialBytes", partialBytes)
            json.field("path", path)
            json.field("serverFileName", path == nil ? nil : issue.library.serverFileName(for: issue.localKey).map(TextSanitizer.inert))
            if entry.acquisition.throughWebPage {
                json.key("throughWebPage")
                json.boolean(true)
            }
            json.key("pinned")
            json.boolean(reading?.pinned ?? false)
            json.key("read")
            json.boolean(reading?.isRead ?? false)
            if let releaseDate = entry.releaseDate {
                json.key("releaseDate")
                json.timestamp(releaseDate)
            }
            json.field("size", entry.size)
            json.field("state", state)
            json.field("subscription", issue.subscription)
            json.field("summary", entry.summary.map(TextSanitizer.inert))
            json.field("title", TextSanitizer.inert(entry.title))
            json.endObject()
        }
    }
}
