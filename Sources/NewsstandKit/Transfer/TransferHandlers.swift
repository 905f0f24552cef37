import Foundation

/// The callbacks of one transfer. All run on the same engine thread and must return quickly.
public struct TransferHandlers: Sendable {
    /// Called once the final response's headers are known and before any body is written: for a
    /// 2xx answer, once the destination is open; not called for an answer the transfer refuses
    /// (too large, a range other than the one asked for), which ends in a failure.
    public var response: @Sendable (TransferResponse) -> Void
    /// Called as the body arrives, at most about every 50 ms: bytes in the file, and the full size when known.
    public var progress: @Sendable (_ bytesOnDisk: Int64, _ expectedSize: Int64?) -> Void
    /// Called once, last.
    public var completion: @Sendable (TransferResult) -> Void

    public init(
        response: @escaping @Sendable (TransferResponse) -> Void = { _ in },
        progress: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in },
        completion: @escaping @Sendable (TransferResult) -> Void
    ) {
        self.response = response
        self.progress = progress
        self.completion = completion
    }
}
