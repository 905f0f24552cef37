/// Where everything goes on a screen of a given size: header, grid of cards, details, status.
public struct ShelfLayout: Sendable, Equatable {
    public static let cardWidth = 18
    public static let cardHeight = 14
    static let detailsWidth = 32

    public let width: Int
    public let height: Int
    public let header: Rect
    public let status: Rect
    public let grid: Rect
    /// The details pane: at the right on a wide screen, a strip at the bottom on a tall one.
    public let details: Rect?
    public let columns: Int
    public let visibleRows: Int
    let gap: Int

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        header = Rect(x: 0, y: 0, width: width, height: min(1, height))
        status = Rect(x: 0, y: max(1, height - 1), width: width, height: height >= 2 ? 1 : 0)
        var grid = Rect(x: 0, y: 1, width: width, height: height - 2)
        if width >= Self.cardWidth * 2 + Self.detailsWidth {
            details = Rect(x: width - Self.detailsWidth, y: 1, width: Self.detailsWidth, height: height - 2)
            grid.width -= Self.detailsWidth
        } else if height >= Self.cardHeight + 2 + 4 {
            details = Rect(x: 0, y: height - 5, width: width, height: 4)
            grid.height -= 4
        } else {
            details = nil
        }
        self.grid = grid
        columns = grid.width / Self.cardWidth
        visibleRows = grid.height / Self.cardHeight
        gap = columns > 1 ? min(2, (grid.width - columns * Self.cardWidth) / (columns - 1)) : 0
    }

    /// Whether at least one card fits.
    public var fitsACard: Bool { columns >= 1 && visibleRows >= 1 }

    /// The card at a position in the visible grid (row relative to the first visible one).
    public func cardRect(column: Int, row: Int) -> Rect {
        Rect(x: grid.x + column * (Self.cardWidth + gap), y: grid.y + row * Self.cardHeight,
             width: Self.cardWidth, height: Self.cardHeight)
    }

    /// The index of the card under a cell, given the first visible row.
    public func itemIndex(atX x: Int, y: Int, firstRow: Int) -> Int? {
        guard fitsACard, grid.contains(x: x, y: y) else { return nil }
        for row in 0..<visibleRows {
            for column in 0..<columns where cardRect(column: column, row: row).contains(x: x, y: y) {
                return (firstRow + row) * columns + column
            }
        }
        return nil
    }

    /// The range of item indices on screen.
    public func visibleRange(firstRow: Int, count: Int) -> Range<Int> {
        guard fitsACard else { return 0..<0 }
        let start = min(count, firstRow * columns)
        return start..<min(count, start + columns * visibleRows)
    }
}
