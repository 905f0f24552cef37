import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Shows a feed's sections (an OPDS navigation feed) so that a reader can pick the one to subscribe to.
    struct Browse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a feed's sections and what each holds: a server's navigation feed, to find the feed to subscribe to.")

        @Argument(help: "A feed's URL, or the name of a subscription (its feed, with its credentials).")
        var target: String

        @OptionGroup var credentials: CredentialOptions

        @Flag(name: .long, help: "Print one JSON object instead of text.")
        var json = false

        func run() throws {
            try reportingFailures {
                let subscription = try Self.subscription(for: target, credentials: credentials)
                let page = try FeedBrowser(subscription: subscription).page(at: subscription.url)
                let catalog = FeedValidator(allowFiles: subscription.url.isFileURL).catalog(from: [page])
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
                    writer.key("sections")
                    writer.beginArray()
                    for link in page.navigation {
                        writer.beginObject()
                        writer.field("kind", link.isAcquisitionFeed.map { $0 ? "issues" : "sections" })
                        writer.field("summary", link.summary.map(TextSanitizer.inert))
                        writer.field("title", TextSanitizer.inert(link.title))
                        writer.field("url", shown(link.address))
                        writer.endObject()
                    }
                    writer.endArray()
                    writer.field("title", page.title.map(TextSanitizer.inert))
                    writer.field("url", shown(page.url.absoluteString))
                    writer.endObject()
                    Output.write(bytes: writer.bytes + [0x0A], to: STDOUT_FILENO)
                    return
                }
                let kind = page.navigation.isEmpty ? "feed" : catalog.entries.isEmpty ? "navigation feed" : "feed with sections"
                Output.line("\(TextSanitizer.inert(page.title ?? "Untitled")) — \(page.format.rawValue) \(kind)")
                let width = min(40, page.navigation.map { DisplayWidth.of(TextSanitizer.inert($0.title)) }.max() ?? 0)
                for link in page.navigation {
                    let kind = link.isAcquisitionFeed.map { $0 ? "  (issues)" : "  (sections)" } ?? ""
                    let title = DisplayWidth.pad(DisplayWidth.truncate(TextSanitizer.inert(link.title), to: width), to: width)
                    Output.line("  \(title)  \(shown(link.address))\(kind)")
                }
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
        static func subscription(for target: String, credentials: CredentialOptions) throws -> Subscription {
            if !target.contains("/"), !target.contains(":"), let configured = try NewsstandOptions.loadConfig()?.subscription(named: target) {
                return configured
            }
            guard target.contains("://") || target.hasPrefix("/") || target.hasPrefix(".") else {
                throw CommandFailure("\(TextSanitizer.inert(target)) is neither a subscription nor a URL: see `newsstand subscriptions`.", exitCode: 64)
            }
            var subscription = Subscription(name: "browse", url: try NewsstandOptions.parse(target))
            subscription.credentials = try credentials.source()
            return subscription
        }
    }
}
