import CDigest

// The only file that imports CDigest.

/// SHA-256 in one call, its state on the stack (see CDigest's shim): for short texts hashed one
/// after another by the thousand, as a catalog's IDs are for their local keys. Streams and files
/// go through swift-crypto's `SHA256`.
enum OneShotSHA256 {
    /// Calls `body` with the 32 bytes of the digest of `bytes`. `portable` keeps to plain C
    /// whatever the CPU has, for the tests of both ways.
    static func withDigest<Result>(of bytes: UnsafeBufferPointer<UInt8>, portable: Bool = false, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            cdigest_sha256(bytes.baseAddress, bytes.count, digest.baseAddress!, portable ? 1 : 0)
            return body(UnsafeRawBufferPointer(digest))
        }
    }
}
