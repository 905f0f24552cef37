import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Opens a downloaded issue in the reader, and marks it read.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a downloaded issue with $NEWSSTAND_OPENER, else xdg-open; it is then read.")

        @OptionGroup var options: NewsstandOptions

        @Argument(help: "The issue: NAME/ID, or an ID.")
        var id: String

        func run() throws {
            try reportingFailures {
                let (newsstand, issues) = try options.resolve([id])
                try newsstand.open(issues[0], with: Opener.fromEnvironment())
            }
        }
    }
}
