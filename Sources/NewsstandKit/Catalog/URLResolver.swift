import Foundation

/// Resolves the URLs a catalog gives against the catalog's own URL, allowing only http and
/// https (and file, for a catalog on this machine).
///
/// `URL(string:relativeTo:)` followed by `absoluteURL` costs about 2.5 µs, half a second for a
/// catalog of 100,000 issues; the usual forms (absolute, `/path`, `path`) are joined as strings
/// and parsed once, and anything with dot segments, a query or fragment only, or `//host` goes
/// the long way through Foundation.
/// Addresses are kept as strings; ``CatalogEntry`` makes a `URL` only when one is fetched.
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

    /// The absolute address of `string`, exactly as Foundation's `absoluteString` would write
    /// it, or nil when it is not a URL that may be fetched.
    ///
    /// Addresses made only of characters Foundation takes as they are (checked here, byte by
    /// byte) are never parsed: a catalog's URLs are checked on every load, but parsed only when
    /// an issue or its cover is fetched.
    func resolve(_ string: String, allowFiles: Bool) -> String? {
        var contiguous = string
        return contiguous.withUTF8 { resolve(string, bytes: $0, allowFiles: allowFiles) }
    }

    /// `string` resolved, read through its UTF-8 `bytes` (walking a `String`'s indices was a
    /// fifth of checking a feed).
    private func resolve(_ string: String, bytes: UnsafeBufferPointer<UInt8>, allowFiles: Bool) -> String? {
        guard !bytes.isEmpty, bytes.count <= 8192 else { return nil }
        var schemeEnd: Int?
        var slow = false
        // The scheme, if any: what comes before the first `:`, `/`, `?` or `#`, when it is a `:`.
        var schemeOK = Self.isLetter(bytes[0])
        for position in 0..<bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ":") {
                // A first segment with `:` that is not a scheme: RFC 3986 has no such reference.
                if position != 0 && schemeOK { schemeEnd = position } else { slow = true }
                break
            }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if position > 0 && !(Self.isLetter(byte) || Self.isDigit(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E) {
                schemeOK = false
            }
        }
        // Whether Foundation would keep every byte as it is: path characters and `%` with two hex
        // digits. Most bytes of an address are tested by one bit; the rest are looked at here.
        var plain = true
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if Self.isPathCharacterButDot(byte) { continue }
            if byte < 0x20 || byte == 0x7F { return nil }
            if byte == UInt8(ascii: ".") {
                // A dot segment ("." or ".." before "/", "?", "#" or the end) needs RFC 3986's removal.
                let next = position < bytes.count ? bytes[position] : UInt8(ascii: "/")
                if next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#") { slow = true }
            } else if byte == UInt8(ascii: "%"), position + 1 < bytes.count, Self.isHexDigit(bytes[position]), Self.isHexDigit(bytes[position + 1]) {
                position += 2
            } else {
                plain = false
            }
        }

        if let schemeEnd {
            let rest = UnsafeBufferPointer(rebasing: bytes[(schemeEnd + 1)...])
            let scheme = UnsafeBufferPointer(rebasing: bytes[..<schemeEnd])
            if plain, scheme.elementsEqual("http".utf8) || scheme.elementsEqual("https".utf8), Self.isPlainOrigin(rest) { return string }
            let lowercased = String(decoding: scheme, as: UTF8.self).lowercased()
            return Self.checked(URL(string: string), scheme: lowercased, allowFiles: allowFiles, hasHost: Self.hasHost(rest))
        }
        let first = bytes[0]
        if !slow, let origin, let directory, first != UInt8(ascii: "?"), first != UInt8(ascii: "#") {
            let joined: String
            var hasHost = baseHasHost
            if first == UInt8(ascii: "/") {
                if bytes.count > 1 && bytes[1] == UInt8(ascii: "/") {
                    joined = baseScheme + ":" + string
                    hasHost = Self.hasHost(bytes)
                    plain = false
                } else {
                    joined = origin + string
                }
            } else {
                joined = directory + string
            }
            guard plain else {
                return Self.checked(URL(string: joined), scheme: baseScheme, allowFiles: allowFiles, hasHost: hasHost)
            }
            // The base was written by Foundation, and every character added is one it keeps as it is.
            return Self.allowed(scheme: baseScheme, allowFiles: allowFiles, hasHost: hasHost) ? joined : nil
        }
        let url = URL(string: string, relativeTo: base)?.absoluteURL
        return Self.checked(url, scheme: url?.scheme?.lowercased() ?? "", allowFiles: allowFiles, hasHost: url?.host?.isEmpty == false)
    }

    /// Whether what follows `http:` is `//host` or `//host:port` of plain letters, digits, dots
    /// and hyphens, and then nothing or a path.
    private static func isPlainOrigin(_ rest: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var position = afterTwoSlashes(rest) else { return false }
        var hostLength = 0
        while position < rest.count, isLetter(rest[position]) || isDigit(rest[position])
                || rest[position] == UInt8(ascii: ".") || rest[position] == UInt8(ascii: "-") {
            hostLength += 1
            position += 1
        }
        guard hostLength > 0 else { return false }
        if position < rest.count, rest[position] == UInt8(ascii: ":") {
            position += 1
            var digits = 0
            while position < rest.count, isDigit(rest[position]) {
                digits += 1
                position += 1
            }
            guard digits > 0, digits <= 5 else { return false }
        }
        return position == rest.count || rest[position] == UInt8(ascii: "/")
    }

    /// Whether what follows `scheme:` is `//authority` with a non-empty host (`url.host`, done by hand
    /// because it costs as much as a fifth of the parse).
    private static func hasHost(_ rest: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var position = afterTwoSlashes(rest) else { return false }
        var hostLength = 0
        var inPort = false
        var inBrackets = false
        while position < rest.count {
            let byte = rest[position]
            position += 1
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

    private static func checked(_ url: URL?, scheme: String, allowFiles: Bool, hasHost: Bool) -> String? {
        guard let url, allowed(scheme: scheme, allowFiles: allowFiles, hasHost: hasHost) else { return nil }
        return url.absoluteString
    }

    private static func allowed(scheme: String, allowFiles: Bool, hasHost: Bool) -> Bool {
        switch scheme {
        case "http", "https": hasHost
        case "file": allowFiles
        default: false
        }
    }

    /// Where the authority starts, when `rest` starts with `//`.
    private static func afterTwoSlashes(_ rest: UnsafeBufferPointer<UInt8>) -> Int? {
        guard rest.count >= 2, rest[0] == UInt8(ascii: "/"), rest[1] == UInt8(ascii: "/") else { return nil }
        return 2
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// RFC 3986's `pchar` and `/` but `.`: unreserved, sub-delims, `:` and `@` (`%` and `.` are
    /// looked at apart), by bit.
    @inline(__always)
    static func isPathCharacterButDot(_ byte: UInt8) -> Bool {
        // `!`, `$`, `&` to `-`, `/` to `;`, `=`, as bits of the bytes 0 to 63.
        let below64: UInt64 = 1 << 0x21 | 1 << 0x24 | 0xFF << 0x26 | 0x1FFF << 0x2F | 1 << 0x3D
        // `@` to `Z`, `_`, `a` to `z`, `~`, as bits of the bytes 64 to 127.
        let from64: UInt64 = 0x7FF_FFFF | 1 << (0x5F - 64) | 0x3FF_FFFF << (0x61 - 64) | 1 << (0x7E - 64)
        if byte < 64 { return below64 >> byte & 1 == 1 }
        if byte < 128 { return from64 >> (byte - 64) & 1 == 1 }
        return false
    }
}
