import Foundation

/// One challenge of a `WWW-Authenticate` header: a scheme and its parameters (RFC 9110 §11.6.1).
public struct AuthChallenge: Sendable, Equatable, Codable {
    public var scheme: AuthScheme
    public var realm: String?
    public var nonce: String?
    public var opaque: String?
    /// `MD5` or `SHA-256` (their `-sess` variants too), as the server wrote it.
    public var algorithm: String?
    /// The qop values offered; newsstand answers `auth` when offered.
    public var qop: [String] = []
    /// The server says the nonce has expired, not that the credentials are wrong.
    public var stale = false

    public init(scheme: AuthScheme) {
        self.scheme = scheme
    }

    /// Every Basic and Digest challenge in the header values (others, Bearer or Negotiate, are
    /// skipped), Digest with SHA-256 first, then Digest, then Basic: the strongest is tried first.
    public static func parse(_ header: String?) -> [AuthChallenge] {
        guard let header else { return [] }
        var challenges: [AuthChallenge] = []
        var current: AuthChallenge?
        var skipping = false
        var scanner = ChallengeScanner(Array(header.utf8))
        while let token = scanner.nextItem() {
            switch token {
            case .scheme(let name):
                if let current { challenges.append(current) }
                current = AuthScheme(rawValue: name.lowercased()).map(AuthChallenge.init(scheme:))
                skipping = current == nil
            case .parameter(let name, let value):
                guard !skipping, current != nil else { continue }
                switch name.lowercased() {
                case "realm": current?.realm = value
                case "nonce": current?.nonce = value
                case "opaque": current?.opaque = value
                case "algorithm": current?.algorithm = value
                case "qop": current?.qop = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                case "stale": current?.stale = value.lowercased() == "true"
                default: break
                }
            }
        }
        if let current { challenges.append(current) }
        // A Digest challenge needs a nonce, and an algorithm this client can compute.
        challenges.removeAll { $0.scheme == .digest && ($0.nonce == nil || $0.hashFunction == nil) }
        return challenges.sorted { $0.strength > $1.strength }
    }

    private var strength: Int {
        switch scheme {
        case .basic: return 0
        case .digest: return hashFunction == .sha256 ? 2 : 1
        }
    }

    enum HashFunction { case md5, sha256 }

    var hashFunction: HashFunction? {
        switch (algorithm ?? "MD5").uppercased() {
        case "MD5", "MD5-SESS": return .md5
        case "SHA-256", "SHA-256-SESS": return .sha256
        default: return nil
        }
    }

    var isSession: Bool { (algorithm ?? "").uppercased().hasSuffix("-SESS") }
}

/// Splits a `WWW-Authenticate` value into schemes and `name=value` parameters (quoted strings
/// with backslash escapes, or tokens); a token68 after a scheme is passed over.
private struct ChallengeScanner {
    enum Item {
        case scheme(String)
        case parameter(String, String)
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return Array("!#$%&'*+-.^_`|~/".utf8).contains(byte)
        }
    }

    private mutating func skipSeparators() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == UInt8(ascii: ",") { index += 1 }
    }

    private mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    private mutating func token() -> String {
        let start = index
        while index < bytes.count, Self.isTokenByte(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func nextItem() -> Item? {
        skipSeparators()
        guard index < bytes.count else { return nil }
        let name = token()
        guard !name.isEmpty else {
            index += 1
            return nextItem()
        }
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return .scheme(name) }
        index += 1
        // `==` padding of a token68 (`Negotiate abc==`): not a parameter.
        if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
            while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
            return nextItem()
        }
        skipSpaces()
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            var value: [UInt8] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                value.append(bytes[index])
                index += 1
            }
            index += 1
            return .parameter(name, String(decoding: value, as: UTF8.self))
        }
        return .parameter(name, token())
    }
}
