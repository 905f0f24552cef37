import NewsstandKit

/// One screen of the shelf on the app's stack: it owns its state, answers keys and the mouse
/// with an action, and draws itself into a buffer.
protocol ShelfPage: AnyObject {
    /// Changes made by other threads (issues replaced, states changed), applied before a frame.
    func apply(_ changes: ShelfSignals.Changes)
    /// The page is on top again (a page above it was closed).
    func reappeared()
    /// Answers a key; ``PageAction/none`` when nothing on screen changed (no frame is drawn).
    func handle(_ key: Key) -> PageAction
    func handleMouse(_ action: MouseAction, x: Int, y: Int) -> PageAction
    /// Whether keys go to a prompt or an overlay now (Ctrl-D is then theirs, not a quit).
    var isTakingKeys: Bool { get }
    /// The state an overlay or a quit confirmation belongs to.
    var state: ShelfState { get set }
    func render(into buffer: inout Buffer)
}

extension ShelfPage {
    func apply(_ changes: ShelfSignals.Changes) {}
    func reappeared() {}
    var isTakingKeys: Bool { state.isEditingFilter || state.overlay != .none }
}

/// What a page asks of the app after an input.
enum PageAction {
    /// Nothing changed on screen.
    case none
    /// Something changed: draw a frame now.
    case redraw
    /// Opens a page on top.
    case push(any ShelfPage)
    /// Closes this page, back to the one below.
    case pop
    /// Replaces this page by another (the New view opened from a publication's issues).
    case replace(any ShelfPage)
}
