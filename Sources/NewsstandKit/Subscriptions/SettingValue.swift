import Foundation

/// A value as given: text, or a whole number (the config file's integers).
public enum SettingValue: Sendable, Equatable {
    case text(String)
    case integer(Int)

    /// A number of bytes: an integer, or a size as people write it (`2 GiB`, `500 MB`).
    var size: Int64? {
        switch self {
        case .integer(let count): return count >= 0 ? Int64(count) : nil
        case .text(let text): return ByteSize.parse(text)
        }
    }
}
