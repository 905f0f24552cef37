import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Local keys carry SHA-256's first bytes, downloads are checked against a catalog's SHA-256 and
/// Digest authentication answers with MD5: each must be the standard's, by either way.
final class DigestTests: XCTestCase {
    private func oneShot(_ bytes: [UInt8], portable: Bool) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            Digest.withSHA256(of: buffer, portable: portable) { Hex.string(Array($0)) }
        }
    }

    /// The bytes added in pieces of `sizes`, taken in turn (a zero-length piece among them).
    private func streamed(_ bytes: [UInt8], pieces sizes: [Int], portable: Bool) -> String {
        var stream = Digest.SHA256Stream(portable: portable)
        var offset = 0, turn = 0
        bytes.withUnsafeBytes { all in
            while offset < all.count {
                let size = min(sizes[turn % sizes.count], all.count - offset)
                stream.add(UnsafeRawBufferPointer(rebasing: all[offset..<(offset + size)]))
                offset += size
                turn += 1
            }
        }
        return stream.hex()
    }

    /// FIPS 180-4's examples (one block and two) and RFC 1321's.
    func testTheStandardsExamples() {
        let sha256 = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ]
        for portable in [false, true] {
            for (text, digest) in sha256 {
                XCTAssertEqual(oneShot(Array(text.utf8), portable: portable), digest, "\(text.debugDescription), portable: \(portable)")
                XCTAssertEqual(streamed(Array(text.utf8), pieces: [1, 0, 7], portable: portable), digest, "\(text.debugDescription), streamed")
            }
        }
        let md5 = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (text, digest) in md5 {
            XCTAssertEqual(Digest.md5Hex(text), digest, text.debugDescription)
        }
        XCTAssertEqual(Hex.string(Digest.sha256("abc")), sha256[1].1)
    }

    /// Every length from nothing to five blocks, where the padding takes one block or two, by each
    /// way and streamed in uneven pieces, against Python's hashlib. (On a CPU without SHA
    /// extensions both ways are the plain C.)
    func testEveryLengthAgreesWithHashlib() {
        var state: UInt64 = 0x5DEE_CE66_D1CE_5EED
        func nextByte() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let inputs = (0...320).flatMap { length in (0..<3).map { _ in (0..<length).map { _ in nextByte() } } }
        let sha256 = ReferenceDigest.hashlib("sha256", inputs)
        let md5 = ReferenceDigest.hashlib("md5", inputs)
        XCTAssertEqual(sha256.count, inputs.count)
        XCTAssertEqual(md5.count, inputs.count)
        for (index, bytes) in inputs.enumerated() where index < min(sha256.count, md5.count) {
            let length = bytes.count
            XCTAssertEqual(oneShot(bytes, portable: false), sha256[index], "length \(length)")
            XCTAssertEqual(oneShot(bytes, portable: true), sha256[index], "length \(length), plain C")
            XCTAssertEqual(streamed(bytes, pieces: [63, 1, 0, 65, 130], portable: false), sha256[index], "length \(length), streamed")
            XCTAssertEqual(streamed(bytes, pieces: [5, 64, 17], portable: true), sha256[index], "length \(length), streamed in plain C")
            XCTAssertEqual(bytes.withUnsafeBufferPointer { Digest.md5Hex(of: $0) }, md5[index], "length \(length), MD5")
        }
    }

    /// A file's worth streamed in the pieces a transfer writes, against sha256sum.
    func testMegabytesStreamedAgreeWithSha256sum() {
        let data = Fixtures.pdf(size: 5 << 20 | 333, seed: 9)
        let bytes = Array(data)
        XCTAssertEqual(streamed(bytes, pieces: [16_384, 1_000_003, 4_096, 131_072], portable: false), Fixtures.sha256(data))
        XCTAssertEqual(streamed(bytes, pieces: [1 << 20], portable: true), Fixtures.sha256(data))
    }
}
