import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Lists the public catalogs newsstand knows by name, and the reader's own.
    struct Discover: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "discover",
            abstract: "List well-known public catalogs; `newsstand subscribe NAME` subscribes to one.",
            discussion: "Add your own as [directory.NAME] tables (url, title, summary) in the config file. Nothing is fetched.")

        @Flag(help: "One JSON object, for scripts.")
        var json = false

        func run() throws {
            try reportingFailures {
                let config = try NewsstandOptions.loadConfig()
                let directory = CatalogDirectory(adding: config?.directory ?? [])
                let subscribed = Dictionary((config?.subscriptions ?? []).map { ($0.url.absoluteString, $0.name) }, uniquingKeysWith: { first, _ in first })
                if json {
                    var writer = JSONWriter(capacity: 2048)
                    writer.beginObject()
                    writer.key("catalogs")
                    writer.beginArray()
                    for entry in directory.entries {
                        writer.beginObject()
                        writer.field("name", entry.name)
                        writer.field("source", entry.fromConfiguration ? "config" : "bundled")
                        writer.field("subscribedAs", subscribed[entry.url.absoluteString])
                        writer.field("summary", TextSanitizer.inert(entry.summary))
                        writer.field("title", TextSanitizer.inert(entry.title))
                        writer.field("url", entry.url.absoluteString)
                        writer.endObject()
                    }
                    writer.endArray()
                    writer.endObject()
                    Output.write(bytes: writer.bytes + [0x0A], to: STDOUT_FILENO)
                    return
                }
                let width = directory.entries.map { DisplayWidth.of($0.name) }.max() ?? 0
                for entry in directory.entries {
                    var line = "\(DisplayWidth.pad(entry.name, to: width))  \(TextSanitizer.inert(entry.title)) — \(TextSanitizer.inert(entry.url.absoluteString))"
                    if let subscription = subscribed[entry.url.absoluteString] { line += " (subscribed as \(subscription))" }
                    Output.line(line)
                    if !entry.summary.isEmpty {
                        Output.line(String(repeating: " ", count: width + 2) + TextSanitizer.inert(entry.summary))
                    }
                }
                Output.line("Subscribe with: newsstand subscribe NAME")
            }
        }
    }
}
