/// A line the shelf says in its status bar until the next key, in the style of its kind: a
/// confirmation does not look like an error.
public struct ShelfMessage: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// What is so, or what to do instead ("Already downloaded: Enter reads it.").
        case info
        /// What the key just did ("Marked 6 issues read.").
        case success
        /// Something the reader may want to know before going on.
        case warning
        /// What failed, and why.
        case error
    }

    public var kind: Kind
    public var text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    public static func info(_ text: String) -> ShelfMessage { ShelfMessage(.info, text) }
    public static func success(_ text: String) -> ShelfMessage { ShelfMessage(.success, text) }
    public static func warning(_ text: String) -> ShelfMessage { ShelfMessage(.warning, text) }
    public static func error(_ text: String) -> ShelfMessage { ShelfMessage(.error, text) }
}
