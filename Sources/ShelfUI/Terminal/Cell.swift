/// A terminal colour: the terminal's default, an index in the 256-colour palette (0–7 the basic
/// colours, 8–15 their bright forms, 16–255 the colour cube and greys), or 24-bit RGB, which only
/// a direct-colour terminal shows as such (others get the nearest palette colour).
public enum Color: Hashable, Sendable {
    case `default`
    case palette(UInt8)
    case rgb(UInt8, UInt8, UInt8)

    public static let black = Color.palette(0)
    public static let red = Color.palette(1)
    public static let green = Color.palette(2)
    public static let yellow = Color.palette(3)
    public static let blue = Color.palette(4)
    public static let magenta = Color.palette(5)
    public static let cyan = Color.palette(6)
    public static let white = Color.palette(7)

    /// The RGB value xterm gives a palette index (the cube and the grey ramp; its defaults for 0–15).
    public static func rgb(ofPalette index: UInt8) -> (UInt8, UInt8, UInt8) {
        let value = Int(index)
        if value < 16 {
            let basic: [(UInt8, UInt8, UInt8)] = [
                (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
                (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
            ]
            return basic[value]
        }
        if value >= 232 {
            let grey = UInt8(8 + (value - 232) * 10)
            return (grey, grey, grey)
        }
        let levels: [UInt8] = [0, 95, 135, 175, 215, 255]
        let cube = value - 16
        return (levels[cube / 36], levels[(cube / 6) % 6], levels[cube % 6])
    }
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
