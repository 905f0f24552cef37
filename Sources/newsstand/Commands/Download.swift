import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Downloads issues, with progress bars on a terminal and one line per event otherwise.
    struct Download: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download issues; exit 0 only when every one is installed and verified.")

        @OptionGroup var options: NewsstandOptions

        @Argument(help: "The issues: NAME/ID, or an ID (with --subscription, or when only one subscription has it).")
        var ids: [String] = []

        @Flag(name: .long, help: "Download every free issue.")
        var allFree = false

        func validate() throws {
            if ids.isEmpty && !allFree { throw ValidationError("Name the issues to download, or pass --all-free.") }
            if !ids.isEmpty && allFree { throw ValidationError("Pass either issue IDs or --all-free, not both.") }
        }

        func run() throws {
            try reportingFailures {
                let resolved = try options.resolve(ids)
                var (newsstand, issues) = (resolved.newsstand, resolved.issues)
                if allFree {
                    issues = options.selectedStores(newsstand).flatMap { $0.issues.filter { $0.entry.isFree } }
                }
                let failures = DownloadRun(newsstand: newsstand, issues: issues).run()
                if !failures.isEmpty {
                    for (issue, error) in failures {
                        Output.error("newsstand: \(issue.address): \(error.message)")
                    }
                    let codes = Set((failures.map(\.1) + resolved.unresolved).map { CommandFailure.exitCode(for: $0.code) })
                    throw ExitCode(codes.count == 1 ? codes.first! : 1)
                }
                try resolved.finish()
            }
        }
    }
}

/// One run of downloads: starts them, shows their progress and waits for all of them to end.
final class DownloadRun: Sendable {
    let newsstand: Newsstand
    let issues: [Issue]
    private let events = Locked<[(Issue, DownloadState)]>([])
    private let wake = DispatchSemaphore(value: 0)

    init(newsstand: Newsstand, issues: [Issue]) {
        self.newsstand = newsstand
        self.issues = issues
    }

    /// Returns the issues that did not end installed, with why.
    func run() -> [(Issue, NewsstandError)] {
        let center = newsstand.configuration.notificationCenter
        let watched = Set(issues.map { ObjectIdentifier($0) })
        var observers: [any NSObjectProtocol] = []
        for name in [Issue.stateDidChangeNotification, Issue.downloadDidProgressNotification] {
            observers.append(center.addObserver(forName: name, object: nil, queue: nil) { [self] notification in
                guard let issue = notification.object as? Issue, watched.contains(ObjectIdentifier(issue)) else { return }
                let state = issue.state
                let isProgress = notification.name == Issue.downloadDidProgressNotification
                if !isProgress { events.withLock { $0.append((issue, state)) } }
                wake.signal()
            })
        }
        defer { observers.forEach(center.removeObserver) }

        let bars = Output.isTerminal ? ProgressBars(issues: issues) : nil
        for issue in issues {
            if case .downloaded(let path) = issue.state {
                if bars == nil { Output.line("\(issue.address): already downloaded: \(path)") }
                continue
            }
            newsstand.download(issue)
        }
        bars?.draw()
        while issues.contains(where: { $0.state.isActive }) {
            _ = wake.wait(timeout: .now() + .milliseconds(bars == nil ? 1000 : 200))
            let pending = events.withLock { events in
                defer { events.removeAll() }
                return events
            }
            if let bars {
                bars.draw()
            } else {
                for (issue, state) in pending { Self.printEvent(issue, state) }
            }
        }
        if let bars {
            bars.draw()
        } else {
            for (issue, state) in events.withLock({ $0 }) { Self.printEvent(issue, state) }
        }
        return issues.compactMap { issue in
            switch issue.state {
            case .downloaded: return nil
            case .failed(let error): return (issue, error)
            default: return (issue, NewsstandError(.cancelled, "The download stopped before it finished."))
            }
        }
    }

    private static func printEvent(_ issue: Issue, _ state: DownloadState) {
        let id = issue.address
        switch state {
        case .queued: Output.line("\(id): queued")
        case .downloading(let progress):
            Output.line(progress.received > 0 ? "\(id): resuming at \(progress.received) bytes" : "\(id): downloading")
        case .retrying(let error, let attempt, let delay):
            Output.line("\(id): attempt \(attempt) failed (\(TextSanitizer.inert(error.message))); retrying in \(Formatting.duration(delay))")
        case .waitingForNetwork(let error): Output.line("\(id): waiting for the network (\(TextSanitizer.inert(error.message)))")
        case .verifying: Output.line("\(id): verifying")
        case .downloaded(let path): Output.line("\(id): downloaded: \(path)")
        case .failed(let error): Output.line("\(id): failed: \(TextSanitizer.inert(error.message))")
        case .remote, .partial: Output.line("\(id): stopped")
        }
    }
}
