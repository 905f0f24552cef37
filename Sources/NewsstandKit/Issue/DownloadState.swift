import Foundation

/// Where an issue's download stands. The single source of truth for what a cover shows.
public enum DownloadState: Sendable, Equatable {
    /// Nothing on disk.
    case remote
    /// Some bytes on disk from an earlier attempt, not downloading now; a download resumes them.
    case partial(received: Int64, total: Int64?)
    /// Waiting for a free download slot.
    case queued
    /// Bytes are arriving.
    case downloading(DownloadProgress)
    /// Waiting before the next attempt after a failure that may pass (a cut connection, a busy server).
    case retrying(NewsstandError, attempt: Int, delay: TimeInterval)
    /// Its server did not answer: it waits until a transfer reaches that server again (a
    /// refresh, say) instead of counting retries down.
    case waitingForNetwork(NewsstandError)
    /// Complete; being checked against the catalog before it is installed.
    case verifying
    /// Installed and verified at `path`.
    case downloaded(path: String)
    /// Stopped for a reason the user can act on; any partial bytes are kept when they can be resumed.
    case failed(NewsstandError)

    /// Whether a download is under way (queued, running, waiting to retry or verifying).
    public var isActive: Bool {
        switch self {
        case .queued, .downloading, .retrying, .waitingForNetwork, .verifying: return true
        case .remote, .partial, .downloaded, .failed: return false
        }
    }
}

/// How far a download has come.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes on disk, including those from earlier attempts.
    public var received: Int64
    /// The full size, when the server or the catalog says it.
    public var total: Int64?
    /// Recent speed in bytes per second.
    public var bytesPerSecond: Double

    public init(received: Int64, total: Int64?, bytesPerSecond: Double = 0) {
        self.received = received
        self.total = total
        self.bytesPerSecond = bytesPerSecond
    }

    /// Between 0 and 1, when the size is known.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(received) / Double(total))
    }

    /// Seconds left at the current speed, when both are known.
    public var secondsRemaining: Double? {
        guard let total, bytesPerSecond > 0 else { return nil }
        return Double(max(0, total - received)) / bytesPerSecond
    }
}
