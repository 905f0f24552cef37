/// A file name of a published folder split at its last dot, by bytes: Foundation's path
/// operations normalise slashes and scan whole paths, and took a tenth of a re-run over 10,000 files.
enum FileName {
    /// `pdf` of `2026-03 Spring.pdf`; empty for a name without one (`README`, `name.`, `.hidden`).
    static func pathExtension(_ name: String) -> String {
        guard let dot = lastDot(name) else { return "" }
        return String(name.utf8[name.utf8.index(after: dot)...]) ?? ""
    }

    /// `2026-03 Spring` of `2026-03 Spring.pdf`; the whole name when it has no extension.
    static func stem(_ name: String) -> String {
        guard let dot = lastDot(name) else { return name }
        return String(name.utf8[..<dot]) ?? name
    }

    /// The last dot that starts an extension: not the first byte, not the last.
    private static func lastDot(_ name: String) -> String.Index? {
        let bytes = name.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex, bytes.index(after: dot) != bytes.endIndex
        else { return nil }
        return dot
    }
}
