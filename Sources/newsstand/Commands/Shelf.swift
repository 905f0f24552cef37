import ArgumentParser
import Foundation
import NewsstandKit
import ShelfUI

extension NewsstandCommand {
    /// Opens the full-screen shelf.
    struct Shelf: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open the shelf: covers, downloads and reading in the terminal.")

        @OptionGroup var options: NewsstandOptions

        func run() throws {
            try reportingFailures {
                guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                    throw CommandFailure("The shelf needs a terminal; use `newsstand list` in scripts.")
                }
                let newsstand = try options.makeNewsstand()
                guard let store = options.selectedStores(newsstand).first else { return }
                let terminal: CursesTerminal
                do throws(CursesTerminal.Unavailable) {
                    terminal = try CursesTerminal()
                } catch {
                    throw CommandFailure(error.message)
                }
                let controller = ShelfController(newsstand: newsstand, store: store, terminal: terminal)
                let status = controller.run()
                if status != 0 { throw ExitCode(status) }
            }
        }
    }
}
