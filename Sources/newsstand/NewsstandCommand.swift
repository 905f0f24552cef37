import ArgumentParser
import Foundation
import NewsstandKit

/// The `newsstand` command: a terminal magazine newsstand.
@main
struct NewsstandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "newsstand",
        abstract: "A terminal newsstand: follow publications, download issues, read them.",
        discussion: """
            Subscriptions live in $XDG_CONFIG_HOME/newsstand/config.toml (newsstand subscribe URL adds one);
            with none, the bundled demo catalog is shown. --catalog URL-or-path works on a one-off catalog.
            Issues are named NAME/ID: a subscription, then the publisher's ID or the issue's local key.
            Issues are kept under $XDG_DATA_HOME/newsstand, catalogs cached under $XDG_CACHE_HOME/newsstand,
            the log of unattended runs in $XDG_STATE_HOME/newsstand/newsstand.log.
            """,
        version: "0.7.0",
        subcommands: [
            Shelf.self, List.self, Refresh.self, Download.self, Covers.self, Open.self, Delete.self,
            Subscribe.self, Unsubscribe.self, Subscriptions.self, Login.self, Browse.self, Search.self, Mark.self, Usage.self, Sync.self, ExitStatusTable.self,
        ],
        defaultSubcommand: Shelf.self
    )

    /// Parses and runs, except that a first word which is not a command is named as such: the
    /// parser would hand it to the default command and answer with that command's usage.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let word = arguments.first, !word.hasPrefix("-"), word != "help",
           !configuration.subcommands.contains(where: { $0._commandName == word }) {
            Output.error("newsstand: \(TextSanitizer.inert(word)) is not a command: see `newsstand --help` for the commands.")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        main(arguments)
    }
}
