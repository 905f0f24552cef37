import ArgumentParser
import Foundation
import NewsstandKit

extension Newsstand {
    /// Lists the catalog's issues and what is on disk.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the catalog's issues (fetching it first unless --offline).")

        @OptionGroup var options: CatalogOptions

        @Flag(name: .long, help: "Print one JSON object instead of a table.")
        var json = false

        @Flag(name: .long, help: "Use the cached catalog; do not touch the network.")
        var offline = false

        func run() throws {
            try reportingFailures {
                let store = try options.makeStore()
                if offline && !store.configuration.catalogURL.isFileURL {
                    guard store.loadCache() else {
                        throw CommandFailure("No cached copy of the catalog exists yet: run `newsstand refresh` while online.", exitCode: 2)
                    }
                } else {
                    let result = store.refreshAndWait()
                    printWarnings(store)
                    if case .failure(let error) = result {
                        guard store.numberOfIssues > 0 else { throw CommandFailure(error: error, store: store) }
                        Output.error("newsstand: \(store.status.summary)")
                    }
                }
                if json {
                    try printJSON(store)
                } else {
                    printTable(store)
                }
            }
        }

        private func printTable(_ store: Store) {
            let issues = store.issues
            let width = Output.terminalWidth
            let idWidth = min(24, max(2, issues.map { $0.id.count }.max() ?? 2))
            let stateWidth = 11
            let header = [DisplayWidth.pad("ID", to: idWidth), DisplayWidth.pad("DATE", to: 10), "FREE",
                          DisplayWidth.pad("STATE", to: stateWidth), "TITLE"].joined(separator: "  ")
            let titleColumn = idWidth + 10 + 4 + stateWidth + 8
            let titleWidth = width.map { max(8, $0 - titleColumn) }
            if let title = store.catalogTitle {
                Output.line(TextSanitizer.inert(title) + " — \(issues.count) issues (\(store.status.summary))")
            }
            Output.line(header)
            for issue in issues {
                let entry = issue.entry
                var title = TextSanitizer.inert(entry.title)
                if let titleWidth { title = DisplayWidth.truncate(title, to: titleWidth) }
                let row = [DisplayWidth.pad(issue.id, to: idWidth), DisplayWidth.pad(Formatting.day(entry.releaseDate), to: 10),
                           entry.isFree ? "yes " : "no  ", DisplayWidth.pad(stateText(issue.state), to: stateWidth), title]
                Output.line(row.joined(separator: "  "))
            }
        }

        private func stateText(_ state: DownloadState) -> String {
            switch state {
            case .downloaded: return "downloaded"
            case .partial(let received, let total):
                if let total, total > 0 { return "partial \(Int(Double(received) * 100 / Double(total)))%" }
                return "partial"
            default: return "remote"
            }
        }

        private struct Listing: Encodable {
            struct CatalogInfo: Encodable {
                var url: String
                var title: String?
                var source: String
                var fetchedAt: Date?
            }
            struct IssueInfo: Encodable {
                var id: String
                var title: String
                var releaseDate: Date?
                var free: Bool
                var state: String
                var path: String?
                var size: Int64?
                var partialBytes: Int64?
            }
            var catalog: CatalogInfo
            var issues: [IssueInfo]
        }

        private func printJSON(_ store: Store) throws {
            let source: String
            switch store.catalogSource {
            case .network?, .file?: source = store.catalogSource == .file ? "file" : "network"
            default: source = "cache"
            }
            let issues = store.issues.map { issue -> Listing.IssueInfo in
                let entry = issue.entry
                var info = Listing.IssueInfo(
                    id: issue.id, title: TextSanitizer.inert(entry.title), releaseDate: entry.releaseDate,
                    free: entry.isFree, state: "remote", path: nil, size: entry.size)
                switch issue.state {
                case .downloaded(let path):
                    info.state = "downloaded"
                    info.path = path
                case .partial(let received, _):
                    info.state = "partial"
                    info.partialBytes = received
                default:
                    break
                }
                return info
            }
            let listing = Listing(
                catalog: .init(
                    url: store.configuration.catalogURL.absoluteString, title: store.catalogTitle.map(TextSanitizer.inert),
                    source: source, fetchedAt: store.catalogFetchedAt),
                issues: issues)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
            let data = try encoder.encode(listing)
            Output.line(String(decoding: data, as: UTF8.self))
        }
    }
}
