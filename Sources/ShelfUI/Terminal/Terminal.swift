/// What a terminal can show.
public enum ColorSupport: Sendable, Comparable {
    /// No colour: NO_COLOR is set, or the terminal has none. Attributes only.
    case none
    /// The eight basic colours.
    case basic
    /// The 256-colour palette: covers in the 240 colours above the first 16.
    case palette256
    /// 24-bit colour (ncurses' direct colour): covers in their own colours.
    case direct
}

/// A key the shelf understands.
public enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab
}

/// A mouse action at a cell.
public enum MouseAction: Hashable, Sendable {
    case click, doubleClick, scrollUp, scrollDown
}

/// Something the user did, or the terminal reported.
public enum InputEvent: Hashable, Sendable {
    case key(Key)
    case mouse(MouseAction, x: Int, y: Int)
    case resize(width: Int, height: Int)
}

/// A screen the shelf draws on: ncurses in the program, an in-memory double in tests.
///
/// An implementation must draw only the cells that changed since the last `draw`, must survive
/// any size down to 1×1, and must restore the terminal in `end()`.
public protocol Terminal: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var colorSupport: ColorSupport { get }

    /// Shows `buffer`, writing only what differs from the previous frame.
    func draw(_ buffer: Buffer)

    /// Waits up to `timeout` seconds (forever when nil) for input, or for `wakeDescriptor` to
    /// become readable; returns nil on a wake-up or a time-out.
    func nextEvent(timeout: Double?, wakeDescriptor: Int32) -> InputEvent?

    /// Leaves the full-screen mode so another program can use the terminal.
    func suspend()
    /// Returns to full-screen mode after `suspend()`; the next draw repaints everything.
    func resume()
    /// Restores the terminal for good.
    func end()

    /// Where the pictures of covers are kept for this terminal; nil where covers are symbols.
    var pictureStore: PictureStore? { get }
}

extension Terminal {
    public var pictureStore: PictureStore? { nil }
}
