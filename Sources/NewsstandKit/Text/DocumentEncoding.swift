import Foundation

/// A catalog document's bytes as UTF-8, whatever it was written in: the byte order mark first,
/// then the HTTP charset (which wins over the document's own word, RFC 7303 §3.2), then an XML
/// declaration's `encoding`. UTF-16 (with or without a mark) and every legacy encoding the C
/// library's iconv knows (KOI8-R, Big5, Shift_JIS, EUC-KR, GB2312, windows-1252, …) are converted;
/// a name iconv does not know is refused in a sentence.
///
/// A converted XML document's declaration is rewritten to say UTF-8, so that reading it again
/// (a cached copy, a second parser) converts nothing twice.
public enum DocumentEncoding {
    /// The document as UTF-8, or `data` itself when it already is (the common case costs a look
    /// at its first bytes). Binary property lists pass untouched.
    public static func utf8(_ data: Data, contentType: String? = nil) throws(NewsstandError) -> Data {
        if data.starts(with: Array("bplist".utf8)) { return data }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { return data }
        if data.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return try convert(data.dropFirst(4), from: "UTF-32BE") }
        if data.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return try convert(data.dropFirst(4), from: "UTF-32LE") }
        if data.starts(with: [0xFE, 0xFF]) { return try convert(data.dropFirst(2), from: "UTF-16BE") }
        if data.starts(with: [0xFF, 0xFE]) { return try convert(data.dropFirst(2), from: "UTF-16LE") }
        // `<?` in UTF-16 without a mark (XML 1.0 Appendix F).
        if data.starts(with: [0x3C, 0x00, 0x3F, 0x00]) { return try convert(data[...], from: "UTF-16LE") }
        if data.starts(with: [0x00, 0x3C, 0x00, 0x3F]) { return try convert(data[...], from: "UTF-16BE") }
        let declared = charset(inContentType: contentType) ?? declaredEncoding(data)
        guard let name = declared, !isUTF8(name) else { return data }
        // US-ASCII is UTF-8's first half.
        if ["us-ascii", "ascii", "ansi_x3.4-1968"].contains(name.lowercased()) { return data }
        return try convert(data[...], from: name)
    }

    /// `charset=` of a Content-Type, unquoted.
    static func charset(inContentType contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// The `encoding` of an XML declaration at the start, if any.
    static func declaredEncoding(_ data: Data) -> String? {
        guard let range = declarationEncodingRange(Array(data.prefix(256))) else { return nil }
        return String(decoding: data.prefix(256)[range], as: UTF8.self)
    }

    /// Where the value of `encoding="…"` is in an XML declaration at the start of `head`.
    private static func declarationEncodingRange(_ head: [UInt8]) -> Range<Int>? {
        var start = 0
        while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
        guard head[start...].starts(with: Array("<?xml".utf8)) else { return nil }
        guard let close = head.indices.dropFirst(start).first(where: { head[$0] == UInt8(ascii: "?") && $0 + 1 < head.count && head[$0 + 1] == UInt8(ascii: ">") })
        else { return nil }
        let declaration = Array(head[start..<close])
        let key = Array("encoding".utf8)
        guard let keyStart = (0...(max(0, declaration.count - key.count))).first(where: { declaration[$0...].starts(with: key) }) else { return nil }
        var index = keyStart + key.count
        while index < declaration.count, [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "=")].contains(declaration[index]) { index += 1 }
        guard index < declaration.count, declaration[index] == UInt8(ascii: "\"") || declaration[index] == UInt8(ascii: "'") else { return nil }
        let quote = declaration[index]
        guard let end = declaration[(index + 1)...].firstIndex(of: quote) else { return nil }
        return (start + index + 1)..<(start + end)
    }

    private static func isUTF8(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered == "utf-8" || lowered == "utf8"
    }

    /// `bytes` converted by iconv from `encoding`; the result's XML declaration names UTF-8.
    private static func convert(_ bytes: Data.SubSequence, from encoding: String) throws(NewsstandError) -> Data {
        // A name with anything but letters, digits and `-_.:()` is nobody's encoding (and never reaches iconv).
        guard !encoding.isEmpty, encoding.count <= 40,
              encoding.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || "-_.:()".unicodeScalars.contains($0) })
        else {
            throw NewsstandError.invalidCatalog("says it is in the encoding \"\(TextSanitizer.inert(String(encoding.prefix(40))))\", which is no encoding's name.")
        }
        let descriptor = iconv_open("UTF-8", encoding)
        guard descriptor != iconv_t(bitPattern: -1) else {
            throw NewsstandError.invalidCatalog("is in the encoding \(TextSanitizer.inert(encoding)), which this system cannot read (iconv does not know it).")
        }
        defer { iconv_close(descriptor) }
        var input = Array(bytes)
        var output = [UInt8](repeating: 0, count: max(64, input.count * 2 + 16))
        var inputLeft = input.count
        var written = 0
        while true {
            var outputLeft = output.count - written
            let (result, code) = input.withUnsafeMutableBufferPointer { inputBuffer in
                output.withUnsafeMutableBufferPointer { outputBuffer in
                    var inputPointer: UnsafeMutablePointer<CChar>? = inputBuffer.baseAddress.map {
                        UnsafeMutableRawPointer($0 + (inputBuffer.count - inputLeft)).assumingMemoryBound(to: CChar.self)
                    }
                    var outputPointer: UnsafeMutablePointer<CChar>? = outputBuffer.baseAddress.map {
                        UnsafeMutableRawPointer($0 + written).assumingMemoryBound(to: CChar.self)
                    }
                    let result = iconv(descriptor, &inputPointer, &inputLeft, &outputPointer, &outputLeft)
                    return (result, errno)
                }
            }
            written = output.count - outputLeft
            if result != -1 || inputLeft == 0 { break }
            switch code {
            case E2BIG:
                output += [UInt8](repeating: 0, count: output.count)
            default:
                // A byte sequence the encoding does not have: one replacement character, then on.
                output.replaceSubrange(written..<min(output.count, written + 3), with: [0xEF, 0xBF, 0xBD])
                written += 3
                if output.count < written + 16 { output += [UInt8](repeating: 0, count: output.count) }
                inputLeft -= 1
            }
        }
        var converted = Array(output[0..<written])
        if let range = declarationEncodingRange(Array(converted.prefix(256))) {
            converted.replaceSubrange(range, with: Array("UTF-8".utf8))
        }
        return Data(converted)
    }
}
