import Foundation

/// Reads a response's header lines, one at a time, into a ``TransferResponse``.
struct ResponseHead {
    private(set) var response = TransferResponse()

    /// Takes one header line (with or without its line end).
    mutating func take(_ bytes: UnsafeRawBufferPointer) {
        let line = Self.trimmed(String(decoding: bytes, as: UTF8.self))
        if line.hasPrefix("HTTP/") {
            // A new response (after a 100 Continue): forget the previous one's headers.
            response = TransferResponse()
            let parts = line.split(separator: " ", maxSplits: 2)
            if parts.count >= 2, let status = Int(parts[1]) { response.statusCode = status }
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = Self.trimmed(line[line.index(after: colon)...])
        switch name {
        case "content-length": response.contentLength = Int64(value)
        case "content-range": response.contentRange = value
        case "content-type": response.contentType = value
        case "etag": response.etag = value
        case "last-modified": response.lastModified = value
        case "retry-after": response.retryAfter = Self.parseRetryAfter(value)
        case "cache-control": response.maxAge = Self.parseMaxAge(value)
        case "content-disposition": response.fileName = ContentDisposition.fileName(value)
        case "www-authenticate": response.authenticate = response.authenticate.map { $0 + ", " + value } ?? value
        case "location": response.location = value
        default: break
        }
    }

    /// Without spaces, tabs and line ends around it (Foundation's trimming cost a tenth of a cover's fetch).
    static func trimmed(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    static func parseRetryAfter(_ value: String) -> TimeInterval? {
        if let seconds = Int(value) { return TimeInterval(max(0, seconds)) }
        // An HTTP-date is RFC 1123's form of RFC 822's, which the feeds' date reader parses.
        guard let date = FeedDate.rfc822(value) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }

    /// `max-age=N` (or `s-maxage`), or 0 when the response may not be reused without asking.
    static func parseMaxAge(_ value: String) -> TimeInterval? {
        var maxAge: TimeInterval?
        for directive in value.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts[0] {
            case "no-cache", "no-store": return 0
            case "max-age" where parts.count == 2:
                if let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) { maxAge = TimeInterval(max(0, seconds)) }
            default: break
            }
        }
        return maxAge
    }
}
