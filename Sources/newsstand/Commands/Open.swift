import ArgumentParser
import Foundation
import NewsstandKit

extension Newsstand {
    /// Opens a downloaded issue in the PDF reader.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a downloaded issue with $NEWSSTAND_OPENER, else xdg-open.")

        @OptionGroup var options: CatalogOptions

        @Argument(help: "The ID of the issue to open.")
        var id: String

        func run() throws {
            try reportingFailures {
                let store = try options.makeStore()
                try loadCatalog(store, needing: [id])
                guard let issue = store.issue(withID: id) else {
                    throw CommandFailure("No issue \"\(TextSanitizer.inert(id))\" in the catalog: see `newsstand list`.", exitCode: 3)
                }
                guard let path = issue.pdfPath else {
                    throw CommandFailure("\(id) is not downloaded: run `newsstand download \(id)` first.", exitCode: 3)
                }
                try Opener.fromEnvironment().open(path)
            }
        }
    }
}
