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
                    printJSON(store)
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

        private func printJSON(_ store: Store) {
            let source: String
            switch store.catalogSource {
            case .network?: source = "network"
            case .file?: source = "file"
            default: source = "cache"
            }
            let issues = store.issues
            var json = JSONWriter(capacity: 512)
            json.beginObject()
            json.key("catalog")
            json.beginObject()
            json.field("fetchedAt", store.catalogFetchedAt.map(Formatting.timestamp))
            json.field("source", source)
            json.field("title", store.catalogTitle.map(TextSanitizer.inert))
            json.field("url", store.configuration.catalogURL.absoluteString)
            json.endObject()
            json.key("issues")
            json.beginArray()
            // Large catalogs are written in pieces on every core, then printed in order.
            let parts = Pieces.map(issues.count) { range, _ -> [UInt8] in
                var part = JSONWriter(capacity: 160 * range.count)
                for issue in issues[range] { Self.writeIssue(issue, to: &part) }
                return part.bytes
            }
            Output.write(bytes: json.bytes, to: STDOUT_FILENO)
            for (number, part) in parts.enumerated() where !part.isEmpty {
                if number > 0 { Output.write(bytes: [UInt8(ascii: ",")], to: STDOUT_FILENO) }
                Output.write(bytes: part, to: STDOUT_FILENO)
            }
            // What `json` opened: the issues array and the outer object.
            Output.write(bytes: Array("]}\n".utf8), to: STDOUT_FILENO)
        }

        private static func writeIssue(_ issue: Issue, to json: inout JSONWriter) {
            let entry = issue.entry
            var state = "remote", path: String?, partialBytes: Int64?
            switch issue.state {
            case .downloaded(let installed):
                state = "downloaded"
                path = installed
            case .partial(let received, _):
                state = "partial"
                partialBytes = received
            default:
                break
            }
            json.beginObject()
            json.key("free")
            json.boolean(entry.isFree)
            json.field("id", issue.id)
            json.field("partialBytes", partialBytes)
            json.field("path", path)
            if let releaseDate = entry.releaseDate {
                json.key("releaseDate")
                json.timestamp(releaseDate)
            }
            json.field("size", entry.size)
            json.field("state", state)
            json.field("title", TextSanitizer.inert(entry.title))
            json.endObject()
        }
    }
}
