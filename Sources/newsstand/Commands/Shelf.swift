import ArgumentParser
import Foundation
import NewsstandKit
import ShelfUI

extension NewsstandCommand {
    /// Opens the full-screen shelf.
    struct Shelf: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "shelf", abstract: "Open the shelf: covers, downloads and reading in the terminal.")

        @OptionGroup var options: NewsstandOptions

        @Option(help: "How covers are drawn: auto (pictures where the terminal shows them, else symbols), kitty, sixel, iterm2, symbols or off (over the configuration's covers).")
        var covers: CoverGraphics?

        func run() throws {
            try reportingFailures {
                // The configuration first: a broken file stops everything, terminal or not.
                let config = try NewsstandOptions.loadConfig()
                var settings = try config.map(ShelfSettings.init(config:)) ?? ShelfSettings()
                if let covers { settings.covers = covers }
                guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                    throw CommandFailure("The shelf needs a terminal; use `newsstand list` in scripts.")
                }
                let newsstand = try options.makeNewsstand(config: config, forShelf: true)
                // --subscription opens on that publication; else the newsstand view of them all.
                let store = options.subscription == nil ? nil : options.selectedStores(newsstand).first
                // The terminal is asked what pictures it shows before curses takes it over, or
                // its answers would arrive as keys; keys typed meanwhile are handed to curses.
                let environment = ProcessInfo.processInfo.environment
                var typed: [UInt8] = []
                let pictures = TerminalGraphicsProbe.support(
                    for: settings.covers, environment: environment,
                    colors: (environment["NO_COLOR"] ?? "").isEmpty ? .direct : .none,
                    ask: {
                        guard !["linux", "dumb"].contains(environment["TERM"] ?? "dumb") else { return nil }
                        let asked = TerminalGraphicsProbe.ask(input: STDIN_FILENO, output: STDOUT_FILENO, deadline: TerminalGraphicsProbe.deadline(environment: environment))
                        typed = asked.typed
                        return asked.answers
                    },
                    tmux: TerminalGraphicsProbe.tmuxClient)
                let terminal: CursesTerminal
                do throws(CursesTerminal.Unavailable) {
                    terminal = try CursesTerminal()
                } catch {
                    throw CommandFailure(error.message)
                }
                terminal.pushBack(typed)
                if let pictures { terminal.showPictures(pictures) }
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

extension CoverGraphics: ExpressibleByArgument {}
