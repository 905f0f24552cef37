import ArgumentParser

/// The `newsstand` command: a terminal magazine newsstand.
@main
struct Newsstand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "newsstand",
        abstract: "A terminal newsstand: browse a publisher's catalog, download issues, read them.",
        discussion: """
            The catalog is --catalog URL-or-path, else $NEWSSTAND_CATALOG, else the bundled demo.
            Issues are kept under $XDG_DATA_HOME/newsstand, catalogs cached under $XDG_CACHE_HOME/newsstand.
            """,
        version: "0.5.0",
        subcommands: [Shelf.self, List.self, Refresh.self, Download.self, Covers.self, Open.self, Delete.self],
        defaultSubcommand: Shelf.self
    )
}
