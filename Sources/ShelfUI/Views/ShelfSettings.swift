import NewsstandKit

/// The shelf's keys and colours as the configuration sets them (`[keys]` and `[colors]` in
/// config.toml, which the core hands over as text): checked here, each mistake named with the
/// file, the line and the key.
public struct ShelfSettings: Sendable, Equatable {
    /// Something a key does on the shelf.
    public enum Action: String, Sendable, CaseIterable {
        case open, download, cancel, delete
        case toggleRead = "toggle-read", togglePin = "toggle-pin", markAllRead = "mark-all-read"
        case refresh, refreshAll = "refresh-all", newIssues = "new-issues"
        case filter, sort, help, back, quit
        case browse, subscribe
        case toggleView = "toggle-view"
        case detailsUp = "details-up", detailsDown = "details-down"

        /// The key it has unless the configuration says otherwise.
        public var defaultKeys: [String] {
            switch self {
            case .open: return ["enter"]
            case .download: return ["d"]
            case .cancel: return ["x"]
            case .delete: return ["D", "delete"]
            case .toggleRead: return ["m"]
            case .togglePin: return ["p"]
            case .markAllRead: return ["M"]
            case .refresh: return ["r"]
            case .refreshAll: return ["R"]
            case .newIssues: return ["n"]
            case .filter: return ["/"]
            case .sort: return ["s"]
            case .help: return ["?"]
            case .back: return ["backspace", "escape"]
            case .quit: return ["q"]
            case .browse: return ["b"]
            case .subscribe: return ["+"]
            case .toggleView: return ["v"]
            case .detailsUp: return ["["]
            case .detailsDown: return ["]"]
            }
        }
    }

    /// Keys that always move the selection and cannot be bound to anything else.
    public static let movementKeys: Set<String> = ["h", "j", "k", "l", "g", "G", "up", "down", "left", "right", "pageup", "pagedown", "home", "end"]
    /// The names of keys that are not one character.
    public static let namedKeys: Set<String> = ["enter", "escape", "backspace", "delete", "tab", "space"]

    /// A part of the shelf that has a colour.
    public enum Element: String, Sendable, CaseIterable {
        case header, status, statusWarning = "status-warning", statusSuccess = "status-success", statusError = "status-error"
        case border, selected, title, dim, free, paid
        case download, queued, progress, read, failure, key, unread
        case newBadge = "new-badge", unreadBadge = "unread-badge", pinBadge = "pin-badge"
    }

    /// `"FOREGROUND [on BACKGROUND] [bold] [dim] [reverse] [underline]"`: a change to an
    /// element's standard style (a colour not named keeps the standard one).
    public struct ColorSpec: Sendable, Equatable {
        public var foreground: Color?
        public var background: Color?
        public var bold = false
        public var dim = false
        public var reverse = false
        public var underline = false

        public init(foreground: Color? = nil, background: Color? = nil, bold: Bool = false, dim: Bool = false,
                    reverse: Bool = false, underline: Bool = false) {
            self.foreground = foreground
            self.background = background
            self.bold = bold
            self.dim = dim
            self.reverse = reverse
            self.underline = underline
        }
    }

    /// Each action's keys: the defaults, with the configuration's in place of an action's own.
    public private(set) var keys: [Action: [String]] = Dictionary(uniqueKeysWithValues: Action.allCases.map { ($0, $0.defaultKeys) })
    public var colors: [Element: ColorSpec] = [:]
    /// The view the shelf opens in when the reader has not chosen one with a key.
    public var view = ViewMode.grid
    /// How covers are drawn (`covers` in the configuration, `--covers`).
    public var covers = CoverGraphics.auto

    /// Covers in a grid, or a line for each publication or issue.
    public enum ViewMode: String, Sendable, CaseIterable {
        case grid, list

        public var other: ViewMode { self == .grid ? .list : .grid }
    }

    public init() {}

    /// The configuration's `[keys]` and `[colors]`, checked; a mistake is a configuration error
    /// naming the file, the line and the key, as the core names its own.
    public init(config: NewsstandConfig) throws(NewsstandError) {
        func fail(_ table: String, _ key: String, _ message: String) -> NewsstandError {
            NewsstandError(.configuration, "\(config.path):\(config.line(ofKey: key, inTable: table)): \(table).\(key): \(message)")
        }
        if let view = config.shelfView.flatMap(ViewMode.init(rawValue:)) { self.view = view }
        if let covers = config.shelfCovers.flatMap(CoverGraphics.init(rawValue:)) { self.covers = covers }
        for (name, keys) in config.shelfKeys.sorted(by: { $0.key < $1.key }) {
            guard let action = Action(rawValue: name) else {
                throw fail("keys", name, "no such action; the actions are \(Action.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if let problem = bind(action, to: keys) { throw fail("keys", name, problem) }
        }
        if let (key, first, second) = conflict() {
            let side = config.shelfKeys[second.rawValue] != nil ? second : first
            throw fail("keys", side.rawValue, "\(key) is bound to both \(first.rawValue) and \(second.rawValue).")
        }
        for (name, text) in config.shelfColors.sorted(by: { $0.key < $1.key }) {
            guard let element = Element(rawValue: name) else {
                throw fail("colors", name, "no such part of the shelf; the parts are \(Element.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            do {
                colors[element] = try Self.parseColor(text)
            } catch {
                throw fail("colors", name, error.reason)
            }
        }
    }

    /// The action a key does, if any.
    public func action(for key: String) -> Action? {
        Action.allCases.first { keys[$0]?.contains(key) ?? false }
    }

    /// Binds `action` to `newKeys` instead of its defaults; the error says what is wrong, in words.
    public mutating func bind(_ action: Action, to newKeys: [String]) -> String? {
        for key in newKeys {
            guard key.count == 1 || Self.namedKeys.contains(key) else {
                return "\(key) is not a key: use one character, or one of \(Self.namedKeys.sorted().joined(separator: ", "))."
            }
            if Self.movementKeys.contains(key) { return "\(key) moves the selection and cannot be bound." }
        }
        keys[action] = newKeys
        return nil
    }

    /// The first key two actions share, after every binding is in.
    public func conflict() -> (key: String, first: Action, second: Action)? {
        var owner: [String: Action] = [:]
        for action in Action.allCases {
            for key in keys[action] ?? [] {
                if let first = owner[key] { return (key, first, action) }
                owner[key] = action
            }
        }
        return nil
    }

    /// Why a setting's value cannot be used, in words.
    public struct InvalidSetting: Error, Sendable {
        public let reason: String
    }

    /// Reads a colour specification.
    public static func parseColor(_ text: String) throws(InvalidSetting) -> ColorSpec {
        var spec = ColorSpec()
        var words = text.lowercased().split(separator: " ").map(String.init)
        func color(_ word: String) -> Color? {
            let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
            if word == "default" { return .default }
            if let index = names.firstIndex(of: word) { return .palette(UInt8(index)) }
            if word.hasPrefix("bright-"), let index = names.firstIndex(of: String(word.dropFirst(7))) { return .palette(UInt8(index + 8)) }
            if word.hasPrefix("color"), let number = Int(word.dropFirst(5)), (0...255).contains(number) { return .palette(UInt8(number)) }
            if word.hasPrefix("#"), word.count == 7, let value = UInt32(word.dropFirst(), radix: 16) {
                return .rgb(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
            }
            return nil
        }
        let attributes: Set<String> = ["bold", "dim", "reverse", "underline"]
        if let first = words.first, !attributes.contains(first) {
            guard let foreground = color(first) else { throw InvalidSetting(reason: Self.colorHelp(first)) }
            spec.foreground = foreground
            words.removeFirst()
        }
        if words.first == "on" {
            guard words.count >= 2, let background = color(words[1]) else { throw InvalidSetting(reason: Self.colorHelp(words.dropFirst().first ?? "")) }
            spec.background = background
            words.removeFirst(2)
        }
        for word in words {
            switch word {
            case "bold": spec.bold = true
            case "dim": spec.dim = true
            case "reverse": spec.reverse = true
            case "underline": spec.underline = true
            default: throw InvalidSetting(reason: Self.colorHelp(word))
            }
        }
        return spec
    }

    private static func colorHelp(_ word: String) -> String {
        "\(word.isEmpty ? "nothing" : word) is not a colour or attribute: use black, red, green, yellow, blue, magenta, cyan, white, "
            + "bright-NAME, colorN (0–255), #rrggbb or default, then on COLOUR, then bold, dim, reverse, underline."
    }
}
