import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Keys name folders already on readers' disks: the faster byte path must make the same keys.
final class LocalKeyStabilityTests: XCTestCase {
    /// How keys were made before the byte path (by Characters), given the ID's SHA-256 in hex.
    private func reference(_ id: String, sha256: String) -> String {
        if LocalKey.isValid(id) { return id }
        let tail = id.split(whereSeparator: { $0 == ":" || $0 == "/" }).last.map(String.init) ?? ""
        let stem = String(tail.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            .prefix(40).map(Character.init)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        let hash = sha256.prefix(10)
        return (stem.isEmpty ? "issue" : stem) + "-" + hash
    }

    func testTheSameKeysAsBefore() {
        var ids = ["urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a01", "http://example.com/issues/7", "a b", "::", "//x//", "-x-",
                   "tag:quarterly.example,2026:q4", String(repeating: "z", count: 150), "../../etc", "a:--b--:", "é:été", "夏/1",
                   "Issue #42 (May)", "\r\n", "x/\r\ny", ""]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09-:/._ #%é夏\u{301}\r\n".unicodeScalars)
        for _ in 0..<2000 {
            let length = Int.random(in: 1...60, using: &generator)
            ids.append(String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! })))
        }
        ids.removeAll { $0.isEmpty }
        // By Python's hashlib, all at once.
        let digests = ReferenceDigest.hashlib("sha256", ids.map { Array($0.utf8) })
        XCTAssertEqual(digests.count, ids.count)
        for (id, digest) in zip(ids, digests) {
            XCTAssertEqual(LocalKey.make(for: id), reference(id, sha256: digest), id.debugDescription)
        }
    }

    /// The check of a key by bits says what the rule says, for every byte in every place.
    func testEveryByteIsCheckedByTheRule() {
        func allowed(_ byte: UInt8) -> Bool {
            let scalar = Unicode.Scalar(byte)
            return byte < 0x80 && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                                   || scalar == "." || scalar == "_" || scalar == "-")
        }
        var allowedCount = 0
        for byte in UInt8.min...UInt8.max {
            if allowed(byte) { allowedCount += 1 }
            XCTAssertEqual(LocalKey.isKeyByte(byte), allowed(byte), "byte \(byte)")
            let text = String(decoding: [UInt8(ascii: "k")] + [byte] + Array("ey".utf8), as: UTF8.self)
            XCTAssertEqual(LocalKey.isValid(text), allowed(byte), "in the middle: byte \(byte)")
            let last = String(decoding: Array("key".utf8) + [byte], as: UTF8.self)
            XCTAssertEqual(LocalKey.isValid(last), allowed(byte), "at the end: byte \(byte)")
        }
        XCTAssertEqual(allowedCount, 26 + 26 + 10 + 3)
        XCTAssertFalse(LocalKey.isValid(".hidden"))
        XCTAssertFalse(LocalKey.isValid("-option"))
        XCTAssertTrue(LocalKey.isValid("_under"))
        XCTAssertTrue(LocalKey.isValid(String(repeating: "k", count: LocalKey.maximumLength)))
        XCTAssertFalse(LocalKey.isValid(String(repeating: "k", count: LocalKey.maximumLength + 1)))
        XCTAssertFalse(LocalKey.isValid(""))
    }

    /// The folder names earlier versions gave catalogs are found again: the hash written as
    /// Python's hashlib writes it.
    func testTheLegacyKeyAndHexAreAsEarlierVersionsWroteThem() throws {
        XCTAssertEqual(Hex.string([0x00, 0x0F, 0xA5, 0xFF]), "000fa5ff")
        XCTAssertEqual(Hex.string([UInt8]()), "")
        let url = try XCTUnwrap(URL(string: "https://example.com/feeds/Weekly-News.plist"))
        XCTAssertEqual(Library.legacyKey(for: url), "weeklynews-5ab22a4bdd")
    }
}
