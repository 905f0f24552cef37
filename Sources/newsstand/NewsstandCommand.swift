import ArgumentParser
import Foundation
import NewsstandKit

/// The `newsstand` command: a terminal magazine newsstand.
@main
struct NewsstandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "newsstand",
        abstract: "A terminal newsstand: follow publications, download issues, read them.",
        // One line a paragraph: the parser wraps them to the terminal's width, and a line broken
        // by hand as well would come out ragged at 80 columns.
        discussion: """
            Subscriptions live in $XDG_CONFIG_HOME/newsstand/config.toml (newsstand subscribe URL adds \
            one); with none, the bundled demo catalog is shown. --catalog URL-or-path works on a one-off catalog.

            Issues are named NAME/ID: a subscription, then the publisher's ID or the issue's local key.

            Issues are kept under $XDG_DATA_HOME/newsstand, catalogs cached under $XDG_CACHE_HOME/newsstand, \
            the log of unattended runs in $XDG_STATE_HOME/newsstand/newsstand.log.
            """,
        version: "0.7.0",
        subcommands: [
            Shelf.self, List.self, Refresh.self, Download.self, Covers.self, Open.self, Delete.self,
            Subscribe.self, Unsubscribe.self, Subscriptions.self, Discover.self, Import.self, Export.self, Publish.self, Login.self, Browse.self, Search.self, Mark.self, Usage.self, Sync.self, ExitStatusTable.self,
        ],
        defaultSubcommand: Shelf.self
    )

    /// Parses and runs, except that a first word which is not a command is named as such (the
    /// parser would hand it to the default command and answer with that command's usage), and
    /// that a mistake in the arguments is one line, as every other error is, naming the help to read.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let named = arguments.first.flatMap { word in configuration.subcommands.first { $0._commandName == word } }
        let subcommand = named?._commandName
        if let word = arguments.first, !word.hasPrefix("-"), word != "help", subcommand == nil {
            Output.error("newsstand: \(TextSanitizer.inert(word)) is not a command: see `newsstand --help` for the commands.")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        // The commands that fetch start loading libcurl while the arguments are parsed.
        let fetching: [any ParsableCommand.Type] = [Shelf.self, Refresh.self, Download.self, Covers.self, Subscribe.self,
                                                     Discover.self, Browse.self, Search.self, Login.self, Sync.self]
        if fetching.contains(where: { $0._commandName == (subcommand ?? Shelf._commandName) }) {
            TransferEngine.loadLibraryInBackground()
        }
        if (subcommand ?? Shelf._commandName) != Shelf._commandName {
            // A command that ends soon keeps what it frees for its next allocations (the shelf,
            // which stays, gives memory back).
            ProcessMemory.keepFreedMemory(upTo: 64 << 20)
        }
        // The commands that read whole catalogs at once fault their memory in 2 MiB at a time;
        // a download keeps its small footprint (its peak RSS is a bench row).
        let readingCatalogs: [any ParsableCommand.Type] = [Refresh.self, List.self, Sync.self]
        if readingCatalogs.contains(where: { $0._commandName == subcommand }) {
            ProcessMemory.useHugePages()
        }
        var command: any ParsableCommand
        do {
            command = try parse(arguments, named: named)
        } catch {
            // No exit while libcurl is loading, whichever way the process ends.
            TransferEngine.finishLoadingLibrary()
            // --help, --version and `help` print what was asked for.
            guard exitCode(for: error) != .success else { exit(withError: error) }
            var reason = message(for: error).split(separator: "\n").first.map(String.init) ?? "the arguments are not right"
            if reason.hasPrefix("Error: ") { reason.removeFirst(7) }
            let help = "newsstand " + (subcommand.map { $0 + " " } ?? "") + "--help"
            let ended = reason.hasSuffix(".") || reason.hasSuffix("?")
            Output.error("newsstand: \(TextSanitizer.inert(reason))" + (ended ? " See `\(help)`." : ": see `\(help)`."))
            Foundation.exit(exitCode(for: error).rawValue)
        }
        do {
            try command.run()
        } catch {
            TransferEngine.finishLoadingLibrary()
            exit(withError: error)
        }
        TransferEngine.finishLoadingLibrary()
        RetiredFiles.waitForRemovals()
    }

    /// The arguments of a named command, parsed by that command alone where it can: the whole
    /// tree of commands, built and checked on every run, took 5 to 9 ms of a `refresh`. Help,
    /// versions and any mistake go through the whole tree, which words them as `newsstand COMMAND`.
    private static func parse(_ arguments: [String], named: (any ParsableCommand.Type)?) throws -> any ParsableCommand {
        let rest = arguments.dropFirst()
        if let named, !rest.contains(where: asksTheWholeTree), let command = try? named.parseAsRoot(Array(rest)) {
            return command
        }
        return try parseAsRoot(arguments)
    }

    /// Whether an argument is answered by the whole tree (a command alone would take a `help`
    /// for a value, and answers help and version requests as if it were the program).
    private static func asksTheWholeTree(_ argument: String) -> Bool {
        argument == "help" || argument == "-h" || ["--help", "--version", "--generate-completion-script", "--experimental"].contains { argument.hasPrefix($0) }
    }
}
