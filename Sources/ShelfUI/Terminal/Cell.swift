/// A terminal colour: the terminal's default, or an index in the 256-colour palette
/// (0–7 the basic colours, 8–15 their bright forms, 16–255 the colour cube and greys).
public enum Color: Hashable, Sendable {
    case `default`
    case palette(UInt8)

    public static let black = Color.palette(0)
    public static let red = Color.palette(1)
    public static let green = Color.palette(2)
    public static let yellow = Color.palette(3)
    public static let blue = Color.palette(4)
    public static let magenta = Color.palette(5)
    public static let cyan = Color.palette(6)
    public static let white = Color.palette(7)
}

/// How a cell is drawn.
public struct Style: Hashable, Sendable {
    public var foreground: Color = .default
    public var background: Color = .default
    public var bold = false
    public var dim = false
    public var reverse = false
    public var underline = false

    public init(foreground: Color = .default, background: Color = .default, bold: Bool = false,
                dim: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    public static let plain = Style()
}

/// One screen cell: a grapheme and its style. The cell right of a wide grapheme holds `""`.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style

    public init(_ text: String = " ", style: Style = .plain) {
        self.text = text
        self.style = style
    }

    public static let blank = Cell()
    /// The second half of a wide grapheme.
    static let continuation = Cell("")
    public var isContinuation: Bool { text.isEmpty }
}
