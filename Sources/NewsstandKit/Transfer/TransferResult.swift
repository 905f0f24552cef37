import Foundation

/// How a transfer ended.
public struct TransferResult: Sendable {
    /// The final response; `statusCode` is 0 when no response arrived.
    public var response: TransferResponse
    /// `nil` when the transfer ran to its end (whatever the status); otherwise why it stopped.
    public var failure: NewsstandError?
    /// The size of the destination file afterwards, or 0 when it was not touched.
    public var bytesOnDisk: Int64
    /// Whether the body was written to the destination (a 2xx answer).
    public var wroteBody: Bool
    /// Whether a resume was asked for but the server sent the whole file, which replaced the old bytes.
    public var restarted: Bool
    /// The destination's SHA-256 from its first byte, computed as the body was written, when
    /// the request asked for it and a body was written.
    var bodyDigest: GrowingFileDigest?

    public init(response: TransferResponse, failure: NewsstandError?, bytesOnDisk: Int64, wroteBody: Bool, restarted: Bool) {
        self.response = response
        self.failure = failure
        self.bytesOnDisk = bytesOnDisk
        self.wroteBody = wroteBody
        self.restarted = restarted
    }
}
