import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Writes the subscriptions as OPML, for another feed reader.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Print the subscriptions as OPML 2.0, for another feed reader (no credentials).")

        @OptionGroup var options: NewsstandOptions

        @Flag(help: "OPML 2.0 (the format written; the flag says so in scripts).")
        var opml = false

        func run() throws {
            try reportingFailures {
                let config = try NewsstandOptions.loadConfig()
                let subscriptions = config?.subscriptions ?? []
                // Titles as the shelf shows them: the configuration's, else the cached catalog's.
                let newsstand = try options.makeNewsstand(config: config)
                let entries = subscriptions.map { subscription in
                    let cached = newsstand.store(named: subscription.name)?.cachedSummary?.title
                    return (name: subscription.name, title: subscription.title ?? cached ?? subscription.name, address: subscription.url)
                }
                Output.write(bytes: Array(OPML.write(entries, created: Date()).utf8), to: STDOUT_FILENO)
            }
        }
    }
}
