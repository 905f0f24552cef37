import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Shows a feed's sections (an OPDS navigation feed) so that a reader can pick the one to subscribe to.
    struct Browse: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browse",
            abstract: "Show a feed's sections and what each holds: a server's navigation feed, to find the feed to subscribe to.")

        @Argument(help: "A feed's URL, or the name of a subscription (its feed, with its credentials).")
        var target: String

        @OptionGroup var credentials: CredentialOptions

        @Flag(name: .long, help: "Print one JSON object instead of text.")
        var json = false

        @Option(help: "Levels of sections to walk: 1 shows the feed's own, 2 also theirs, … (at most 50 feeds are fetched).")
        var depth = 1

        func validate() throws {
            guard (1...5).contains(depth) else { throw ValidationError("--depth must be between 1 and 5.") }
        }

        func run() throws {
            try reportingFailures {
                let (subscription, subscribed) = try Self.subscription(for: target, credentials: credentials)
                let browser = FeedBrowser(subscription: subscription, subscribed: subscribed)
                let page = try browser.page(at: subscription.url)
                // Deeper levels: each section that leads to more sections, fetched in order up to a bound.
                var children: [String: [FeedLink]] = [:]
                var fetched = 1
                var level = page.navigation
                for _ in 1..<depth {
                    var next: [FeedLink] = []
                    for link in level where link.isAcquisitionFeed != true && children[link.address] == nil && fetched < 50 {
                        guard let url = URL(string: link.address), let sub = try? browser.page(at: url) else { continue }
                        fetched += 1
                        children[link.address] = sub.navigation
                        next += sub.navigation
                    }
                    level = next
                }
                let catalog = browser.catalog(of: page)
                let secrets = URLSecrets.secrets(in: subscription.url)
                func shown(_ address: String) -> String { TextSanitizer.inert(Redaction.redact(address, secrets: secrets)) }
                let search: String? = switch page.search {
                case .template(let template)?: shown(template)
                case .description(let address)?: shown(address) + " (OpenSearch description)"
                case nil: nil
                }
                if json {
                    var writer = JSONWriter(capacity: 4096)
                    writer.beginObject()
                    writer.field("format", page.format.rawValue)
                    writer.field("issues", Int64(catalog.entries.count))
                    writer.field("next", page.next.map(shown))
                    writer.field("search", search)
                    func write(_ links: [FeedLink], seen: Set<String>) {
                        writer.key("sections")
                        writer.beginArray()
                        for link in links {
                            writer.beginObject()
                            writer.field("kind", link.isAcquisitionFeed.map { $0 ? "issues" : "sections" })
                            if let below = children[link.address], !seen.contains(link.address) {
                                write(below, seen: seen.union([link.address]))
                            }
                            writer.field("summary", link.summary.map(TextSanitizer.inert))
                            writer.field("title", TextSanitizer.inert(link.title))
                            writer.field("url", shown(link.address))
                            writer.endObject()
                        }
                        writer.endArray()
                    }
                    write(page.navigation, seen: [page.url.absoluteString])
                    writer.field("title", page.title.map(TextSanitizer.inert))
                    writer.field("url", shown(page.url.absoluteString))
                    writer.endObject()
                    Output.write(bytes: writer.bytes + [0x0A], to: STDOUT_FILENO)
                    return
                }
                let kind = page.navigation.isEmpty ? "feed" : catalog.entries.isEmpty ? "navigation feed" : "feed with sections"
                Output.line("\(TextSanitizer.inert(page.title ?? "Untitled")) — \(page.format.rawValue) \(kind)")
                let every = page.navigation + children.values.flatMap { $0 }
                let width = min(40, every.map { DisplayWidth.of(TextSanitizer.inert($0.title)) }.max() ?? 0)
                func printTree(_ links: [FeedLink], indent: String, seen: Set<String>) {
                    for link in links {
                        let kind = link.isAcquisitionFeed.map { $0 ? "  (issues)" : "  (sections)" } ?? ""
                        let title = DisplayWidth.pad(DisplayWidth.truncate(TextSanitizer.inert(link.title), to: width), to: width)
                        Output.line("  \(indent)\(title)  \(shown(link.address))\(kind)")
                        // A section that links back to one above it is shown once.
                        if let below = children[link.address], !seen.contains(link.address) {
                            printTree(below, indent: indent + "  ", seen: seen.union([link.address]))
                        }
                    }
                }
                printTree(page.navigation, indent: "", seen: [page.url.absoluteString])
                if let search { Output.line("search: \(search)") }
                var counts = [Formatting.count(page.navigation.count, "section"), Formatting.count(catalog.entries.count, "issue")]
                if page.next != nil { counts[1] += " on this page" }
                Output.line(counts.joined(separator: ", ") + ".")
                if !page.navigation.isEmpty {
                    Output.line("Subscribe to a section that lists issues: newsstand subscribe URL")
                }
            }
        }

        /// The subscription named `target`, or a passing one for a URL with these credentials.
        /// The subscription named, or one made for a URL (not subscribed to: `subscribed` false).
        static func subscription(for target: String, credentials: CredentialOptions) throws -> (subscription: Subscription, subscribed: Bool) {
            if !target.contains("/"), !target.contains(":"), let configured = try NewsstandOptions.loadConfig()?.subscription(named: target) {
                return (configured, true)
            }
            guard target.contains("://") || target.hasPrefix("/") || target.hasPrefix(".") else {
                throw CommandFailure("\(TextSanitizer.inert(target)) is neither a subscription nor a URL: see `newsstand subscriptions`.", status: .usage)
            }
            var subscription = Subscription(name: "browse", url: try NewsstandOptions.parse(target))
            subscription.credentials = try credentials.source()
            return (subscription, false)
        }
    }
}
