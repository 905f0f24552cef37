import ArgumentParser
import NewsstandKit

extension Newsstand {
    /// Removes downloaded issues from the library.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a downloaded issue (and any partial download).")

        @OptionGroup var options: CatalogOptions

        @Argument(help: "The IDs of the issues to delete.")
        var ids: [String]

        func run() throws {
            try reportingFailures {
                let store = try options.makeStore()
                try loadCatalog(store, needing: ids)
                for id in ids {
                    guard let issue = store.issue(withID: id) else {
                        throw CommandFailure("No issue \"\(TextSanitizer.inert(id))\" in the catalog: see `newsstand list`.", exitCode: 3)
                    }
                    let before = issue.state
                    try store.delete(issue)
                    if before == .remote {
                        Output.line("\(id): nothing to delete.")
                    } else {
                        Output.line("\(id): deleted.")
                    }
                }
            }
        }
    }
}
