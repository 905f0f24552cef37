import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Asks a subscription's server for issues matching some words, where its feed offers a search.
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search a subscription's server (where its feed links an OpenSearch description or a search template).")

        @Argument(help: "The subscription's name.")
        var name: String

        @Argument(help: "What to look for.")
        var terms: [String]

        @Flag(name: .long, help: "Print one JSON object instead of a table.")
        var json = false

        func run() throws {
            try reportingFailures {
                guard !terms.isEmpty else { throw ValidationError("Give the words to search for.") }
                guard let subscription = try NewsstandOptions.loadConfig()?.subscription(named: name) else {
                    throw CommandFailure.noSuchSubscription(name)
                }
                let newsstand = try Newsstand(configuration: Newsstand.Configuration(), subscriptions: [subscription])
                let store = newsstand.stores[0]
                store.loadWithoutNetwork()
                if store.search == nil, case .failure(let error) = store.refreshAndWait() {
                    throw CommandFailure(error: error, store: store)
                }
                guard let search = store.search else {
                    throw CommandFailure("\(name)'s feed (\(store.format?.rawValue ?? "catalog")) offers no search.", status: .noCatalog)
                }
                let browser = FeedBrowser(subscription: subscription)
                let url = try browser.searchURL(search, terms: terms.joined(separator: " "))
                let page = try browser.page(at: url)
                let catalog = browser.catalog(of: page)
                let secrets = URLSecrets.secrets(in: subscription.url)
                if json {
                    var writer = JSONWriter(capacity: 256 * (catalog.entries.count + 1))
                    writer.beginObject()
                    writer.key("results")
                    writer.beginArray()
                    for entry in catalog.entries {
                        writer.beginObject()
                        writer.field("download", Redaction.redact(entry.downloadAddress, secrets: secrets))
                        writer.field("id", TextSanitizer.inert(entry.id))
                        writer.field("mediaType", entry.mediaType.mimeType)
                        if let date = entry.releaseDate {
                            writer.key("releaseDate")
                            writer.timestamp(date)
                        }
                        writer.field("title", TextSanitizer.inert(entry.title))
                        writer.endObject()
                    }
                    writer.endArray()
                    writer.field("subscription", name)
                    writer.endObject()
                    Output.write(bytes: writer.bytes + [0x0A], to: STDOUT_FILENO)
                    return
                }
                Output.line("\(Formatting.count(catalog.entries.count, "result")) on \(name)'s server for “\(TextSanitizer.inert(terms.joined(separator: " ")))”:")
                for entry in catalog.entries {
                    Output.line("  \(DisplayWidth.pad(Formatting.day(entry.releaseDate), to: 10))  \(entry.mediaType.name.padding(toLength: 4, withPad: " ", startingAt: 0))  \(TextSanitizer.inert(entry.title))")
                }
                if let withIssues = page.navigation.first {
                    Output.line("and \(Formatting.count(page.navigation.count, "section")), such as \(TextSanitizer.inert(withIssues.title)): newsstand browse shows them.")
                }
            }
        }
    }
}
