import ArgumentParser
import NewsstandKit

extension NewsstandCommand {
    /// Removes downloaded issues from the library.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete downloaded issues (and any partial download).")

        @OptionGroup var options: NewsstandOptions

        @Argument(help: "The issues: NAME/ID, or IDs.")
        var ids: [String]

        func run() throws {
            try reportingFailures {
                let resolved = try options.resolve(ids)
                for issue in resolved.issues {
                    let before = issue.state
                    try resolved.newsstand.delete(issue)
                    Output.line(before == .remote ? "\(issue.address): nothing to delete." : "\(issue.address): deleted.")
                }
                try resolved.finish()
            }
        }
    }
}
