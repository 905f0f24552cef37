import ArgumentParser
import Foundation
import NewsstandKit
import ShelfUI

extension Newsstand {
    /// Opens the full-screen shelf.
    struct Shelf: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open the shelf: covers, downloads and reading in the terminal.")

        @OptionGroup var options: CatalogOptions

        func run() throws {
            try reportingFailures {
                guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                    throw CommandFailure("The shelf needs a terminal; use `newsstand list` in scripts.")
                }
                let store = try options.makeStore()
                let controller = ShelfController(store: store, terminal: CursesTerminal())
                let status = controller.run()
                if status != 0 { throw ExitCode(status) }
            }
        }
    }
}
