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
        // The stem: the ID's last segment (after `:` or `/`), letters and digits only.
        let tail = id.split(whereSeparator: { $0 == ":" || $0 == "/" }).last.map(String.init) ?? ""
        let stem = String(tail.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            .prefix(40).map(Character.init)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        let hash = SHA256.hash(data: Data(id.utf8)).prefix(5).map { String(format: "%02x", $0) }.joined()
        return (stem.isEmpty ? "issue" : stem) + "-" + hash
    }

    /// Whether a text may be a folder name in the library.
    ///
    /// Allowed: ASCII letters, digits, `.`, `_` and `-`, not starting with `.` or `-`, at most
    /// ``maximumLength`` bytes. Anything else (slashes, `..`, control characters, spaces,
    /// non-ASCII letters that file systems normalise differently) is refused.
    public static func isValid(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        guard bytes[0] != UInt8(ascii: ".") && bytes[0] != UInt8(ascii: "-") else { return false }
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
