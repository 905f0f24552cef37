/// The shelf's interaction state: selection, scrolling, filter, sort and what is open on top.
/// Kept apart from the views, which only read it.
public struct ShelfState: Sendable, Equatable {
    /// What covers the shelf, if anything.
    public enum Overlay: Sendable, Equatable {
        case none
        case help
        case confirmDelete(id: String, title: String)
        case confirmQuit(activeDownloads: Int)
    }

    /// Index of the selected card in the filtered, sorted list.
    public var selected = 0
    /// The first visible row of cards.
    public var firstRow = 0
    public var filter = ""
    /// Whether the filter prompt is open and taking keys.
    public var isEditingFilter = false
    public var sort = SortOrder.date
    public var overlay = Overlay.none
    /// A one-line message in the status line until the next key (an opener failure, say).
    public var message: String?

    public init() {}

    /// Keeps `selected` within `count` items and scrolls so that it is visible.
    public mutating func clamp(count: Int, columns: Int, visibleRows: Int) {
        selected = count == 0 ? 0 : min(max(0, selected), count - 1)
        let columns = max(1, columns)
        let visibleRows = max(1, visibleRows)
        let row = selected / columns
        if row < firstRow { firstRow = row }
        if row >= firstRow + visibleRows { firstRow = row - visibleRows + 1 }
        let rows = (count + columns - 1) / columns
        firstRow = max(0, min(firstRow, max(0, rows - visibleRows)))
    }
}
