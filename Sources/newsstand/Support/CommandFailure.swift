import ArgumentParser
import NewsstandKit

/// A failure of a command: one line on standard error, then a non-zero exit.
struct CommandFailure: Error {
    let message: String
    let exitCode: Int32

    init(_ message: String, status: ExitStatus = .failure) {
        self.init(message, exitCode: status.rawValue)
    }

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// A library error; when the store has failed outright, its status says more (no cache, say).
    init(error: NewsstandError, store: Store? = nil) {
        var error = error
        if case .failed(let status)? = store?.status { error = status }
        self.init(error.message, status: ExitStatus(error.code))
    }

    /// The one sentence for a name that is no subscription, from every command.
    static func noSuchSubscription(_ name: String) -> CommandFailure {
        CommandFailure("There is no subscription \(TextSanitizer.inert(name)): see `newsstand subscriptions`.", status: .notFound)
    }

    /// The exit code for a core error (the table is ``ExitStatus``).
    static func exitCode(for code: NewsstandError.Code) -> Int32 {
        ExitStatus(code).rawValue
    }
}

extension ParsableCommand {
    /// Runs `body`, turning a ``CommandFailure`` or ``NewsstandError`` into one line on stderr and an exit code.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CommandFailure {
            Output.error("newsstand: \(failure.message)")
            throw ExitCode(failure.exitCode)
        } catch let error as NewsstandError {
            Output.error("newsstand: \(error.message)")
            throw ExitCode(CommandFailure.exitCode(for: error.code))
        }
    }
}
