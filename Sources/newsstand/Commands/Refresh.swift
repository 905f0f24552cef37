import ArgumentParser
import NewsstandKit

extension NewsstandCommand {
    /// Fetches the catalogs now and says what changed.
    struct Refresh: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "refresh", abstract: "Fetch every subscription's catalog now (or one's); say what changed.")

        @OptionGroup var options: NewsstandOptions

        func run() throws {
            try reportingFailures {
                let newsstand = try options.makeFetchingNewsstand()
                let stores = options.selectedStores(newsstand)
                let hadCache = Dictionary(uniqueKeysWithValues: stores.map { ($0.name, $0.loadCache()) })
                var failures: [NewsstandError] = []
                for (store, result) in refreshAll(newsstand, stores) {
                    printWarnings(store, among: stores.count)
                    let name = "\(store.name): "
                    switch result {
                    case .success(let summary):
                        if summary.changed || hadCache[store.name] != true {
                            Output.line("\(name)catalog updated, \(Formatting.count(summary.totalIssues, "issue")), \(summary.newIssues) new.")
                        } else {
                            Output.line("\(name)catalog unchanged, \(Formatting.count(summary.totalIssues, "issue")).")
                        }
                    case .failure(let error):
                        let failure = store.numberOfIssues > 0
                            ? NewsstandError(error.code, "\(error.message) The cached catalog was kept (\(Formatting.count(store.numberOfIssues, "issue"))).")
                            : (store.status.failure ?? error)
                        Output.error("newsstand: \(name)\(failure.message)")
                        failures.append(failure)
                    }
                }
                // Without its reading state a refresh could not record what it saw first.
                try newsstand.readingState.opened()
                if !failures.isEmpty {
                    let codes = Set(failures.map { CommandFailure.exitCode(for: $0.code) })
                    throw ExitCode(codes.count == 1 ? codes.first! : 1)
                }
            }
        }
    }
}

extension Store.Status {
    /// The error of a failed status.
    var failure: NewsstandError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
