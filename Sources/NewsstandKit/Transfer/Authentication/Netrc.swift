import Foundation

/// The user and password `~/.netrc` gives a host, as curl reads the file: `machine`, `default`,
/// `login`, `password`, `account`, and `macdef` blocks (skipped to the next empty line).
///
/// Read here rather than by libcurl, so that these credentials go through the same negotiation
/// as a subscription's: never sent in plain text to a server that has not asked for them.
public struct Netrc: Sendable {
    public struct Entry: Sendable, Equatable {
        public var login: String?
        public var password: String?
    }

    private var machines: [String: Entry] = [:]
    private var fallback: Entry?

    /// The file of the current user (`$NETRC`, else `$HOME/.netrc`), read once per process.
    public static let current: Netrc = {
        let environment = ProcessInfo.processInfo.environment
        let path = environment["NETRC"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.netrc")
        guard let data = FileManager.default.contents(atPath: path) else { return Netrc(text: "") }
        return Netrc(text: String(decoding: data, as: UTF8.self))
    }()

    public init(text: String) {
        var current: (host: String?, entry: Entry)?
        func store() {
            guard let done = current else { return }
            if let host = done.host {
                if machines[host] == nil { machines[host] = done.entry }  // the first entry for a host wins, as in curl
            } else if fallback == nil {
                fallback = done.entry
            }
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        var tokens: [String] = []
        var position = 0
        func nextToken() -> String? {
            while position >= tokens.count {
                guard let line = lines.popFirst() else { return nil }
                tokens = Self.tokens(of: line)
                position = 0
            }
            defer { position += 1 }
            return tokens[position]
        }
        while let token = nextToken() {
            switch token {
            case "machine":
                store()
                current = (nextToken()?.lowercased(), Entry())
            case "default":
                store()
                current = (nil, Entry())
            case "login":
                current?.entry.login = nextToken()
            case "password":
                current?.entry.password = nextToken()
            case "account":
                _ = nextToken()
            case "macdef":
                _ = nextToken()
                // The macro runs to the next empty line.
                tokens = []
                position = 0
                while let line = lines.popFirst(), !line.trimmingCharacters(in: .whitespaces).isEmpty {}
            default:
                break
            }
        }
        store()
    }

    private static func tokens(of line: Substring) -> [String] {
        var tokens: [String] = []
        var current = ""
        var inToken = false
        var quoted = false
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted {
                if character == "\\" { escaped = true } else if character == "\"" { quoted = false } else { current.append(character) }
            } else if character == "\"" {
                quoted = true
                inToken = true
            } else if character == " " || character == "\t" || character == "\r" {
                if inToken { tokens.append(current) }
                current = ""
                inToken = false
            } else {
                current.append(character)
                inToken = true
            }
        }
        if inToken { tokens.append(current) }
        return tokens
    }

    /// The login and password for `host`, or the `default` entry's.
    public func credentials(for host: String) -> (user: String, password: String)? {
        guard let entry = machines[host.lowercased()] ?? fallback, let login = entry.login, let password = entry.password else { return nil }
        return (login, password)
    }
}
