import ArgumentParser
import Foundation
import Logging
import NewsstandKit

extension NewsstandCommand {
    /// For cron and systemd timers: refresh, download by policy, keep the disk in budget.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Refresh every subscription, download new issues by each one's policy, apply the storage budget.",
            discussion: """
                Exit status: 0 everything worked; 5 some publications or downloads failed; 4 no publication \
                could be reached; 75 another sync is running; 64 the configuration is broken.

                A catalog the server called fresh (Cache-Control: max-age) is not asked for again until then. \
                What happened is also logged to $XDG_STATE_HOME/newsstand/newsstand.log.
                """)

        @OptionGroup var options: NewsstandOptions

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            try reportingFailures {
                let newsstand = try options.makeNewsstand()
                let logPath = newsstand.configuration.directories.state + "/newsstand.log"
                let handler: any LogHandler = FileLogHandler(label: "sync", path: logPath) ?? SwiftLogNoOpLogHandler()
                let logger = Logger(label: "sync", factory: { _ in handler })
                logger.info("sync started", metadata: ["subscriptions": "\(newsstand.stores.count)"])
                let report: Newsstand.SyncReport
                do {
                    // The process ends with the sync: no catalog is kept once it is done with.
                    report = try newsstand.sync(keepingIssues: false)
                } catch {
                    logger.notice("sync skipped: \((error as? NewsstandError)?.message ?? "\(error)")")
                    throw error
                }
                for outcome in report.outcomes {
                    switch outcome.refresh {
                    case .success(let summary):
                        logger.info("\(outcome.subscription): \(summary.askedServer ? (summary.changed ? "updated" : "unchanged") : "fresh, not asked"), \(Formatting.count(summary.totalIssues, "issue")), downloaded \(outcome.downloaded.count), failed \(outcome.failed.count)")
                        for remark in summary.remarks { logger.notice("\(outcome.subscription): \(remark)") }
                    case .failure(let error):
                        logger.warning("\(outcome.subscription): \(error.message)")
                    }
                    for (key, error) in outcome.failed { logger.warning("\(outcome.subscription)/\(key): \(error.message)") }
                }
                for removal in report.removed { logger.info("removed \(removal.subscription)/\(removal.key) (\(Formatting.bytes(removal.bytes)))") }
                json ? printJSON(report) : printSummary(report)
                if report.nothingReachable { throw ExitStatus.network.code }
                if !report.succeeded { throw ExitStatus.partialFailure.code }
            }
        }

        private func printSummary(_ report: Newsstand.SyncReport) {
            for outcome in report.outcomes {
                var line = "\(outcome.subscription): "
                switch outcome.refresh {
                case .success(let summary):
                    line += summary.askedServer ? (summary.changed ? "updated, \(summary.newIssues) new" : "unchanged") : "fresh (not asked)"
                    line += ", \(Formatting.count(summary.totalIssues, "issue"))"
                case .failure(let error):
                    line += "failed: \(error.message)"
                }
                if !outcome.downloaded.isEmpty { line += "; downloaded \(outcome.downloaded.joined(separator: ", "))" }
                if !outcome.failed.isEmpty {
                    line += "; \(outcome.failed.count) failed: " + outcome.failed.map { "\($0.key) (\($0.error.message))" }.joined(separator: "; ")
                }
                Output.line(line)
                // As `refresh` prints them: a catalog cut short, or one whose copy was not kept.
                if case .success(let summary) = outcome.refresh {
                    for remark in summary.remarks { Output.error("note: \(outcome.subscription): \(remark)") }
                }
            }
            for removal in report.removed {
                Output.line("removed \(removal.subscription)/\(removal.key) \"\(TextSanitizer.inert(removal.title))\" (\(Formatting.bytes(removal.bytes))) to keep within the budget")
            }
        }

        private func printJSON(_ report: Newsstand.SyncReport) {
            var writer = JSONWriter(capacity: 1024)
            writer.beginObject()
            writer.key("removed")
            writer.beginArray()
            for removal in report.removed {
                writer.beginObject()
                writer.field("bytes", removal.bytes)
                writer.field("key", removal.key)
                writer.field("subscription", removal.subscription)
                writer.endObject()
            }
            writer.endArray()
            writer.key("subscriptions")
            writer.beginArray()
            for outcome in report.outcomes {
                writer.beginObject()
                writer.key("downloaded")
                writer.beginArray()
                for key in outcome.downloaded { writer.string(key) }
                writer.endArray()
                writer.field("error", (try? outcome.refresh.get()) == nil ? outcome.refresh.failureMessage : nil)
                writer.key("failed")
                writer.beginArray()
                for failure in outcome.failed { writer.string(failure.key) }
                writer.endArray()
                writer.field("name", outcome.subscription)
                if case .success(let summary) = outcome.refresh {
                    writer.key("askedServer")
                    writer.boolean(summary.askedServer)
                    writer.field("issues", Int64(summary.totalIssues))
                    writer.field("newIssues", Int64(summary.newIssues))
                    writer.key("remarks")
                    writer.beginArray()
                    for remark in summary.remarks { writer.string(remark.description) }
                    writer.endArray()
                }
                writer.endObject()
            }
            writer.endArray()
            writer.key("succeeded")
            writer.boolean(report.succeeded)
            writer.endObject()
            Output.write(bytes: writer.bytes + [0x0A], to: STDOUT_FILENO)
        }
    }
}

private extension Result where Failure == NewsstandError {
    var failureMessage: String? {
        if case .failure(let error) = self { return error.message }
        return nil
    }
}
