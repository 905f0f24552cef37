/// The shelf's interaction state: selection, scrolling, filter, sort and what is open on top.
/// Kept apart from the views, which only read it.
public struct ShelfState: Sendable, Equatable {
    /// What covers the shelf, if anything.
    public enum Overlay: Sendable, Equatable {
        case none
        case help
        case confirmDelete(id: String, title: String)
        case confirmQuit(activeDownloads: Int)
        /// Marking every issue of `title` read: `count` are unread.
        case confirmMarkRead(title: String, count: Int)
    }

    /// Index of the selected card in the filtered, sorted list.
    public var selected = 0 {
        // Another card's details start at their top.
        didSet { if selected != oldValue { detailsOffset = 0 } }
    }
    /// Lines of the details pane scrolled off its top (`[` and `]`, the wheel over the pane).
    public var detailsOffset = 0
    /// The first visible row of cards.
    public var firstRow = 0
    public var filter = ""
    /// Whether the filter prompt is open and taking keys.
    public var isEditingFilter = false
    public var sort = SortOrder.date
    public var overlay = Overlay.none
    /// A one-line message in the status line until the next key (an opener failure, say).
    public var message: ShelfMessage?

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

    /// Moves the selection for a movement key (arrows, vi keys, pages, ends: never rebound) in a
    /// grid of `count` items; says whether the key was one.
    public mutating func move(_ key: Key, count: Int, columns: Int, visibleRows: Int) -> Bool {
        let columns = max(1, columns)
        let page = columns * max(1, visibleRows)
        let offset: Int
        switch key {
        case .left, .character("h"): offset = -1
        case .right, .character("l"): offset = 1
        case .up, .character("k"): offset = -columns
        case .down, .character("j"): offset = columns
        case .pageUp: offset = -page
        case .pageDown: offset = page
        case .home, .character("g"): offset = -selected
        case .end, .character("G"): offset = count - 1 - selected
        default: return false
        }
        if count > 0 { selected = min(max(0, selected + offset), count - 1) }
        return true
    }

    /// Applies a key to the open filter prompt; says whether the filter changed (the list is to
    /// be filtered again).
    public mutating func editFilter(_ key: Key) -> Bool {
        switch key {
        case .enter:
            isEditingFilter = false
            selected = 0
            firstRow = 0
            return false
        case .escape:
            isEditingFilter = false
            filter = ""
            return true
        case .backspace, .delete:
            guard !filter.isEmpty else { return false }
            filter.removeLast()
            return true
        case .character(let character):
            filter.append(character)
            selected = 0
            return true
        default:
            return false
        }
    }

    /// What a key said to the overlay on top, which it closes.
    public enum OverlayAnswer: Sendable, Equatable {
        case dismissed
        case quit
        case delete(address: String)
        case markAllRead
    }

    /// Closes the overlay with `key`: `y` (or Enter) confirms; `q` confirms quitting too.
    public mutating func answerOverlay(_ key: Key) -> OverlayAnswer {
        let yes = key == .character("y") || key == .character("Y") || key == .enter
        defer { overlay = .none }
        switch overlay {
        case .confirmDelete(let address, _) where yes: return .delete(address: address)
        case .confirmQuit where yes || key == .character("q"): return .quit
        case .confirmMarkRead where yes: return .markAllRead
        default: return .dismissed
        }
    }
}

