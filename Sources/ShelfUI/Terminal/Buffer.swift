import NewsstandKit

/// A screen's worth of cells that views render into. Every write is clipped to the buffer
/// (and to an optional area), so a view can never draw outside it, even at 1×1.
public struct Buffer: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    /// Pictures drawn whole into the cells, top-left corner and size: where the terminal looks
    /// for them, rather than in every cell of every frame. A picture drawn over later (a
    /// dialog) is still listed; its cells say it is no longer whole.
    var pictures: [PictureLayer.Placement] = []

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public var area: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    public subscript(x: Int, y: Int) -> Cell {
        guard x >= 0, x < width, y >= 0, y < height else { return .blank }
        return cells[y * width + x]
    }

    public mutating func set(_ x: Int, _ y: Int, _ cell: Cell) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let index = y * width + x
        // Overwriting half of a wide grapheme blanks its other half.
        if cells[index].isContinuation, x > 0 { cells[index - 1] = Cell(" ", style: cells[index - 1].style) }
        if x + 1 < width, cells[index + 1].isContinuation, !cell.isContinuation || DisplayWidth.of(cells[index].text) == 2 {
            cells[index + 1] = Cell(" ", style: cells[index + 1].style)
        }
        cells[index] = cell
    }

    /// Fills a rectangle with one cell.
    public mutating func fill(_ rect: Rect, with cell: Cell = .blank) {
        let clipped = rect.intersection(area)
        guard !clipped.isEmpty else { return }
        for y in clipped.y..<clipped.maxY {
            for x in clipped.x..<clipped.maxX { cells[y * width + x] = cell }
        }
    }

    /// Writes text from (x, y), made inert and cut to `clip`'s right edge; returns the columns used.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .plain, clip: Rect? = nil) -> Int {
        let bounds = (clip ?? area).intersection(area)
        guard y >= bounds.y, y < bounds.maxY else { return 0 }
        var column = x
        // Cell by cell as ncurses would place them (see DisplayWidth.cells(of:)).
        outer: for character in TextSanitizer.inert(text) {
            for (piece, pieceWidth) in character.isASCII ? [(String(character), 1)] : DisplayWidth.cells(of: character) {
                if pieceWidth == 0 { continue }
                if column + pieceWidth > bounds.maxX { break outer }
                if column >= bounds.x {
                    set(column, y, Cell(piece, style: style))
                    if pieceWidth == 2 { set(column + 1, y, Cell.continuation) }
                }
                column += pieceWidth
            }
        }
        return column - x
    }

    /// Draws a box with line characters.
    public mutating func box(_ rect: Rect, style: Style = .plain, heavy: Bool = false) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let (h, v, tl, tr, bl, br) = heavy ? ("━", "┃", "┏", "┓", "┗", "┛") : ("─", "│", "┌", "┐", "└", "┘")
        for x in rect.x + 1..<rect.maxX - 1 {
            set(x, rect.y, Cell(h, style: style))
            set(x, rect.maxY - 1, Cell(h, style: style))
        }
        for y in rect.y + 1..<rect.maxY - 1 {
            set(rect.x, y, Cell(v, style: style))
            set(rect.maxX - 1, y, Cell(v, style: style))
        }
        set(rect.x, rect.y, Cell(tl, style: style))
        set(rect.maxX - 1, rect.y, Cell(tr, style: style))
        set(rect.x, rect.maxY - 1, Cell(bl, style: style))
        set(rect.maxX - 1, rect.maxY - 1, Cell(br, style: style))
    }

    /// Each row as a terminal would be sent it, with `⎋` for ESC: an SGR sequence before every
    /// change of style (24-bit `38;2;R;G;B`, palette `38;5;N`, basic `3N`), for snapshot tests of
    /// colour. Trailing plain spaces are removed.
    public func ansiLines() -> [String] {
        (0..<height).map { y in
            var line = ""
            var current = Style.plain
            var pendingSpaces = ""
            for x in 0..<width where !cells[y * width + x].isContinuation {
                let cell = cells[y * width + x]
                if cell.style == .plain && cell.text == " " && current == .plain {
                    pendingSpaces += " "
                    continue
                }
                line += pendingSpaces
                pendingSpaces = ""
                if cell.style != current {
                    line += Self.sgr(cell.style)
                    current = cell.style
                }
                line += cell.text
            }
            if current != .plain { line += "⎋[0m" }
            return line
        }
    }

    private static func sgr(_ style: Style) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.underline { codes.append("4") }
        if style.reverse { codes.append("7") }
        func color(_ color: Color, base: Int) -> String? {
            switch color {
            case .default: return nil
            case .palette(let index) where index < 8: return String(base + Int(index))
            case .palette(let index) where index < 16: return String(base + 60 + Int(index) - 8)
            case .palette(let index): return "\(base + 8);5;\(index)"
            case .rgb(let red, let green, let blue): return "\(base + 8);2;\(red);\(green);\(blue)"
            }
        }
        if let foreground = color(style.foreground, base: 30) { codes.append(foreground) }
        if let background = color(style.background, base: 40) { codes.append(background) }
        return "⎋[" + codes.joined(separator: ";") + "m"
    }

    /// The text of each row (wide graphemes once, trailing spaces removed), for snapshot tests.
    public func lines() -> [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width where !cells[y * width + x].isContinuation {
                line += cells[y * width + x].text
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
