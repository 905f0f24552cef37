/// How pictures reach a terminal that can show them.
public enum PictureProtocol: Sendable, Equatable {
    /// kitty's protocol with Unicode placeholders (kitty 0.28+, Ghostty): the picture's cells are
    /// text the terminal draws the image into, so curses draws and erases them like any text.
    case kittyPlaceholders
    /// kitty's protocol placed at the cursor (kitty before 0.28, Konsole, WezTerm): placements
    /// are deleted by ID when they go.
    case kittyDirect
    /// Sixel pixels written at the cursor, erased by writing the cells again.
    case sixel
    /// iTerm2's OSC 1337 inline images, like sixel.
    case iterm2

    /// Whether a picture is pixels written over cells (which only writing the cells erases),
    /// rather than something the terminal keeps and removes on its own.
    var paintsOverCells: Bool { self == .sixel || self == .iterm2 }
}

/// What the shelf knows of a terminal's pictures: the protocol, and the size of a cell in pixels.
public struct PictureSupport: Sendable, Equatable {
    public var pictureProtocol: PictureProtocol
    /// A cell's size in pixels, from the terminal's answer or its window size; nil when unknown.
    public var cellWidth: Int
    public var cellHeight: Int
    /// Inside tmux: escape sequences are wrapped for tmux to pass them to the outer terminal.
    public var throughTmux: Bool

    public init(pictureProtocol: PictureProtocol, cellWidth: Int = 10, cellHeight: Int = 20, throughTmux: Bool = false) {
        self.pictureProtocol = pictureProtocol
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.throughTmux = throughTmux
    }
}
