import ArgumentParser

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
        version: "0.6.0",
        subcommands: [
            Shelf.self, List.self, Refresh.self, Download.self, Covers.self, Open.self, Delete.self,
            Subscribe.self, Unsubscribe.self, Subscriptions.self, Mark.self, Usage.self, Sync.self,
        ],
        defaultSubcommand: Shelf.self
    )
}
