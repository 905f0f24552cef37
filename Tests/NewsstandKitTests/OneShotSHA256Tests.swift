import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Local keys carry SHA-256's first bytes: the one-shot hash must be SHA-256, by either way.
final class OneShotSHA256Tests: XCTestCase {
    private func hex(_ bytes: [UInt8], portable: Bool) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            OneShotSHA256.withDigest(of: buffer, portable: portable) { Hex.string(Array($0)) }
        }
    }

    /// FIPS 180-4's examples, one block and two.
    func testTheStandardsExamples() {
        let examples = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ]
        for portable in [false, true] {
            for (text, digest) in examples {
                XCTAssertEqual(hex(Array(text.utf8), portable: portable), digest, "\(text.debugDescription), portable: \(portable)")
            }
        }
    }

    /// Every length from nothing to five blocks, where the padding takes one block or two, against
    /// swift-crypto. (On a CPU without SHA extensions both runs are of the plain C.)
    func testEveryLengthAgreesWithSwiftCrypto() {
        var state: UInt64 = 0x5DEE_CE66_D1CE_5EED
        func nextByte() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for length in 0...320 {
            for _ in 0..<3 {
                let bytes = (0..<length).map { _ in nextByte() }
                let expected = Fixtures.sha256(Data(bytes))
                XCTAssertEqual(hex(bytes, portable: false), expected, "length \(length)")
                XCTAssertEqual(hex(bytes, portable: true), expected, "length \(length), plain C")
            }
        }
    }
}
