import ArgumentParser
import NewsstandKit

/// The exit statuses of every command: one table, which the manual's EXIT STATUS repeats (a test
/// compares them), so that the same failure exits with the same code whatever the command.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case failure = 1
    case noCatalog = 2
    case notFound = 3
    case network = 4
    case partialFailure = 5
    case needsCredentials = 6
    case usage = 64
    case busy = 75

    /// What the status means, as the manual says it.
    var meaning: String {
        switch self {
        case .success: return "Success."
        case .failure: return "A failure not listed below."
        case .noCatalog: return "No catalog: offline with no cached copy, or the catalog cannot be read."
        case .notFound: return "No such issue or subscription (or an ID that names several), or the issue is not downloaded."
        case .network: return "A network, TLS or server error; for sync, no publication could be reached."
        case .partialFailure: return "sync only: some publications or downloads failed."
        case .needsCredentials: return "The server wants credentials, refuses the ones given, or has locked the login for a while; or the issue is had through a web page."
        case .usage: return "Bad usage, a malformed URL or a broken configuration file; nothing was done."
        case .busy: return "Another sync is running."
        }
    }

    var code: ExitCode { ExitCode(rawValue) }

    /// The status for a core error.
    init(_ code: NewsstandError.Code) {
        switch code {
        case .catalogUnavailable, .invalidCatalog: self = .noCatalog
        case .unknownIssue, .notDownloaded, .unknownSubscription: self = .notFound
        case .network, .timedOut, .httpStatus, .hostPaused, .insecure, .notFound: self = .network
        case .unauthorized, .accountLocked, .notDownloadable: self = .needsCredentials
        case .configuration, .unsupportedURL: self = .usage
        case .busy: self = .busy
        default: self = .failure
        }
    }
}
