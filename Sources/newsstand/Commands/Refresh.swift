import ArgumentParser
import NewsstandKit

extension Newsstand {
    /// Fetches the catalog now and says what changed.
    struct Refresh: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fetch the catalog now; say whether it changed and how many issues are new.")

        @OptionGroup var options: CatalogOptions

        func run() throws {
            try reportingFailures {
                let store = try options.makeStore()
                let hadCache = store.loadCache()
                let result = store.refreshAndWait()
                printWarnings(store)
                switch result {
                case .success(let summary):
                    let name = store.catalogTitle.map { TextSanitizer.inert($0) + ": " } ?? ""
                    if summary.changed || !hadCache {
                        Output.line("\(name)catalog updated, \(summary.totalIssues) issues, \(summary.newIssues) new.")
                    } else {
                        Output.line("\(name)catalog unchanged, \(summary.totalIssues) issues.")
                    }
                case .failure(let error):
                    if store.numberOfIssues > 0 {
                        throw CommandFailure("\(error.message) The cached catalog was kept (\(store.numberOfIssues) issues).",
                                             exitCode: CommandFailure.exitCode(for: error.code))
                    }
                    throw CommandFailure(error: error, store: store)
                }
            }
        }
    }
}
