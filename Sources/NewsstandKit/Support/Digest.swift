import CDigest

// The only file that imports CDigest.

/// SHA-256 and MD5 from CDigest's C (see its shim): a local key's hash of an ID, a download's
/// check against its catalog, a published file's digest, and HTTP Digest authentication.
enum Digest {
    /// Calls `body` with the 32 bytes of the SHA-256 of `bytes`, its state on the stack: for short
    /// texts hashed one after another by the thousand, as a catalog's IDs are for their local
    /// keys. `portable` keeps to plain C whatever the CPU has, for the tests of both ways.
    static func withSHA256<Result>(of bytes: UnsafeBufferPointer<UInt8>, portable: Bool = false, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            cdigest_sha256(bytes.baseAddress, bytes.count, digest.baseAddress!, portable ? 1 : 0)
            return body(UnsafeRawBufferPointer(digest))
        }
    }

    /// The SHA-256 of a text's UTF-8, its 32 bytes.
    static func sha256(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { bytes in withSHA256(of: bytes) { Array($0) } }
    }

    /// The MD5 of a text's UTF-8 as lowercase hex (RFC 7616's H for the MD5 algorithm).
    static func md5Hex(_ text: String) -> String {
        var text = text
        return text.withUTF8 { md5Hex(of: $0) }
    }

    static func md5Hex(of bytes: UnsafeBufferPointer<UInt8>) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { digest in
            cdigest_md5(bytes.baseAddress, bytes.count, digest.baseAddress!)
            return Hex.string(digest)
        }
    }

    /// SHA-256 of bytes added piece by piece, as a file is read back in chunks.
    struct SHA256Stream {
        private var stream = cdigest_sha256_stream()

        init(portable: Bool = false) {
            cdigest_sha256_stream_start(&stream, portable ? 1 : 0)
        }

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            cdigest_sha256_stream_add(&stream, bytes.baseAddress, bytes.count)
        }

        /// The digest of everything added, as lowercase hex.
        consuming func hex() -> String {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
                cdigest_sha256_stream_finish(&stream, digest.baseAddress!)
                return Hex.string(digest)
            }
        }
    }
}
