import ArgumentParser

extension NewsstandCommand {
    /// Prints the exit statuses as the manual's EXIT STATUS list (`make release` puts it there),
    /// so that the manual cannot drift from ``ExitStatus``.
    struct ExitStatusTable: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exit-status", abstract: "Print the exit statuses as the manual lists them.", shouldDisplay: false)

        @Flag(help: "Write roff for the manual instead of plain lines.")
        var roff = false

        func run() {
            for status in ExitStatus.allCases {
                Output.line(roff ? ".It \(status.rawValue)\n\(status.meaning)" : "\(status.rawValue)\t\(status.meaning)")
            }
        }
    }
}
