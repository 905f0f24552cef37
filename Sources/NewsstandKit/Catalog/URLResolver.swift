import Foundation

/// Resolves the URLs a catalog gives against the catalog's own URL, allowing only http and
/// https (and file, for a catalog on this machine).
///
/// `URL(string:relativeTo:)` followed by `absoluteURL` costs about 2.5 µs, half a second for a
/// catalog of 100,000 issues; the usual forms (absolute, `/path`, `path`) are joined as strings
/// and parsed once, and anything with dot segments, a query or fragment only, or `//host` goes
/// the long way through Foundation.
struct URLResolver: Sendable {
    private let base: URL
    /// `scheme://authority` of the base, when it has that form.
    private let origin: String?
    /// The base without its last path segment, query and fragment, ending in `/`.
    private let directory: String?
    private let baseScheme: String
    private let baseHasHost: Bool

    init(base: URL) {
        self.base = base
        baseScheme = base.scheme?.lowercased() ?? ""
        let absolute = base.absoluteString
        let cut = absolute.firstIndex { $0 == "?" || $0 == "#" } ?? absolute.endIndex
        let withoutQuery = absolute[..<cut]
        if let separator = withoutQuery.range(of: "://") {
            let pathStart = withoutQuery[separator.upperBound...].firstIndex(of: "/") ?? withoutQuery.endIndex
            origin = String(withoutQuery[..<pathStart])
            let lastSlash = withoutQuery[pathStart...].lastIndex(of: "/")
            directory = lastSlash.map { String(withoutQuery[...$0]) } ?? String(withoutQuery) + "/"
        } else {
            origin = nil
            directory = nil
        }
        baseHasHost = base.host?.isEmpty == false
    }

    func resolve(_ string: String, allowFiles: Bool) -> URL? {
        var utf8 = string.utf8
        guard !utf8.isEmpty, utf8.count <= 8192 else { return nil }
        var schemeEnd: String.Index?
        var schemeOK = true
        var slow = false
        var position = utf8.startIndex
        var previous: UInt8 = 0
        var sawDelimiter = false
        while position != utf8.endIndex {
            let byte = utf8[position]
            if byte < 0x20 || byte == 0x7F { return nil }
            if !sawDelimiter {
                if byte == UInt8(ascii: ":") {
                    if position != utf8.startIndex && schemeOK { schemeEnd = position }
                    sawDelimiter = true
                } else if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                    sawDelimiter = true
                } else if position == utf8.startIndex {
                    schemeOK = Self.isLetter(byte)
                } else if !(Self.isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E) {
                    schemeOK = false
                }
            }
            // A dot segment ("." or ".." before "/", "?", "#" or the end) needs RFC 3986's removal.
            if previous == UInt8(ascii: ".") && (byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")) {
                slow = true
            }
            previous = byte
            position = utf8.index(after: position)
        }
        if previous == UInt8(ascii: ".") { slow = true }

        if let schemeEnd {
            let scheme = String(string[..<schemeEnd]).lowercased()
            let hasHost = Self.hasHost(string.utf8[string.utf8.index(after: schemeEnd)...])
            return Self.checked(URL(string: string), scheme: scheme, allowFiles: allowFiles, hasHost: hasHost)
        }
        let first = utf8.first!
        utf8 = string.utf8
        if !slow, let origin, let directory, first != UInt8(ascii: "?"), first != UInt8(ascii: "#") {
            if first == UInt8(ascii: "/") {
                if utf8.count > 1 && utf8[utf8.index(after: utf8.startIndex)] == UInt8(ascii: "/") {
                    return Self.checked(URL(string: baseScheme + ":" + string), scheme: baseScheme, allowFiles: allowFiles,
                                        hasHost: Self.hasHost(utf8[...]))
                }
                return Self.checked(URL(string: origin + string), scheme: baseScheme, allowFiles: allowFiles, hasHost: baseHasHost)
            }
            return Self.checked(URL(string: directory + string), scheme: baseScheme, allowFiles: allowFiles, hasHost: baseHasHost)
        }
        let url = URL(string: string, relativeTo: base)?.absoluteURL
        return Self.checked(url, scheme: url?.scheme?.lowercased() ?? "", allowFiles: allowFiles, hasHost: url?.host?.isEmpty == false)
    }

    /// Whether what follows `scheme:` is `//authority` with a non-empty host (`url.host`, done by hand
    /// because it costs as much as a fifth of the parse).
    private static func hasHost(_ rest: Substring.UTF8View) -> Bool {
        var position = rest.startIndex
        for _ in 0..<2 {
            guard position != rest.endIndex, rest[position] == UInt8(ascii: "/") else { return false }
            position = rest.index(after: position)
        }
        var hostLength = 0
        var inPort = false
        var inBrackets = false
        while position != rest.endIndex {
            let byte = rest[position]
            position = rest.index(after: position)
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") {
                // What came before was user information.
                (hostLength, inPort, inBrackets) = (0, false, false)
                continue
            }
            if inPort { continue }
            if byte == UInt8(ascii: "[") && hostLength == 0 { inBrackets = true }
            if byte == UInt8(ascii: "]") { inBrackets = false }
            if byte == UInt8(ascii: ":") && !inBrackets {
                inPort = true
                continue
            }
            hostLength += 1
        }
        return hostLength > 0
    }

    private static func checked(_ url: URL?, scheme: String, allowFiles: Bool, hasHost: Bool) -> URL? {
        guard let url else { return nil }
        switch scheme {
        case "http", "https":
            return hasHost ? url : nil
        case "file":
            return allowFiles ? url : nil
        default:
            return nil
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
