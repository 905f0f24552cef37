import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Opens a downloaded issue in the reader, and marks it read.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Open a downloaded issue with $NEWSSTAND_OPENER, else xdg-open; it is then read.")

        @OptionGroup var options: NewsstandOptions

        @Argument(help: "The issue: NAME/ID, or an ID.")
        var id: String

        func run() throws {
            try reportingFailures {
                let resolved = try options.resolve([id])
                try resolved.newsstand.open(resolved.issues[0], with: Opener.fromEnvironment())
            }
        }
    }
}
