import Foundation

/// The file name a server gives in `Content-Disposition`: `filename*=UTF-8''…` (RFC 5987),
/// else `filename="…"`, which some servers (Komga) fill with an RFC 2047 encoded word.
///
/// The name is shown to the reader as the original file name, and never used as a path.
public enum ContentDisposition {
    public static func fileName(_ header: String) -> String? {
        var plain: String?
        var extended: String?
        for part in parameters(header) {
            switch part.name {
            case "filename*":
                // charset'language'percent-encoded
                let pieces = part.value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3, let decoded = String(pieces[2]).removingPercentEncoding {
                    extended = pieces[0].lowercased() == "utf-8" ? decoded : String(decoding: decoded.utf8, as: UTF8.self)
                }
            case "filename":
                plain = decodeEncodedWords(part.value)
            default:
                break
            }
        }
        guard let name = extended ?? plain else { return nil }
        // Only the last component, whatever the server put before it.
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let trimmed = last.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty || trimmed == "." || trimmed == ".." ? nil : String(trimmed.prefix(255))
    }

    /// `name=value` pairs after the disposition type; quoted values unescaped.
    private static func parameters(_ header: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var index = header.startIndex
        guard let firstSemicolon = header.firstIndex(of: ";") else { return [] }
        index = header.index(after: firstSemicolon)
        while index < header.endIndex {
            while index < header.endIndex, header[index] == " " || header[index] == ";" { index = header.index(after: index) }
            guard let equals = header[index...].firstIndex(of: "=") else { break }
            let name = header[index..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            index = header.index(after: equals)
            var value = ""
            if index < header.endIndex, header[index] == "\"" {
                index = header.index(after: index)
                while index < header.endIndex, header[index] != "\"" {
                    // A backslash quotes the next character, if there is one.
                    if header[index] == "\\" {
                        index = header.index(after: index)
                        guard index < header.endIndex else { break }
                    }
                    value.append(header[index])
                    index = header.index(after: index)
                }
                if index < header.endIndex { index = header.index(after: index) }
            } else {
                let end = header[index...].firstIndex(of: ";") ?? header.endIndex
                value = header[index..<end].trimmingCharacters(in: .whitespaces)
                index = end
            }
            result.append((name, value))
        }
        return result
    }

    /// RFC 2047 encoded words (`=?UTF-8?Q?Space_Comics?=`, `=?UTF-8?B?…?=`) decoded; other text kept.
    static func decodeEncodedWords(_ text: String) -> String {
        guard text.contains("=?") else { return text }
        let pattern = try! NSRegularExpression(pattern: #"=\?([^?]+)\?([QqBb])\?([^?]*)\?="#)
        var output = ""
        var last = text.startIndex
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let whole = Range(match.range, in: text), let encodingRange = Range(match.range(at: 2), in: text),
                  let payloadRange = Range(match.range(at: 3), in: text) else { continue }
            let between = text[last..<whole.lowerBound]
            // White space between two encoded words is not part of the text.
            if !(last != text.startIndex && between.allSatisfy(\.isWhitespace)) { output += between }
            let payload = String(text[payloadRange])
            var bytes: [UInt8] = []
            if text[encodingRange].uppercased() == "B" {
                bytes = Data(base64Encoded: payload).map(Array.init) ?? Array(payload.utf8)
            } else {
                var utf8 = Array(payload.utf8)[...]
                while let byte = utf8.popFirst() {
                    if byte == UInt8(ascii: "_") {
                        bytes.append(0x20)
                    } else if byte == UInt8(ascii: "="), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                        bytes.append(value)
                        utf8 = utf8.dropFirst(2)
                    } else {
                        bytes.append(byte)
                    }
                }
            }
            output += String(decoding: bytes, as: UTF8.self)
            last = whole.upperBound
        }
        output += text[last...]
        return output
    }
}
