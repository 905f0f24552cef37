import Foundation

/// How persistent downloads are: retries, time-outs and limits.
public struct DownloadPolicy: Sendable, Equatable {
    /// Downloads that run at once; the rest wait their turn.
    public var maximumConcurrentDownloads = 3
    /// Attempts for one download before a passing failure becomes final.
    public var maximumAttempts = 5
    /// The wait before the second attempt; each later wait doubles.
    public var baseRetryDelay: TimeInterval = 1
    /// The longest wait between attempts, whatever the server asks for with Retry-After.
    public var maximumRetryDelay: TimeInterval = 120
    /// Seconds without a byte before a transfer is abandoned (and retried).
    public var stallTimeout = 30
    /// Whether a download whose server does not answer waits for it to answer again (the shelf,
    /// open for hours) rather than failing after its attempts (a command, which should end).
    public var waitsForNetwork = false
    /// While waiting for a server, how often to try it anyway, in case nothing else does.
    public var networkRecheck: TimeInterval = 300
    /// The largest issue accepted when the catalog gives no size.
    public var maximumIssueSize: Int64 = 8 << 30

    public init() {}

    /// The wait before attempt `attempt + 1`, honouring the server's Retry-After when given.
    func delay(after attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        if let retryAfter { return min(max(retryAfter, 0), maximumRetryDelay) }
        return min(baseRetryDelay * pow(2, Double(max(0, attempt - 1))), maximumRetryDelay)
    }
}
