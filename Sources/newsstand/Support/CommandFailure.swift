import ArgumentParser
import NewsstandKit

/// A failure of a command: one line on standard error, then a non-zero exit.
struct CommandFailure: Error {
    let message: String
    let exitCode: Int32

    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    /// A library error; when the store has failed outright, its status says more (no cache, say).
    init(error: NewsstandError, store: Store? = nil) {
        var error = error
        if case .failed(let status)? = store?.status { error = status }
        self.init(error.message, exitCode: Self.exitCode(for: error.code))
    }

    /// Exit codes a script can tell apart: 2 no catalog, 3 unknown or missing issue or
    /// subscription, 4 network or server, 64 a bad configuration, 75 another sync running, 1 the rest.
    static func exitCode(for code: NewsstandError.Code) -> Int32 {
        switch code {
        case .catalogUnavailable, .invalidCatalog: return 2
        case .unknownIssue, .notDownloaded, .unknownSubscription: return 3
        case .network, .timedOut, .httpStatus, .insecure: return 4
        case .configuration: return 64
        case .busy: return 75
        default: return 1
        }
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
