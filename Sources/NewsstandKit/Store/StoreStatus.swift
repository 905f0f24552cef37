import Foundation

/// Where the store's catalog came from.
public enum CatalogSource: String, Sendable, Equatable {
    /// Fetched from the server just now (or confirmed unchanged by it).
    case network
    /// The cached copy, not confirmed by the server.
    case cache
    /// A local file the user named.
    case file
}

extension Store {
    /// What the store is doing, and how fresh its catalog is.
    public enum Status: Sendable, Equatable {
        /// Nothing loaded yet.
        case idle
        /// Fetching the catalog; `hasIssues` says whether a cached copy is shown meanwhile.
        case loading(hasIssues: Bool)
        /// The catalog is loaded and current.
        case ready(source: CatalogSource, fetchedAt: Date)
        /// The server could not be reached or sent a bad catalog: the cached copy fetched at
        /// `since` is shown instead.
        case offline(since: Date, reason: NewsstandError)
        /// No catalog at all.
        case failed(NewsstandError)

        /// One line for a status bar.
        public var summary: String {
            switch self {
            case .idle:
                return "Not loaded"
            case .loading(let hasIssues):
                return hasIssues ? "Refreshing…" : "Loading catalog…"
            case .ready(let source, let fetchedAt):
                switch source {
                case .network: return "Up to date (\(Self.time(fetchedAt)))"
                case .cache: return "From cache (\(Self.time(fetchedAt)))"
                case .file: return "Local catalog"
                }
            case .offline(let since, let reason):
                let prefix = reason.code == .network || reason.code == .timedOut ? "Offline" : "Stale"
                return "\(prefix): showing the catalog from \(Self.time(since)) — \(reason.message)"
            case .failed(let error):
                return "Error: \(error.message)"
            }
        }

        /// `HH:mm` today, else `yyyy-MM-dd HH:mm`, in local time. Made from the C library's
        /// calendar: the shelf asks for it every frame, and a `DateFormatter` is costly to make.
        static func time(_ date: Date, now: Date = Date()) -> String {
            func local(_ date: Date) -> tm {
                var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
                var parts = tm()
                localtime_r(&seconds, &parts)
                return parts
            }
            let (then, today) = (local(date), local(now))
            let clock = String(format: "%02d:%02d", then.tm_hour, then.tm_min)
            if then.tm_year == today.tm_year && then.tm_yday == today.tm_yday { return clock }
            return String(format: "%04d-%02d-%02d ", then.tm_year + 1900, then.tm_mon + 1, then.tm_mday) + clock
        }
    }

    /// What a refresh may skip.
    public struct RefreshOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A cached copy the server called fresh (its max-age, a Retry-After) is used without a
        /// request: an unattended sync asks nothing it was told not to.
        public static let respectingFreshness = RefreshOptions(rawValue: 1)
        /// A catalog the server says is unchanged (or fresh) is not read from the cache either:
        /// ``Store/numberOfIssues`` stays 0 until ``Store/loadCache()`` — a sync of a hundred
        /// unchanged publications then costs a hundred small requests and nothing more.
        public static let leavingUnchangedUnread = RefreshOptions(rawValue: 2)
    }

    /// What a refresh found.
    public struct RefreshSummary: Sendable, Equatable {
        /// Whether the issue list differs from the one before.
        public var changed: Bool
        /// Issues whose IDs were not in the previous list.
        public var newIssues: Int
        public var totalIssues: Int
        public var source: CatalogSource
        /// False when the cached copy was fresh enough that the server was not asked.
        public var askedServer: Bool
        /// What a person should know of the catalog this refresh read (none when it read none:
        /// unchanged, or not asked), a copy that could not be kept included.
        public var remarks: [CatalogRemark]

        public init(changed: Bool, newIssues: Int, totalIssues: Int, source: CatalogSource, askedServer: Bool = true, remarks: [CatalogRemark] = []) {
            self.changed = changed
            self.newIssues = newIssues
            self.totalIssues = totalIssues
            self.source = source
            self.askedServer = askedServer
            self.remarks = remarks
        }
    }
}
