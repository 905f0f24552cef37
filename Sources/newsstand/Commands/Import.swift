import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Subscribes to the feeds of an OPML file, as feed readers and podcast apps export them.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Subscribe to every feed of an OPML file (from newsboat, a feed reader or a podcast app).",
            discussion: "Feeds already subscribed, and any the file names twice, are skipped and named. Nothing is fetched: `newsstand refresh` reads them.")

        @Argument(help: "The OPML file.")
        var file: String

        func run() throws {
            try reportingFailures {
                let path = NewsstandOptions.configPath
                let config = try NewsstandOptions.loadConfig()
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CommandFailure("Cannot read \(TextSanitizer.inert(file)).", status: .notFound)
                }
                let outlines: [OPML.Outline]
                do throws(NewsstandError) {
                    outlines = try OPML.read(data)
                } catch {
                    throw CommandFailure("\(TextSanitizer.inert(file)): \(error.message)", status: .usage)
                }
                guard !outlines.isEmpty else {
                    throw CommandFailure("\(TextSanitizer.inert(file)) names no feed (no outline with an xmlUrl).", status: .usage)
                }
                var taken = Set(config?.subscriptions.map(\.name) ?? [])
                var subscribed = Dictionary(config?.subscriptions.map { ($0.url.absoluteString, $0.name) } ?? [], uniquingKeysWith: { first, _ in first })
                var added: [String] = []
                var skipped: [String] = []
                let editor = ConfigEditor(path: path)
                for outline in outlines {
                    guard let url = URL(string: outline.address), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                          !(url.host ?? "").isEmpty
                    else {
                        skipped.append("\(TextSanitizer.inert(outline.address)): not an http(s) address")
                        continue
                    }
                    if let existing = subscribed[url.absoluteString] {
                        skipped.append("\(TextSanitizer.inert(URLSecrets.redacted(url))): already subscribed as \(existing)")
                        continue
                    }
                    // The name newsstand gave it when it wrote the file, if free; else one made from the address.
                    let name = outline.name.flatMap { Subscription.isValidName($0) && !taken.contains($0) ? $0 : nil }
                        ?? Subscription.unusedName(for: url, taken: taken)
                    var subscription = Subscription(name: name, url: url)
                    subscription.title = outline.title.map(TextSanitizer.inert)
                    try editor.add(subscription)
                    taken.insert(name)
                    subscribed[url.absoluteString] = name
                    added.append(name)
                }
                Output.line("Imported \(Formatting.count(added.count, "subscription"))" + (added.isEmpty ? "." : ": " + added.joined(separator: ", ") + "."))
                for line in skipped { Output.error("newsstand: skipped \(line).") }
                if !added.isEmpty { Output.line("`newsstand refresh` reads their catalogs.") }
            }
        }
    }
}
