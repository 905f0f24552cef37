import ArgumentParser
import Foundation
import NewsstandKit
import ShelfUI

extension NewsstandCommand {
    /// Opens the full-screen shelf.
    struct Shelf: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "shelf", abstract: "Open the shelf: covers, downloads and reading in the terminal.")

        @OptionGroup var options: NewsstandOptions

        func run() throws {
            try reportingFailures {
                // The configuration first: a broken file stops everything, terminal or not.
                let config = try NewsstandOptions.loadConfig()
                let settings = try config.map(ShelfSettings.init(config:)) ?? ShelfSettings()
                guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                    throw CommandFailure("The shelf needs a terminal; use `newsstand list` in scripts.")
                }
                let newsstand = try options.makeNewsstand(config: config, waitsForNetwork: true)
                // --subscription opens on that publication; else the newsstand view of them all.
                let store = options.subscription == nil ? nil : options.selectedStores(newsstand).first
                let terminal: CursesTerminal
                do throws(CursesTerminal.Unavailable) {
                    terminal = try CursesTerminal()
                } catch {
                    throw CommandFailure(error.message)
                }
                let path = NewsstandOptions.configPath
                // The shelf's + on a browsed section adds it to the same file `subscribe` edits.
                let controller = ShelfController(newsstand: newsstand, store: store, terminal: terminal, settings: settings) {
                    (subscription: Subscription) throws(NewsstandError) in try ConfigEditor(path: path).add(subscription)
                }
                let status = controller.run()
                if status != 0 { throw ExitCode(status) }
            }
        }
    }
}
