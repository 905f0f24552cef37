import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Marks issues read, unread, pinned or unpinned.
    struct Mark: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "mark", abstract: "Mark issues read or unread, or pin them (the storage budget never removes a pinned issue).")

        enum Action: String, ExpressibleByArgument, CaseIterable {
            case read, unread, pin, unpin
        }

        @OptionGroup var options: NewsstandOptions

        @Argument(help: "read, unread, pin or unpin.")
        var action: Action

        @Argument(help: "The issues: NAME/ID, or IDs.")
        var ids: [String]

        func run() throws {
            try reportingFailures {
                let resolved = try options.resolve(ids)
                let (newsstand, issues) = (resolved.newsstand, resolved.issues)
                switch action {
                case .read: try newsstand.setRead(true, issues)
                case .unread: try newsstand.setRead(false, issues)
                case .pin: try newsstand.setPinned(true, issues)
                case .unpin: try newsstand.setPinned(false, issues)
                }
                for issue in issues { Output.line("\(issue.address): \(action.rawValue == "pin" || action.rawValue == "unpin" ? action.rawValue + "ned" : action.rawValue).") }
                try resolved.finish()
            }
        }
    }

    /// Shows the disk used per publication.
    struct Usage: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "usage", abstract: "Show the disk used by each subscription's issues and covers, and the total against the budget.")

        @OptionGroup var options: NewsstandOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            try reportingFailures {
                let newsstand = try options.makeNewsstand()
                let stores = options.selectedStores(newsstand)
                newsstand.loadCaches(stores)
                let usage = StorageBudget.usage(of: newsstand).filter { entry in stores.contains { $0.name == entry.subscription } }
                let total = usage.reduce(Int64(0)) { $0 + $1.bytes }
                if json {
                    var writer = JSONWriter(capacity: 256)
                    writer.beginObject()
                    writer.field("maxStorage", newsstand.configuration.maxStorage)
                    writer.key("subscriptions")
                    writer.beginArray()
                    for entry in usage {
                        writer.beginObject()
                        writer.field("bytes", entry.bytes)
                        writer.field("coverBytes", entry.coverBytes)
                        writer.field("downloadedIssues", Int64(entry.downloadedIssues))
                        writer.field("name", entry.subscription)
                        writer.endObject()
                    }
                    writer.endArray()
                    writer.field("totalBytes", total)
                    writer.endObject()
                    Output.write(bytes: writer.bytes + [0x0A], to: STDOUT_FILENO)
                    return
                }
                for entry in usage {
                    // The library size the shelf shows counts covers too: say how much of it they are.
                    let covers = entry.coverBytes > 0 ? ", covers \(Formatting.bytes(entry.coverBytes)) of it" : ""
                    Output.line("\(DisplayWidth.pad(entry.subscription, to: 20))  \(DisplayWidth.pad(Formatting.bytes(entry.bytes), to: 9))  \(Formatting.count(entry.downloadedIssues, "issue"))\(covers)")
                }
                let budget = newsstand.configuration.maxStorage.map { " of \(Formatting.bytes($0))" } ?? " (no max_storage: nothing is removed to make room)"
                Output.line("\(DisplayWidth.pad("total", to: 20))  \(Formatting.bytes(total))\(budget)")
            }
        }
    }
}
