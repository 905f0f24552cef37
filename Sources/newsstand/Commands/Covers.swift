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
                        store.fetchCover(for: issue) { result in
                            if case .failure(let error) = result { failures.withLock { $0.append("\(issue.id): \(error.message)") } }
                            if first.arrive(.completion) != .completion { fetchNext() }
                            group.leave()
                        }
                        if first.arrive(.caller) == .caller { return }
                    }
                }
                for _ in 0..<options.jobs { fetchNext() }
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
