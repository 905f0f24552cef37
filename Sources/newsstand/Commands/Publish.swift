import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Turns a folder of issues into catalogs any static web server can serve.
    struct Publish: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish",
            abstract: "Make catalogs of a folder of issues (PDF, EPUB, CBZ, HPub) for a web server to serve.",
            discussion: """
                Writes catalog.plist, opds-root.xml and opds.xml (OPDS 1.2), opds.json (OPDS 2.0), feed.rss and feed.json into \
                the folder, and a cover per issue into covers/ (a picture with the issue's name beside it is used instead). \
                Titles and dates come from the files, else their names (2026-03 Spring Issue.pdf); newsstand-publish.toml in \
                the folder sets the publication's title and language and any issue's title, summary or free. A run reads only \
                new or changed files and leaves unchanged catalogs untouched.
                """)

        @Argument(help: "The folder of issues.")
        var folder: String

        @Option(help: "The address the folder is served at (https://example.org/zine/).")
        var baseURL: String

        @Option(help: "Entries in one OPDS 1.2 page; the next page is linked after.")
        var pageSize = 100

        func run() throws {
            try reportingFailures {
                guard let url = URL(string: baseURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), !(url.host ?? "").isEmpty else {
                    throw CommandFailure("--base-url \(TextSanitizer.inert(baseURL)): give the http or https address the folder is served at.", status: .usage)
                }
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                    throw CommandFailure("There is no folder at \(TextSanitizer.inert(folder)).", status: .notFound)
                }
                guard pageSize >= 1 else { throw CommandFailure("--page-size must be 1 or more.", status: .usage) }
                var publisher = Publisher(folder: folder, baseURL: url)
                publisher.pageSize = pageSize
                let report = try publisher.publish()
                for problem in report.problems { Output.error("newsstand: \(problem)") }
                let written = report.written.isEmpty ? "every catalog unchanged" : "wrote " + report.written.joined(separator: ", ")
                Output.line("Published \(Formatting.count(report.issues, "issue")) of \(TextSanitizer.inert(folder)): read \(Formatting.count(report.read.count, "file")), \(written)"
                            + (report.coversMade > 0 ? ", made \(Formatting.count(report.coversMade, "cover"))." : "."))
            }
        }
    }
}
