import Foundation
import NewsstandKit

/// Asks the terminal what pictures it can show, before curses takes it over: kitty's graphics
/// query, the cell size in pixels, XTVERSION, then Primary Device Attributes, which every
/// terminal answers — so the wait ends at that answer, or at the deadline for one that answers
/// nothing. Inside tmux the outer terminal is named by tmux itself.
public enum TerminalGraphicsProbe {
    /// What the terminal said.
    public struct Answers: Sendable, Equatable {
        /// It answered kitty's query: it has kitty's graphics protocol.
        public var kitty = false
        /// Primary Device Attributes' parameters (4: sixel); nil when it never answered.
        public var deviceAttributes: [Int]?
        /// A cell's size in pixels (`CSI 16 t`).
        public var cellSize: (width: Int, height: Int)?
        /// XTVERSION's name and version ("kitty(0.26.5)", "XTerm(379)").
        public var version: String?

        public init() {}

        public static func == (a: Answers, b: Answers) -> Bool {
            a.kitty == b.kitty && a.deviceAttributes == b.deviceAttributes && a.version == b.version
                && a.cellSize?.width == b.cellSize?.width && a.cellSize?.height == b.cellSize?.height
        }
    }

    /// How long a terminal that answers nothing delays the first frame: every terminal that
    /// shows pictures answers within a round trip.
    public static let deadline = 0.25

    /// The deadline for a terminal reached through ssh: its answers cross the network, and a far
    /// host (a phone's connection on a train) takes longer than ``deadline`` for the round trip.
    /// A reply that misses it is dropped by the shelf's keys, so the wait is made long enough.
    public static let remoteDeadline = 1.0

    /// How long to wait for the answers, by what the environment says of the terminal.
    public static func deadline(environment: [String: String]) -> Double {
        let remote = ["SSH_TTY", "SSH_CONNECTION", "SSH_CLIENT"].contains { !(environment[$0] ?? "").isEmpty }
        return remote ? remoteDeadline : deadline
    }

    /// The queries, DA1 last.
    static let queries = "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\" + "\u{1B}[16t" + "\u{1B}[>0q" + "\u{1B}[c"

    /// How pictures are drawn for `choice`, nil for symbols; `ask` puts the questions to the
    /// terminal (a test gives its own), `tmux` answers for tmux's outer terminal.
    public static func support(for choice: CoverGraphics, environment: [String: String], colors: ColorSupport,
                               ask: () -> Answers?, tmux: () -> (terminal: String, passthrough: Bool)?) -> PictureSupport? {
        switch choice {
        case .symbols, .off: return nil
        case .auto where colors == .none: return nil
        default: break
        }
        var support: PictureSupport?
        if environment["TMUX"] != nil {
            // Only kitty's placeholders pass tmux: cells tmux itself keeps, the upload passed through.
            guard let outer = tmux(), outer.passthrough else { return nil }
            let kittyOutside = outer.terminal.contains("kitty") || outer.terminal.contains("ghostty")
            guard choice == .kitty || (choice == .auto && kittyOutside) else { return nil }
            return PictureSupport(pictureProtocol: .kittyPlaceholders, throughTmux: true)
        }
        let answers = ask()
        let name = (answers?.version ?? "").lowercased()
        let kittyProtocol: PictureProtocol = placeholdersKnown(name) ? .kittyPlaceholders : .kittyDirect
        switch choice {
        case .kitty: support = PictureSupport(pictureProtocol: kittyProtocol)
        case .sixel: support = PictureSupport(pictureProtocol: .sixel)
        case .iterm2: support = PictureSupport(pictureProtocol: .iterm2)
        default:
            if answers?.kitty == true {
                support = PictureSupport(pictureProtocol: kittyProtocol)
            } else if answers?.deviceAttributes?.contains(4) == true {
                support = PictureSupport(pictureProtocol: .sixel)
            } else if ["iTerm.app", "WezTerm"].contains(environment["TERM_PROGRAM"] ?? "") || environment["LC_TERMINAL"] == "iTerm2" {
                support = PictureSupport(pictureProtocol: .iterm2)
            }
        }
        if let size = answers?.cellSize ?? windowCellSize(), size.width > 0, size.height > 0 {
            support?.cellWidth = size.width
            support?.cellHeight = size.height
        }
        return support
    }

    /// Whether XTVERSION's answer names a terminal with kitty's Unicode placeholders (kitty 0.28
    /// and later, Ghostty); any other (or none) gets pictures placed at the cursor.
    static func placeholdersKnown(_ version: String) -> Bool {
        if version.hasPrefix("ghostty") { return true }
        guard version.hasPrefix("kitty("), let close = version.firstIndex(of: ")") else { return false }
        let numbers = version[version.index(version.startIndex, offsetBy: 6)..<close].split(separator: ".").compactMap { Int($0) }
        guard numbers.count >= 2 else { return false }
        return numbers[0] > 0 || numbers[1] >= 28
    }

    /// Puts the queries to the terminal on `input` / `output` and reads the answers until DA1's
    /// or `deadline` seconds; the terminal is in raw mode meanwhile. Anything else read (keys
    /// typed meanwhile) is handed back in `typed`.
    public static func ask(input: Int32, output: Int32, deadline: Double) -> (answers: Answers?, typed: [UInt8]) {
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return (nil, []) }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw.c_cc.6 = 0  // VMIN
        raw.c_cc.5 = 0  // VTIME
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { return (nil, []) }
        defer { tcsetattr(input, TCSANOW, &saved) }
        let query = Array(queries.utf8)
        guard query.withUnsafeBytes({ write(output, $0.baseAddress, $0.count) }) == query.count else { return (nil, []) }
        var received: [UInt8] = []
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(deadline * 1e9)
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let parsed = parse(received)
            if parsed.complete { return (parsed.answers, parsed.typed) }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < end, received.count < 65_536 else { return (nil, parsed.typed) }
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, (end - now) / 1_000_000)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = read(input, &buffer, buffer.count)
            if count <= 0 { return (nil, parsed.typed) }
            received += buffer[0..<count]
        }
    }

    /// Reads answers out of `bytes`: complete once DA1's answer is in. Bytes that are no answer
    /// are keys typed meanwhile.
    static func parse(_ bytes: [UInt8]) -> (answers: Answers, complete: Bool, typed: [UInt8]) {
        var answers = Answers()
        var typed: [UInt8] = []
        var index = 0
        let escape: UInt8 = 0x1B
        func sequence(from start: Int, endingWith terminator: (Int) -> Int?) -> (body: ArraySlice<UInt8>, next: Int)? {
            var cursor = start
            while cursor < bytes.count {
                if let length = terminator(cursor) { return (bytes[start..<cursor], cursor + length) }
                cursor += 1
            }
            return nil
        }
        // ST: ESC \ (or BEL).
        let stringTerminator: (Int) -> Int? = { at in
            if bytes[at] == 0x07 { return 1 }
            return bytes[at] == escape && at + 1 < bytes.count && bytes[at + 1] == UInt8(ascii: "\\") ? 2 : nil
        }
        while index < bytes.count {
            guard bytes[index] == escape, index + 1 < bytes.count else {
                if bytes[index] != escape { typed.append(bytes[index]) }
                index += 1
                continue
            }
            let kind = bytes[index + 1]
            if kind == UInt8(ascii: "_") {
                // kitty: ESC _ G i=31;OK ESC \ (or an error: the protocol is there either way).
                guard let found = sequence(from: index + 2, endingWith: stringTerminator) else { break }
                if found.body.first == UInt8(ascii: "G") { answers.kitty = true }
                index = found.next
            } else if kind == UInt8(ascii: "P") {
                // XTVERSION: ESC P > | name ESC \
                guard let found = sequence(from: index + 2, endingWith: stringTerminator) else { break }
                let body = String(decoding: found.body, as: UTF8.self)
                if body.hasPrefix(">|") { answers.version = String(body.dropFirst(2)) }
                index = found.next
            } else if kind == UInt8(ascii: "[") {
                // CSI: parameters, then a final byte from @ to ~.
                guard let found = sequence(from: index + 2, endingWith: { bytes[$0] >= 0x40 && bytes[$0] <= 0x7E ? 1 : nil }) else { break }
                let final = bytes[found.next - 1]
                let parameters = String(decoding: found.body, as: UTF8.self)
                if final == UInt8(ascii: "c"), parameters.hasPrefix("?") {
                    answers.deviceAttributes = parameters.dropFirst().split(separator: ";").compactMap { Int($0) }
                    return (answers, true, typed + bytes[found.next...].filter { $0 != escape })
                } else if final == UInt8(ascii: "t") {
                    let numbers = parameters.split(separator: ";").compactMap { Int($0) }
                    if numbers.count == 3, numbers[0] == 6 { answers.cellSize = (numbers[2], numbers[1]) }
                } else {
                    // A key's sequence (an arrow typed meanwhile): handed back whole.
                    typed += bytes[index..<found.next]
                }
                index = found.next
            } else {
                typed += bytes[index...(index + 1)]
                index += 2
            }
        }
        return (answers, false, typed)
    }

    /// A cell's size from the window's size in pixels, where the terminal reports it.
    static func windowCellSize() -> (width: Int, height: Int)? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0, size.ws_xpixel > 0, size.ws_ypixel > 0
        else { return nil }
        return (Int(size.ws_xpixel) / Int(size.ws_col), Int(size.ws_ypixel) / Int(size.ws_row))
    }

    /// tmux's outer terminal and whether it passes sequences through, asked of tmux itself.
    public static func tmuxClient() -> (terminal: String, passthrough: Bool)? {
        guard let terminal = Subprocess.output(of: ["tmux", "display-message", "-p", "#{client_termname}"]) else { return nil }
        let passthrough = Subprocess.output(of: ["tmux", "show-options", "-Apqv", "allow-passthrough"]) ?? ""
        return (terminal.trimmingCharacters(in: .whitespacesAndNewlines),
                ["on", "all"].contains(passthrough.trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}
