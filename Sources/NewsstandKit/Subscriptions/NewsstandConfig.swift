import Foundation
import TOMLKit

/// The reader's configuration: `$XDG_CONFIG_HOME/newsstand/config.toml`, a file a person edits.
///
/// Read with TOMLKit; a mistake is reported with the file, the line and the key, and nothing
/// runs on a broken file. The only file that imports TOMLKit.
public struct NewsstandConfig: Sendable {
    /// The file it was read from.
    public var path: String
    /// In the order the file lists them.
    public var subscriptions: [Subscription] = []
    /// The most bytes all downloaded issues may take.
    public var maxStorage: Int64?
    /// Downloads that run at once across every subscription.
    public var jobs: Int?
    /// Connections to one host at once across every subscription (`host_connections`).
    public var hostConnections: Int?
    /// The reader's own `[directory.NAME]` entries, for `discover` and `subscribe NAME`.
    public var directory: [CatalogDirectory.Entry] = []
    /// Things worth saying that do not stop anything (a file others can read holding secrets).
    public var warnings: [String] = []
    /// The shelf's `[keys]` as written: action name to keys. The shelf checks them.
    public var shelfKeys: [String: [String]] = [:]
    /// The shelf's `[colors]` as written: element name to colour text. The shelf checks them.
    public var shelfColors: [String: String] = [:]
    /// How the shelf shows publications and issues at first: `"grid"` (covers) or `"list"` (a line each).
    public var shelfView: String?
    /// `covers = "auto" | "kitty" | "sixel" | "iterm2" | "symbols" | "off"`: how the shelf draws covers.
    public var shelfCovers: String?
    /// Where each key is set in the file's text, for messages that name the line.
    private var text = ConfigText("")

    /// The 1-based line where `key` is set in `table` (nil: at the top), else 1.
    public func line(ofKey key: String, inTable table: String?) -> Int {
        text.line(ofKey: key, inTable: table) ?? 1
    }

    public init(path: String) {
        self.path = path
    }

    public func subscription(named name: String) -> Subscription? {
        subscriptions.first { $0.name == name }
    }

    private static let topLevelKeys: Set<String> = ["max_storage", "jobs", "host_connections", "view", "covers", "subscriptions", "keys", "colors", "directory"]
    private static let subscriptionKeys = Set(["url", "headers", "query"] + SubscriptionSetting.all.map(\.key))
        .union(ConfigEditor.credentialKeys)

    /// Reads the file at `path`; nil when there is none.
    public static func load(path: String) throws(NewsstandError) -> NewsstandConfig? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw NewsstandError(.configuration, "\(path): cannot be read; check its permissions.")
            }
            return nil
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw NewsstandError(.configuration, "\(path): is not UTF-8 text.")
        }
        var config = try parse(text, path: path)
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & 0o077 != 0,
           config.subscriptions.contains(where: { !$0.headers.isEmpty || !$0.query.isEmpty }) {
            config.warnings.append("\(path) holds header or query values (often secrets) and others can read it: run `chmod 600 \(path)`.")
        }
        return config
    }

    /// Reads configuration text; `path` names it in errors.
    public static func parse(_ text: String, path: String) throws(NewsstandError) -> NewsstandConfig {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw NewsstandError(.configuration, "\(path):\(error.source.begin.line): \(error.description).")
        } catch {
            throw NewsstandError(.configuration, "\(path): not valid TOML.")
        }
        let lines = ConfigText(text)
        func fail(_ table: String?, _ key: String, _ message: String) -> NewsstandError {
            let line = lines.line(ofKey: key, inTable: table) ?? 1
            let name = table.map { "\($0).\(key)" } ?? key
            return NewsstandError(.configuration, "\(path):\(line): \(name): \(message)")
        }

        var config = NewsstandConfig(path: path)
        for key in root.keys where !topLevelKeys.contains(key) {
            throw fail(nil, key, "unknown setting (known: \(topLevelKeys.sorted().joined(separator: ", "))).")
        }
        if let value = root["max_storage"] {
            guard let bytes = size(value) else { throw fail(nil, "max_storage", "expected a size such as \"20 GiB\".") }
            config.maxStorage = bytes
        }
        if let value = root["jobs"] {
            guard let jobs = value.int, (1...64).contains(jobs) else { throw fail(nil, "jobs", "expected a number from 1 to 64.") }
            config.jobs = jobs
        }
        if let value = root["host_connections"] {
            guard let count = value.int, (1...64).contains(count) else { throw fail(nil, "host_connections", "expected a number from 1 to 64.") }
            config.hostConnections = count
        }
        config.text = lines
        if let value = root["view"] {
            guard let view = value.string, ["grid", "list"].contains(view) else { throw fail(nil, "view", "expected \"grid\" or \"list\".") }
            config.shelfView = view
        }
        if let value = root["covers"] {
            let choices = ["auto", "kitty", "sixel", "iterm2", "symbols", "off"]
            guard let covers = value.string, choices.contains(covers) else {
                throw fail(nil, "covers", "expected one of " + choices.map { "\"\($0)\"" }.joined(separator: ", ") + ".")
            }
            config.shelfCovers = covers
        }
        if let value = root["keys"] {
            guard let table = value.table else { throw fail(nil, "keys", "expected a table: [keys] with ACTION = \"KEY\".") }
            for name in table.keys {
                if let key = table[name]?.string {
                    config.shelfKeys[name] = [key]
                } else if let array = table[name]?.array, !array.isEmpty, array.allSatisfy({ $0.string != nil }) {
                    config.shelfKeys[name] = array.compactMap(\.string)
                } else {
                    throw fail("keys", name, "expected a key (\"d\", \"enter\") or a list of keys.")
                }
            }
        }
        if let value = root["colors"] {
            guard let table = value.table else { throw fail(nil, "colors", "expected a table: [colors] with ELEMENT = \"COLOUR\".") }
            for name in table.keys {
                guard let text = table[name]?.string else { throw fail("colors", name, "expected text such as \"white on blue bold\".") }
                config.shelfColors[name] = text
            }
        }
        if let value = root["directory"] {
            guard let table = value.table else { throw fail(nil, "directory", "expected tables: [directory.NAME] with url = \"…\" and title = \"…\".") }
            let order = lines.tableOrder(under: "directory")
            for name in table.keys.sorted(by: { (order[$0] ?? Int.max, $0) < (order[$1] ?? Int.max, $1) }) {
                let tableName = "directory.\(name)"
                guard Subscription.isValidName(name) else {
                    throw fail(nil, tableName, "a name may have lowercase letters, digits, - and _ only (it names a subscription).")
                }
                guard let entry = table[name]?.table else { throw fail("directory", name, "expected a table.") }
                for key in entry.keys where !["url", "title", "summary"].contains(key) {
                    throw fail(tableName, key, "unknown setting (known: summary, title, url).")
                }
                guard let address = entry["url"]?.string, let url = URL(string: address), let scheme = url.scheme?.lowercased(),
                      ["http", "https"].contains(scheme), !(url.host ?? "").isEmpty else {
                    throw fail(tableName, "url", "expected the catalog's http or https address.")
                }
                if let value = entry["title"], value.string == nil { throw fail(tableName, "title", "expected text.") }
                if let value = entry["summary"], value.string == nil { throw fail(tableName, "summary", "expected text.") }
                config.directory.append(CatalogDirectory.Entry(
                    name: name, title: entry["title"]?.string ?? name, url: url, summary: entry["summary"]?.string ?? "", fromConfiguration: true))
            }
        }
        guard let table = root["subscriptions"] else { return config }
        guard let subscriptions = table.table else {
            throw fail(nil, "subscriptions", "expected tables: [subscriptions.NAME] with url = \"…\".")
        }
        let order = lines.subscriptionOrder
        let names = subscriptions.keys.sorted { (order[$0] ?? Int.max, $0) < (order[$1] ?? Int.max, $1) }
        for name in names {
            let tableName = "subscriptions.\(name)"
            guard Subscription.isValidName(name) else {
                throw fail(nil, tableName, "a name may have lowercase letters, digits, - and _ only (it names a folder).")
            }
            guard let settings = subscriptions[name]?.table else { throw fail("subscriptions", name, "expected a table.") }
            config.subscriptions.append(try subscription(name, settings) { key, message in fail(tableName, key, message) })
        }
        return config
    }

    private static func subscription(
        _ name: String, _ table: TOMLTable, fail: (String, String) -> NewsstandError
    ) throws(NewsstandError) -> Subscription {
        for key in table.keys where !subscriptionKeys.contains(key) {
            throw fail(key, "unknown setting (known: \(subscriptionKeys.sorted().joined(separator: ", "))).")
        }
        func string(_ key: String) throws(NewsstandError) -> String? {
            guard let value = table[key] else { return nil }
            guard let text = value.string, !text.isEmpty else { throw fail(key, "expected a non-empty string.") }
            return text
        }
        guard let address = try string("url") else { throw fail("url", "every subscription needs its catalog's url.") }
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), ["http", "https", "file"].contains(scheme),
              scheme == "file" || url.host?.isEmpty == false
        else { throw fail("url", "expected an http or https URL (or file:// for a catalog on this machine).") }
        var subscription = Subscription(name: name, url: url)
        for setting in SubscriptionSetting.all {
            guard let value = table[setting.key] else { continue }
            let given: SettingValue? = value.int.map(SettingValue.integer) ?? value.string.map(SettingValue.text)
            do throws(SettingError) {
                guard let given else { throw SettingError(expected: setting.expected) }
                try setting.apply(given, to: &subscription)
            } catch {
                throw fail(setting.key, "expected \(error.expected).")
            }
        }
        subscription.credentials = try credentials(string, table: table, fail: fail)
        for (name, value) in try pairs("headers", table, fail: fail) {
            do {
                subscription.headers.append(try HeaderField(name: name, value: value))
            } catch {
                throw fail("headers", "expected \(error.expected).")
            }
        }
        subscription.query = try pairs("query", table, fail: fail)
        return subscription
    }

    private static func credentials(
        _ string: (String) throws(NewsstandError) -> String?, table: TOMLTable, fail: (String, String) -> NewsstandError
    ) throws(NewsstandError) -> Subscription.CredentialSource? {
        let user = try string("user")
        let passwordCommand = try string("password_command"), passwordVariable = try string("password_env")
        let tokenCommand = try string("token_command"), tokenVariable = try string("token_env")
        if let value = table["netrc"], value.bool == nil { throw fail("netrc", "expected true or false.") }
        let netrc = table["netrc"]?.bool ?? false
        let password: Subscription.SecretSource? = passwordCommand.map { .command($0) } ?? passwordVariable.map { .environment($0) }
        let token: Subscription.SecretSource? = tokenCommand.map { .command($0) } ?? tokenVariable.map { .environment($0) }
        if passwordCommand != nil && passwordVariable != nil { throw fail("password_env", "give password_command or password_env, not both.") }
        if tokenCommand != nil && tokenVariable != nil { throw fail("token_env", "give token_command or token_env, not both.") }
        if let user {
            guard !user.contains(":") else { throw fail("user", "a user name cannot contain \":\".") }
            guard let password else { throw fail("user", "a user needs password_command or password_env (passwords never go in this file).") }
            if token != nil { throw fail("token_command", "give a user and password or a token, not both.") }
            // No `auth`: the scheme the server asks for; `auth` pins one.
            let pin = try string("auth").map { text throws(NewsstandError) -> AuthScheme in
                guard let scheme = AuthScheme(rawValue: text) else { throw fail("auth", "expected \"basic\" or \"digest\".") }
                return scheme
            }
            return .basic(user: user, password: password, pin: pin)
        }
        if try string("auth") != nil { throw fail("auth", "auth needs a user and a password.") }
        if password != nil { throw fail(passwordCommand != nil ? "password_command" : "password_env", "a password needs a user.") }
        if let token { return .bearer(token) }
        return netrc ? .netrc : nil
    }

    /// A table of strings (`headers`, `query`), in the file's order where it can be told.
    private static func pairs(
        _ key: String, _ table: TOMLTable, fail: (String, String) -> NewsstandError
    ) throws(NewsstandError) -> [(name: String, value: String)] {
        guard let value = table[key] else { return [] }
        guard let inner = value.table else { throw fail(key, "expected a table of strings, such as { \"User-Agent\" = \"…\" }.") }
        var pairs: [(name: String, value: String)] = []
        for name in inner.keys {
            guard let text = inner[name]?.string else { throw fail(key, "\"\(TextSanitizer.inert(name))\" must be a string.") }
            guard !text.contains("\r") && !text.contains("\n") else {
                throw fail(key, "the value of \"\(TextSanitizer.inert(name))\" contains a line break, which would smuggle in another header.")
            }
            pairs.append((name, text))
        }
        return pairs
    }

    private static func size(_ value: any TOMLValueConvertible) -> Int64? {
        if let count = value.int { return count >= 0 ? Int64(count) : nil }
        return value.string.flatMap(ByteSize.parse)
    }
}

/// Where things are in the configuration's text: the line of a key, the order of tables.
struct ConfigText {
    let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The table a header line opens (`[subscriptions.weekly]` → `subscriptions.weekly`), quotes removed.
    static func header(_ line: Substring) -> String? {
        // Most lines set a key: told apart by their first byte, before any trimming (a config of
        // 100 subscriptions trimmed each of its lines once per table looked for).
        guard line.utf8.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) == UInt8(ascii: "[") else { return nil }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("["), !trimmed.hasPrefix("[["), let close = trimmed.firstIndex(of: "]") else { return nil }
        let inside = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
        return inside.split(separator: ".").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) }
            .joined(separator: ".")
    }

    /// The index of the header line of `table`, if the file has one.
    func headerIndex(of table: String) -> Int? {
        lines.firstIndex { Self.header($0) == table }
    }

    /// The 1-based line where `key` is set in `table` (nil: at the top), else the table's header.
    func line(ofKey key: String, inTable table: String?) -> Int? {
        var start = 0
        if let table {
            if let index = headerIndex(of: table) {
                start = index + 1
            } else if let index = headerIndex(of: table.split(separator: ".").dropLast().joined(separator: ".")) {
                // A table written inline or with dotted keys under its parent.
                let last = table.split(separator: ".").last.map(String.init) ?? table
                for offset in (index + 1)..<lines.count {
                    if Self.header(lines[offset]) != nil { break }
                    if Self.setsKey(lines[offset], last) || Self.setsKey(lines[offset], last + "." + key) { return offset + 1 }
                }
                return index + 1
            } else {
                return nil
            }
        }
        for offset in start..<lines.count {
            if Self.header(lines[offset]) != nil { break }
            if Self.setsKey(lines[offset], key) { return offset + 1 }
        }
        if let table, let index = headerIndex(of: table) {
            // A sub-table such as [subscriptions.weekly.headers].
            if let sub = headerIndex(of: table + "." + key) { return sub + 1 }
            return index + 1
        }
        return nil
    }

    private static func setsKey(_ line: Substring, _ key: String) -> Bool {
        var trimmed = line.drop { $0 == " " || $0 == "\t" }
        for quote in ["\"", "'"] where trimmed.hasPrefix(quote + key + quote) {
            trimmed = trimmed.dropFirst(key.count + 2)
            return trimmed.drop { $0 == " " || $0 == "\t" }.first == "="
        }
        guard trimmed.hasPrefix(key) else { return false }
        let rest = trimmed.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
        return rest.first == "=" || rest.first == "."
    }

    /// Each subscription's position by its `[subscriptions.NAME]` header.
    var subscriptionOrder: [String: Int] { tableOrder(under: "subscriptions") }

    /// Each table's position by its `[PARENT.NAME]` header.
    func tableOrder(under parent: String) -> [String: Int] {
        var order: [String: Int] = [:]
        for (index, line) in lines.enumerated() {
            guard let table = Self.header(line), table.hasPrefix(parent + ".") else { continue }
            let name = String(table.dropFirst(parent.count + 1).split(separator: ".").first ?? "")
            if order[name] == nil { order[name] = index }
        }
        return order
    }
}
