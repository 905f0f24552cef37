import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Fetches the covers the shelf shows, so that it has them offline.
    struct Covers: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "covers",
            abstract: "Fetch the covers of every issue (or of the IDs given) that are not on disk yet; make them from downloaded issues whose catalog has none.",
            discussion: "The shelf fetches covers as they come into view; this fills them all in ahead, for reading offline.")

        @OptionGroup var options: NewsstandOptions

        @Argument(help: "Issues (NAME/ID or IDs); all issues when none are given.")
        var ids: [String] = []

        func run() throws {
            try reportingFailures {
                let newsstand = try options.makeNewsstand()
                let stores = options.selectedStores(newsstand)
                try loadCatalogs(newsstand, stores, needing: ids, subscription: options.subscription)
                var issues: [Issue] = []
                for id in ids {
                    issues.append(try newsstand.issue(addressed: id, in: options.subscription))
                }
                // Issues with a cover in the catalog, and downloaded ones, whose cover can be made from them.
                if ids.isEmpty {
                    issues = stores.flatMap { $0.issues.filter { issue in
                        if issue.entry.coverAddress != nil { return true }
                        if case .downloaded = issue.state { return true }
                        return false
                    } }
                }

                // As many at once as --jobs allows. Each finished cover starts the next from the
                // engine thread that ran it: no hop through this thread in between.
                let group = DispatchGroup()
                let failures = Locked<[String]>([])
                let next = Locked(0)
                let candidates = issues
                @Sendable func fetchNext() {
                    // A cover already on disk (or refused at once) completes before fetchCover
                    // returns. Whichever of the two comes first decides who goes on: this loop
                    // when the completion came first (no recursion), else the completion.
                    while true {
                        let index = next.withLock { next -> Int in
                            defer { next += 1 }
                            return next
                        }
                        guard index < candidates.count else { return }
                        let issue = candidates[index]
                        let first = Locked<FirstToArrive?>(nil)
                        group.enter()
                        guard let store = newsstand.store(for: issue) else {
                            group.leave()
                            continue
                        }
                        store.fetchCover(for: issue) { result in
                            if case .failure(let error) = result { failures.withLock { $0.append("\(issue.address): \(error.message)") } }
                            if first.arrive(.completion) != .completion { fetchNext() }
                            group.leave()
                        }
                        if first.arrive(.caller) == .caller { return }
                    }
                }
                for _ in 0..<newsstand.configuration.policy.maximumConcurrentDownloads { fetchNext() }
                group.wait()
                let failed = failures.withLock { $0 }
                for line in failed.prefix(20) { Output.error("newsstand: cover of \(line)") }
                if failed.count > 20 { Output.error("newsstand: … and \(failed.count - 20) more covers failed.") }
                Output.line("\(issues.count - failed.count) of \(issues.count) covers on disk.")
                if !failed.isEmpty { throw CommandFailure("\(failed.count) covers could not be fetched.", status: .network) }
            }
        }
    }
}

/// Of a call and its completion handler, the one that got there first.
private enum FirstToArrive: Sendable {
    case caller, completion
}

private extension Locked<FirstToArrive?> {
    /// Records `arrival` unless another came first; returns the first.
    func arrive(_ arrival: FirstToArrive) -> FirstToArrive {
        withLock { first in
            if first == nil { first = arrival }
            return first!
        }
    }
}
