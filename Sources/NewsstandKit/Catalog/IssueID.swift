/// The rules that make an issue ID safe to use as a file name.
public enum IssueID {
    /// The longest ID accepted, in bytes.
    public static let maximumLength = 100

    /// Whether an ID may become a folder name in the library.
    ///
    /// Allowed: ASCII letters, digits, `.`, `_` and `-`, not starting with `.` or `-`,
    /// at most ``maximumLength`` bytes. Anything else (slashes, `..`, control characters,
    /// spaces, non-ASCII letters that file systems normalise differently) is refused.
    public static func isValid(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
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
