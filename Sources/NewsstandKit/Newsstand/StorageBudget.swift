import Foundation

/// Which downloaded issues go when a subscription keeps more than its `keep` / `keep_size`, or
/// the newsstand more than its `max_storage`.
///
/// Only issues that are read and not pinned go, oldest first — never an unread, pinned,
/// downloading or open one (a file any process holds open, as `/proc` tells).
public struct StorageBudget: Sendable {
    /// One issue removed, and the bytes it freed.
    public struct Removal: Sendable, Equatable {
        public var subscription: String
        public var key: String
        public var title: String
        public var bytes: Int64
    }

    /// Disk used by one subscription.
    public struct Usage: Sendable, Equatable {
        public var subscription: String
        /// Issues and covers: what the budget counts.
        public var bytes: Int64
        /// The covers' part of `bytes`.
        public var coverBytes: Int64
        public var downloadedIssues: Int
    }

    struct Candidate {
        let issue: Issue
        let bytes: Int64
        var removable: Bool
    }

    /// The bytes each subscription's issues (installed and partial) and covers take on disk.
    public static func usage(of newsstand: Newsstand) -> [Usage] {
        newsstand.stores.map { store in
            let downloaded = store.issues.count { if case .downloaded = $0.state { return true } else { return false } }
            return Usage(subscription: store.name, bytes: store.library.sizeOnDisk(), coverBytes: store.library.coversSizeOnDisk(),
                         downloadedIssues: downloaded)
        }
    }

    /// Whether the budget looks at `store`'s issues: it keeps a count or a size, or the newsstand a maximum.
    static func isBudgeted(_ store: Store, in newsstand: Newsstand) -> Bool {
        newsstand.configuration.maxStorage != nil || store.subscription.keepIssues != nil || store.subscription.keepBytes != nil
    }

    /// Removes what the budget asks for and returns what went.
    public static func apply(to newsstand: Newsstand) -> [Removal] {
        let maximum = newsstand.configuration.maxStorage
        // Without a budget nothing goes: /proc is not walked and no folder is measured (a sync of
        // a hundred subscriptions ends here).
        let budgeted = newsstand.stores.filter { isBudgeted($0, in: newsstand) }
        guard !budgeted.isEmpty else { return [] }
        let active = Set(newsstand.activeIssues.map(\.address))
        let open = OpenFiles.paths(under: newsstand.configuration.directories.data + "/")
        var removals: [Removal] = []
        var remaining: [[Candidate]] = []
        for store in budgeted {
            // Only downloaded issues can be removed: sorted alone, not with every issue of the catalog.
            let downloaded = store.issues.filter { if case .downloaded = $0.state { return true } else { return false } }
            var candidates = Newsstand.newestFirst(downloaded).reversed().compactMap { issue -> Candidate? in
                guard case .downloaded(let path) = issue.state else { return nil }
                let reading = issue.reading
                let removable = (reading?.isRead ?? false) && !(reading?.pinned ?? false) && !active.contains(issue.address)
                    && !open.contains(path)
                return Candidate(issue: issue, bytes: store.library.sizeOnDisk(key: issue.localKey), removable: removable)
            }
            let subscription = store.subscription
            func over() -> Bool {
                if let keep = subscription.keepIssues, candidates.count > keep { return true }
                if let keep = subscription.keepBytes, candidates.reduce(0, { $0 + $1.bytes }) > keep { return true }
                return false
            }
            while over(), let index = candidates.firstIndex(where: \.removable) {
                if let removal = remove(candidates[index], newsstand) { removals.append(removal) }
                candidates.remove(at: index)
            }
            remaining.append(candidates)
        }
        if let maximum {
            var total = newsstand.stores.reduce(Int64(0)) { $0 + $1.library.sizeOnDisk() }
            // Oldest first across every subscription.
            var pool = remaining.flatMap { $0 }.filter(\.removable).sorted {
                ($0.issue.entry.releaseDate ?? .distantPast) < ($1.issue.entry.releaseDate ?? .distantPast)
            }
            while total > maximum, !pool.isEmpty {
                let candidate = pool.removeFirst()
                if let removal = remove(candidate, newsstand) {
                    removals.append(removal)
                    total -= removal.bytes
                }
            }
        }
        return removals
    }

    private static func remove(_ candidate: Candidate, _ newsstand: Newsstand) -> Removal? {
        let issue = candidate.issue
        guard (try? newsstand.delete(issue)) != nil else { return nil }
        return Removal(subscription: issue.subscription, key: issue.localKey, title: issue.title, bytes: candidate.bytes)
    }
}
