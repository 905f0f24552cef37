import Crypto
import Foundation

/// The safe folder name an issue gets from its publisher's ID.
///
/// A publisher's ID is data (`2026-01`, `urn:uuid:…`, `http://example.com/issues/7`); only its
/// local key ever becomes a path. An ID that is already a safe file name is its own key, so a
/// reader can find it on disk; any other gets a readable stem and a short, stable hash.
public enum LocalKey {
    /// The longest key, in bytes.
    public static let maximumLength = 100

    /// The key for a publisher's ID.
    public static func make(for id: String) -> String {
        if isValid(id) { return id }
        var id = id
        // Hashed and cut from the ID's own bytes: a catalog of 10,000 `urn:uuid:` IDs makes as
        // many keys, and copies of each ID on the way were a third of checking the catalog.
        let (hash, shortStem) = id.withUTF8 { bytes -> (String, String?) in
            (Self.hexPrefix(SHA256.hash(data: UnsafeRawBufferPointer(bytes))), Self.asciiStem(bytes))
        }
        if let shortStem {
            return (shortStem.isEmpty ? "issue" : shortStem) + "-" + hash
        }
        // Not ASCII: by Characters, as keys have always been made (a key names a folder on disk).
        let tail = id.split(whereSeparator: { $0 == ":" || $0 == "/" }).last.map(String.init) ?? ""
        let stem = String(tail.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            .prefix(40).map(Character.init)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return (stem.isEmpty ? "issue" : stem) + "-" + hash
    }

    /// The stem of an ASCII ID, byte by byte (a catalog of 10,000 `urn:uuid:` IDs spent half its
    /// load in the Character-based path): the last segment after `:` or `/`, its letters,
    /// digits and `-`, at most 40 of them, without `-` at either end. Nil when not ASCII.
    private static func asciiStem(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        var end = bytes.count
        // The last non-empty segment.
        while end > 0, bytes[end - 1] == UInt8(ascii: ":") || bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        var start = end
        while start > 0, bytes[start - 1] != UInt8(ascii: ":"), bytes[start - 1] != UInt8(ascii: "/") { start -= 1 }
        var kept: [UInt8] = []
        kept.reserveCapacity(40)
        for byte in bytes[start..<end] where kept.count < 40 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"):
                kept.append(byte)
            default:
                break
            }
        }
        var first = 0, last = kept.count
        while first < last, kept[first] == UInt8(ascii: "-") { first += 1 }
        while last > first, kept[last - 1] == UInt8(ascii: "-") { last -= 1 }
        return String(decoding: kept[first..<last], as: UTF8.self)
    }

    private static func hexPrefix(_ digest: SHA256.Digest) -> String {
        digest.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: 10) { text in
                let digits: StaticString = "0123456789abcdef"
                for position in 0..<5 {
                    let byte = bytes[position]
                    text[2 * position] = digits.utf8Start[Int(byte >> 4)]
                    text[2 * position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                }
                return 10
            }
        }
    }

    /// Whether a text may be a folder name in the library.
    ///
    /// Allowed: ASCII letters, digits, `.`, `_` and `-`, not starting with `.` or `-`, at most
    /// ``maximumLength`` bytes. Anything else (slashes, `..`, control characters, spaces,
    /// non-ASCII letters that file systems normalise differently) is refused.
    public static func isValid(_ key: String) -> Bool {
        // Through the bytes' buffer: a catalog's keys are checked every time it is read.
        var key = key
        return key.withUTF8(isValid)
    }

    private static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= maximumLength else { return false }
        guard first != UInt8(ascii: ".") && first != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
