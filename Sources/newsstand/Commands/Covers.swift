import ArgumentParser
import Foundation
import NewsstandKit

extension Newsstand {
    /// Fetches the covers the shelf shows, so that it has them offline.
    struct Covers: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch the covers of every issue (or of the IDs given) that are not on disk yet.",
            discussion: "The shelf fetches covers as they come into view; this fills them all in ahead, for reading offline.")

        @OptionGroup var options: CatalogOptions

        @Argument(help: "Issue IDs; all issues when none are given.")
        var ids: [String] = []

        func run() throws {
            try reportingFailures {
                let store = try options.makeStore()
                try loadCatalog(store, needing: ids)
                var issues: [Issue] = []
                for id in ids {
                    guard let issue = store.issue(withID: id) else {
                        throw CommandFailure("There is no issue \(TextSanitizer.inert(id)) in the catalog.", exitCode: 3)
                    }
                    issues.append(issue)
                }
                if ids.isEmpty { issues = store.issues.filter { $0.entry.coverAddress != nil } }

                // As many at once as --jobs allows; the engine runs them all on its one thread.
                let slots = DispatchSemaphore(value: options.jobs)
                let group = DispatchGroup()
                let failures = Locked<[String]>([])
                for issue in issues {
                    slots.wait()
                    group.enter()
                    store.fetchCover(for: issue) { result in
                        if case .failure(let error) = result { failures.withLock { $0.append("\(issue.id): \(error.message)") } }
                        slots.signal()
                        group.leave()
                    }
                }
                group.wait()
                let failed = failures.withLock { $0 }
                for line in failed.prefix(20) { Output.error("newsstand: cover of \(line)") }
                if failed.count > 20 { Output.error("newsstand: … and \(failed.count - 20) more covers failed.") }
                Output.line("\(issues.count - failed.count) of \(issues.count) covers on disk.")
                if !failed.isEmpty { throw CommandFailure("\(failed.count) covers could not be fetched.", exitCode: 4) }
            }
        }
    }
}
