import CNcurses
import Foundation
import NewsstandKit

/// The real terminal, through ncursesw. The only file that imports the curses library.
///
/// Confined to the thread that created it (the shelf's main loop).
public final class CursesTerminal: Terminal {
    /// libncursesw's entry points, looked up when the first shelf starts (see CNcurses' shim for
    /// why it is opened rather than linked). Never closed: it lives as long as the process.
    struct Library: @unchecked Sendable {
        let entryPoints: UnsafePointer<cncurses_library>

        /// The soname of ncurses 6's wide-character library (Debian's libncursesw6).
        static let soname = "libncursesw.so.6"

        /// The process's ncursesw, or why the shelf cannot start without it.
        static let shared = open(soname)

        /// Opens `name`; the failure says what to install, and what works without it.
        static func open(_ name: String) -> Result<Library, Unavailable> {
            EntryPointTable.load(name, empty: cncurses_library(), { ncw_library_open($0, $1) }).map(Library.init).mapError { failure in
                Unavailable(message: "The shelf needs ncursesw (\(name)), which could not be loaded: \(TextSanitizer.inert(failure.reason)). Install it (on Debian: apt install libncursesw6), or use the commands (newsstand list, download, open).")
            }
        }
    }

    private let curses: UnsafePointer<cncurses_library>
    public private(set) var width: Int
    public private(set) var height: Int
    public let colorSupport: ColorSupport

    private var previous: Buffer?
    private var pairs: [ColorPairKey: Int32] = [:]
    private var ended = false
    private let colorCount: Int
    /// Pictures of covers, where the terminal shows them.
    private var pictures: PictureLayer?
    public var pictureStore: PictureStore? { pictures?.store }

    private struct ColorPairKey: Hashable {
        let foreground: Int32
        let background: Int32
    }

    /// Why the terminal cannot be taken over: `TERM` unset, or a type this system's terminfo
    /// does not describe (often a new terminal emulator's own name on a minimal install).
    public struct Unavailable: Error, Sendable {
        public let message: String
    }

    /// Takes over the terminal. `NO_COLOR` in the environment turns colours off.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(Unavailable) {
        let curses = try Library.shared.get().entryPoints
        self.curses = curses
        setlocale(LC_ALL, "")
        ncw_set_escdelay(curses, 25)
        guard let type = environment["TERM"], !type.isEmpty else {
            throw Unavailable(message: "TERM is not set, so the shelf cannot draw: run it in a terminal, or set TERM=xterm-256color.")
        }
        let wantsColor = (environment["NO_COLOR"] ?? "").isEmpty
        // A terminal that says it has 24-bit colour gets the direct-colour description of its
        // kind, when this system has it; else its own (256 colours at most).
        var opened = false
        if wantsColor, let direct = Self.directColorType(term: type, colorTerm: environment["COLORTERM"]) {
            opened = direct.withCString { ncw_newterm_type(curses, $0) } != nil
        }
        guard opened || ncw_newterm_stdio(curses) != nil else {
            throw Unavailable(message: "This system does not know the terminal type \(TextSanitizer.inert(type)): install its terminfo (Debian's ncurses-term has most), or run with TERM=xterm-256color.")
        }
        guard ncw_can_address_cursor(curses) != 0 else {
            ncw_endwin(curses)
            throw Unavailable(message: "The terminal type \(TextSanitizer.inert(type)) cannot place the cursor, which the shelf needs: run it in a terminal emulator (TERM=xterm-256color), or use the commands (newsstand list, download, open).")
        }
        ncw_cbreak(curses)
        ncw_noecho(curses)
        ncw_nonl(curses)
        ncw_intrflush(curses, ncw_stdscr(curses), false)
        ncw_keypad(curses, ncw_stdscr(curses), true)
        Self.defineCommonKeySequences(curses)
        ncw_curs_set(curses, 0)
        ncw_mousemask(curses, ncw_all_mouse_events(), nil)
        ncw_mouseinterval(curses, 200)
        if wantsColor && ncw_has_colors(curses) {
            ncw_start_color(curses)
            ncw_use_default_colors(curses)
            colorCount = Int(ncw_colors(curses))
            if ncw_has_rgb(curses) != 0 && colorCount >= 1 << 24 {
                colorSupport = .direct
            } else {
                colorSupport = colorCount >= 256 && ncw_color_pairs(curses) > 256 ? .palette256 : .basic
            }
        } else {
            colorCount = 0
            colorSupport = .none
        }
        width = Int(ncw_cols(curses))
        height = Int(ncw_lines(curses))
    }

    deinit {
        end()
    }

    /// Hands curses keys read before it started (typed while the terminal was being asked).
    public func pushBack(_ bytes: [UInt8]) {
        for byte in bytes.reversed() { ncw_ungetch(curses, Int32(byte)) }
    }

    /// Draws covers as pictures from now on, as `support` says the terminal shows them.
    public func showPictures(_ support: PictureSupport) {
        pictures = PictureLayer(store: PictureStore(support: support, colors: colorSupport))
    }

    /// What terminals send for Home, End, Page Up/Down and Delete whatever their terminfo says:
    /// tmux and screen send `ESC [1~` and `ESC [4~` for Home and End, which a `TERM` of
    /// `xterm-256color` inside them (a common setting) does not describe, so ncurses handed them
    /// over as Escape and three characters. Only sequences the terminfo leaves unbound are added.
    private static func defineCommonKeySequences(_ curses: UnsafePointer<cncurses_library>) {
        let sequences: [(String, Int32)] = [
            ("\u{1b}[1~", KEY_HOME), ("\u{1b}[7~", KEY_HOME), ("\u{1b}[H", KEY_HOME), ("\u{1b}OH", KEY_HOME),
            ("\u{1b}[4~", KEY_END), ("\u{1b}[8~", KEY_END), ("\u{1b}[F", KEY_END), ("\u{1b}OF", KEY_END),
            ("\u{1b}[5~", KEY_PPAGE), ("\u{1b}[6~", KEY_NPAGE), ("\u{1b}[3~", KEY_DC),
        ]
        for (sequence, code) in sequences where ncw_key_defined(curses, sequence) == 0 {
            ncw_define_key(curses, sequence, code)
        }
    }

    /// The direct-colour terminfo entry for a terminal whose `COLORTERM` says 24-bit (ncurses-term
    /// has xterm-direct, tmux-direct, kitty-direct, ...), or nil when it does not say so or `TERM`
    /// already is one (or the Linux console, which has 8 colours whatever it claims).
    static func directColorType(term: String, colorTerm: String?) -> String? {
        guard let colorTerm, ["truecolor", "24bit"].contains(colorTerm.lowercased()) else { return nil }
        guard !term.hasSuffix("-direct"), term != "linux", !term.isEmpty else { return nil }
        let kind = term.split(separator: "-").first.map(String.init) ?? term
        switch kind {
        case "tmux", "screen": return "tmux-direct"
        case "kitty", "alacritty", "konsole", "st", "mlterm", "iterm2", "vte", "mintty", "vscode": return kind + "-direct"
        case "gnome": return "vte-direct"
        default: return "xterm-direct"
        }
    }

    public func draw(_ buffer: Buffer) {
        guard !ended else { return }
        if previous?.width != buffer.width || previous?.height != buffer.height {
            previous = nil
            ncw_werase(curses, ncw_stdscr(curses))
            // Pictures written over cells stay until the screen is cleared.
            if pictures != nil { ncw_clearok(curses, ncw_stdscr(curses), true) }
        }
        let pictureFrame = pictures?.frame(for: buffer, repainted: previous == nil)
        let blanksPictures = !(pictures?.drawsPlaceholderCells ?? true)
        // Cells compared in place: a frame of 200 × 60 is 12,000 of them, and copying each (its
        // string retained and released) cost more than the comparison.
        let width = buffer.width
        let old = previous?.cells ?? []
        buffer.cells.withUnsafeBufferPointer { cells in
            old.withUnsafeBufferPointer { old in
                for y in 0..<buffer.height {
                    for x in 0..<width {
                        let index = y * width + x
                        if cells[index].isContinuation { continue }
                        if !old.isEmpty, old[index] == cells[index], !(x + 1 < width && old[index + 1] != cells[index + 1]) {
                            continue
                        }
                        // Under a picture drawn over cells, the cells are blank.
                        if blanksPictures && KittyGraphics.isPlaceholder(cells[index].text) {
                            put(.blank, x: x, y: y)
                        } else {
                            put(cells[index], x: x, y: y)
                        }
                    }
                }
            }
        }
        previous = buffer
        if let pictureFrame {
            writeRaw(pictureFrame.before)
            for row in pictureFrame.redrawRows.sorted() where row < buffer.height { ncw_wredrawln(curses, ncw_stdscr(curses), Int32(row), 1) }
        }
        ncw_wnoutrefresh(curses, ncw_stdscr(curses))
        ncw_doupdate(curses)
        if let pictureFrame, !pictureFrame.after.isEmpty {
            var bytes: [UInt8] = []
            for (x, y, picture) in pictureFrame.after {
                bytes += Array("\u{1B}[\(y + 1);\(x + 1)H".utf8) + picture
            }
            // Back where curses believes the cursor is: its next move may be relative.
            var cursorY: Int32 = 0, cursorX: Int32 = 0
            ncw_screen_cursor(curses, &cursorY, &cursorX)
            bytes += Array("\u{1B}[\(cursorY + 1);\(cursorX + 1)H".utf8)
            writeRaw(bytes)
        }
    }

    /// Writes bytes past curses, in order with what it has written (the same stream).
    private func writeRaw(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { ncw_write_raw($0.baseAddress, $0.count) }
    }

    private func put(_ cell: Cell, x: Int, y: Int) {
        // The bottom-right cell would scroll some terminals; curses handles it, but only with insch.
        var attributes = ncw_a_normal()
        if cell.style.bold { attributes |= ncw_a_bold() }
        if cell.style.dim { attributes |= ncw_a_dim() }
        if cell.style.reverse { attributes |= ncw_a_reverse() }
        if cell.style.underline { attributes |= ncw_a_underline() }
        var pair = colorPair(cell.style)
        var characters = Array(cell.text.unicodeScalars.prefix(5).map { wchar_t(bitPattern: $0.value) })
        characters.append(0)
        var character = cchar_t()
        ncw_setcchar(curses, &character, characters, attributes, 0, &pair)
        ncw_mvadd_wch(curses, Int32(y), Int32(x), &character)
    }

    private func colorPair(_ style: Style) -> Int32 {
        guard colorSupport != .none else { return 0 }
        let direct = colorSupport == .direct
        func packed(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> Int32 {
            // Direct colour reads numbers below 8 as the basic colours: keep black black-ish.
            max(8, Int32(red) << 16 | Int32(green) << 8 | Int32(blue))
        }
        func number(_ color: Color) -> Int32 {
            switch color {
            case .default:
                return -1
            case .palette(let index) where direct:
                if index < 8 { return Int32(index) }
                let (red, green, blue) = Color.rgb(ofPalette: index)
                return packed(red, green, blue)
            case .palette(let index):
                return Int(index) < colorCount ? Int32(index) : Int32(index % 8)
            case .rgb(let red, let green, let blue) where direct:
                return packed(red, green, blue)
            case .rgb(let red, let green, let blue):
                let index = Self.nearestPaletteIndex(red: red, green: green, blue: blue)
                return Int(index) < colorCount ? Int32(index) : Int32(index % 8)
            }
        }
        let key = ColorPairKey(foreground: number(style.foreground), background: number(style.background))
        if key.foreground == -1 && key.background == -1 { return 0 }
        if let pair = pairs[key] { return pair }
        var next = Int32(pairs.count + 1)
        if next >= ncw_color_pairs(curses) {
            // Out of pairs: start again; the next frame repaints with fresh ones.
            pairs.removeAll()
            previous = nil
            next = 1
        }
        ncw_init_extended_pair(curses, next, key.foreground, key.background)
        pairs[key] = next
        return next
    }

    /// The nearest colour of the 6×6×6 cube or the grey ramp.
    static func nearestPaletteIndex(red: UInt8, green: UInt8, blue: UInt8) -> UInt8 {
        func step(_ value: UInt8) -> Int { value < 48 ? 0 : value < 115 ? 1 : (Int(value) - 35) / 40 }
        let average = (Int(red) + Int(green) + Int(blue)) / 3
        if max(abs(Int(red) - average), abs(Int(green) - average), abs(Int(blue) - average)) < 12 {
            return average > 238 ? 231 : UInt8(232 + max(0, (average - 3) / 10))
        }
        return UInt8(16 + 36 * step(red) + 6 * step(green) + step(blue))
    }

    public func nextEvent(timeout: Double?, wakeDescriptor: Int32) -> InputEvent? {
        guard !ended else { return nil }
        if let resize = resizeIfNeeded() { return resize }
        // Input ncurses has already read from the terminal does not show up in poll().
        if let event = readEvent() { return event }
        var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        let milliseconds = timeout.map { Int32(max(0, min($0, 86_400) * 1000)) } ?? -1
        let ready = poll(&descriptors, 2, milliseconds)
        if let resize = resizeIfNeeded() { return resize }
        if ready < 0 { return readEvent() }
        if descriptors[0].revents != 0 {
            if descriptors[0].revents & Int16(POLLHUP | POLLERR) != 0 && descriptors[0].revents & Int16(POLLIN) == 0 {
                return .key(.character("\u{4}"))
            }
            return readEvent()
        }
        return nil
    }

    /// Compares the window's real size with the screen's, and adopts it when they differ.
    private func resizeIfNeeded() -> InputEvent? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        let columns = Int(size.ws_col), rows = Int(size.ws_row)
        guard columns != width || rows != height else { return nil }
        ncw_resizeterm(curses, Int32(rows), Int32(columns))
        width = columns
        height = rows
        previous = nil
        return .resize(width: columns, height: rows)
    }

    private func readEvent() -> InputEvent? {
        ncw_wtimeout(curses, ncw_stdscr(curses), 0)
        var character: wint_t = 0
        let result = ncw_wget_wch(curses, ncw_stdscr(curses), &character)
        if result == ERR { return nil }
        if result == KEY_CODE_YES {
            return functionKey(Int32(character))
        }
        switch character {
        case 13, 10: return .key(.enter)
        case 27: return skipTerminalReply() ? nil : .key(.escape)
        case 127, 8: return .key(.backspace)
        case 9: return .key(.tab)
        default:
            guard character >= 32, let scalar = Unicode.Scalar(UInt32(character)) else { return nil }
            return .key(.character(Character(scalar)))
        }
    }

    /// After an Escape: reads and drops the rest of what can only be a terminal's reply — a
    /// string (kitty's graphics `ESC _ G…`, XTVERSION's `ESC P…`, an OSC), a device-attributes
    /// answer (`CSI ? … c`) or a window report (`CSI … t`). The shelf asks before curses starts;
    /// a terminal slower than the deadline (a far ssh host, a terminal still starting) answers
    /// afterwards, and its letters (`?`, `c`, `G`) must not act as keys. False when the Escape
    /// was the key itself: nothing was read after it.
    private func skipTerminalReply() -> Bool {
        // A reply's bytes are written at once; a person's next key comes far later than this.
        ncw_wtimeout(curses, ncw_stdscr(curses), 30)
        defer { ncw_wtimeout(curses, ncw_stdscr(curses), 0) }
        func next() -> UInt32? {
            var character: wint_t = 0
            let result = ncw_wget_wch(curses, ncw_stdscr(curses), &character)
            // A key ncurses knew (an arrow, a resize, the mouse) is no part of a reply: it stays to be read.
            if result == KEY_CODE_YES { ncw_ungetch(curses, Int32(character)) }
            return result == ERR || result == KEY_CODE_YES ? nil : UInt32(character)
        }
        func unread(_ character: UInt32) { ncw_unget_wch(curses, wchar_t(character)) }
        guard let introducer = next() else { return false }
        switch introducer {
        case 0x5F, 0x50, 0x5D:  // _ P ]: a string, up to ST (ESC \) or BEL
            var previous: UInt32 = 0
            for _ in 0..<65_536 {
                guard let character = next() else { return true }
                if character == 0x07 || (previous == 27 && character == 0x5C) { return true }
                previous = character
            }
            return true
        case 0x5B:  // [: a control sequence, parameters then a final byte
            var parameters: [UInt32] = []
            while parameters.count < 64, let character = next() {
                if (0x40...0x7E).contains(character) {
                    let isReply = (character == 0x63 && parameters.first == 0x3F) || character == 0x74
                    if isReply { return true }
                    // Another sequence: given back whole for the keys to read (ncurses did not know it).
                    for byte in ([introducer] + parameters + [character]).reversed() { unread(byte) }
                    return false
                }
                parameters.append(character)
            }
            for byte in ([introducer] + parameters).reversed() { unread(byte) }
            return false
        default:
            unread(introducer)
            return false
        }
    }

    private func functionKey(_ code: Int32) -> InputEvent? {
        switch code {
        case KEY_UP: return .key(.up)
        case KEY_DOWN: return .key(.down)
        case KEY_LEFT: return .key(.left)
        case KEY_RIGHT: return .key(.right)
        case KEY_PPAGE: return .key(.pageUp)
        case KEY_NPAGE: return .key(.pageDown)
        case KEY_HOME: return .key(.home)
        case KEY_END: return .key(.end)
        case KEY_ENTER: return .key(.enter)
        case KEY_BACKSPACE: return .key(.backspace)
        case KEY_DC: return .key(.delete)
        case KEY_RESIZE:
            width = Int(ncw_cols(curses))
            height = Int(ncw_lines(curses))
            return .resize(width: width, height: height)
        case KEY_MOUSE:
            var event = MEVENT()
            guard ncw_getmouse(curses, &event) == OK else { return nil }
            let state = event.bstate
            let x = Int(event.x), y = Int(event.y)
            if state & ncw_button1_double_clicked() != 0 { return .mouse(.doubleClick, x: x, y: y) }
            if state & (ncw_button1_clicked() | ncw_button1_pressed()) != 0 { return .mouse(.click, x: x, y: y) }
            if state & ncw_button4_pressed() != 0 { return .mouse(.scrollUp, x: x, y: y) }
            if state & ncw_button5_pressed() != 0 { return .mouse(.scrollDown, x: x, y: y) }
            return nil
        default:
            return nil
        }
    }

    public func suspend() {
        guard !ended else { return }
        ncw_def_prog_mode(curses)
        ncw_endwin(curses)
    }

    public func resume() {
        guard !ended else { return }
        ncw_reset_prog_mode(curses)
        ncw_clearok(curses, ncw_stdscr(curses), true)
        previous = nil
        width = Int(ncw_cols(curses))
        height = Int(ncw_lines(curses))
    }

    public func end() {
        guard !ended else { return }
        ended = true
        // kitty keeps its pictures until told: the placements go with the shelf.
        if let support = pictures?.store.support, support.pictureProtocol == .kittyDirect || support.pictureProtocol == .kittyPlaceholders {
            let delete = Array("\u{1B}_Ga=d,d=a,q=2\u{1B}\\".utf8)
            writeRaw(support.throughTmux ? KittyGraphics.throughTmux(delete) : delete)
        }
        ncw_endwin(curses)
    }
}
