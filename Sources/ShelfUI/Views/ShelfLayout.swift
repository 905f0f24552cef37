/// Where everything goes on a screen of a given size: header, grid of cards, details, status.
///
/// The details pane stands at the right only when three columns of cards still fit beside it,
/// else it goes below the cards when a strip is left over, else away; on a screen too short for
/// two rows of cards, the cards are compact (a shorter cover) so that two rows fit: 80×24 shows
/// eight cards, not two.
public struct ShelfLayout: Sendable, Equatable {
    public static let cardWidth = 18
    /// A card's height with its full cover.
    public static let cardHeight = 14
    /// A compact card's height: three rows less of cover.
    static let compactCardHeight = 11
    static let detailsWidth = 32
    static let columnsBesideDetails = 3
    static let stripHeight = 4

    public let width: Int
    public let height: Int
    public let header: Rect
    public let status: Rect
    public let grid: Rect
    /// The details pane: at the right on a wide screen, a strip at the bottom on a tall one.
    public let details: Rect?
    public let columns: Int
    public let visibleRows: Int
    /// The height of every card on this screen.
    public let cardHeight: Int
    /// Rows of each card's cover (none in the list view).
    public let coverRows: Int
    /// Cards, or a line each.
    public let mode: ShelfSettings.ViewMode
    /// The list view's closing line, which counts the lines above and below the screen: the
    /// strip's top border when there is a strip, else a line of its own under the list.
    public let listRule: Rect?
    /// The width of a card, or of a line in the list view.
    public let itemWidth: Int
    let gap: Int

    /// A list view's lines are at least this wide, and leave the side pane this much.
    static let listMinimumWidth = 20
    static let listWidthBesideDetails = 80
    static let listRowsAboveStrip = 18

    public init(width: Int, height: Int, mode: ShelfSettings.ViewMode = .grid) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.mode = mode
        header = Rect(x: 0, y: 0, width: width, height: min(1, height))
        status = Rect(x: 0, y: max(1, height - 1), width: width, height: height >= 2 ? 1 : 0)
        let gridHeight = max(0, height - 2)
        var grid = Rect(x: 0, y: 1, width: width, height: gridHeight)
        if mode == .list {
            if width >= Self.listWidthBesideDetails + Self.detailsWidth {
                grid.width -= Self.detailsWidth
                details = Rect(x: width - Self.detailsWidth, y: 1, width: Self.detailsWidth, height: gridHeight)
            } else if gridHeight >= Self.listRowsAboveStrip + Self.stripHeight {
                details = Rect(x: 0, y: height - 1 - Self.stripHeight, width: width, height: Self.stripHeight)
                grid.height -= Self.stripHeight
            } else {
                details = nil
            }
            if let details, details.y > grid.y {
                listRule = Rect(x: 0, y: details.y, width: width, height: 1)
            } else {
                grid.height = max(0, grid.height - 1)
                listRule = grid.height > 0 ? Rect(x: grid.x, y: grid.maxY, width: grid.width, height: 1) : nil
            }
            self.grid = grid
            (cardHeight, coverRows, gap) = (1, 0, 0)
            columns = grid.width >= Self.listMinimumWidth ? 1 : 0
            itemWidth = grid.width
            visibleRows = grid.height
            return
        }
        itemWidth = Self.cardWidth
        listRule = nil
        let besideDetails = Self.columnsBesideDetails * (Self.cardWidth + 2) - 2 + Self.detailsWidth
        if width >= besideDetails { grid.width -= Self.detailsWidth }
        let fullRows = gridHeight / Self.cardHeight
        cardHeight = fullRows < 2 && gridHeight / Self.compactCardHeight > fullRows ? Self.compactCardHeight : Self.cardHeight
        coverRows = CardView.coverRows - (Self.cardHeight - cardHeight)
        let rows = gridHeight / cardHeight
        if width >= besideDetails {
            details = Rect(x: width - Self.detailsWidth, y: 1, width: Self.detailsWidth, height: gridHeight)
        } else if rows >= 1 && gridHeight - rows * cardHeight >= Self.stripHeight {
            details = Rect(x: 0, y: height - 1 - Self.stripHeight, width: width, height: Self.stripHeight)
            grid.height -= Self.stripHeight
        } else {
            details = nil
        }
        self.grid = grid
        columns = grid.width / Self.cardWidth
        visibleRows = grid.height / cardHeight
        gap = columns > 1 ? min(2, (grid.width - columns * Self.cardWidth) / (columns - 1)) : 0
    }

    /// Whether at least one card fits.
    public var fitsACard: Bool { columns >= 1 && visibleRows >= 1 }

    /// The card at a position in the visible grid (row relative to the first visible one).
    public func cardRect(column: Int, row: Int) -> Rect {
        Rect(x: grid.x + column * (itemWidth + gap), y: grid.y + row * cardHeight, width: itemWidth, height: cardHeight)
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
