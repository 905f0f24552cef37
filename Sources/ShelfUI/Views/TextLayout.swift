import NewsstandKit

/// Wrapping and cutting text by display width.
enum TextLayout {
    /// Greedy word wrap into at most `lines` lines of `width` columns; the last line ends in `…` if cut.
    static func wrap(_ text: String, width: Int, lines: Int) -> [String] {
        guard width > 0, lines > 0 else { return [] }
        var result: [String] = []
        var current = ""
        let words = TextSanitizer.inert(text).split(separator: " ", omittingEmptySubsequences: true)
        var next = 0
        // The rest of a word cut at the end of a line: the next line starts with it.
        var carried: Substring?
        while carried != nil || next < words.count {
            let word: Substring
            if let rest = carried {
                word = rest
                carried = nil
            } else {
                word = words[next]
                next += 1
            }
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if DisplayWidth.of(candidate) <= width {
                current = candidate
                continue
            }
            if current.isEmpty {
                // A word longer than the line: cut it where it must be cut.
                var head = "", rest = word
                while let character = rest.first, DisplayWidth.of(head + String(character)) <= width {
                    head.append(character)
                    rest = rest.dropFirst()
                }
                if head.isEmpty { head = String(rest.prefix(1)); rest = rest.dropFirst() }
                result.append(head)
                if !rest.isEmpty { carried = rest }
            } else {
                result.append(current)
                current = ""
                carried = word
            }
            if result.count == lines {
                let remaining = ([carried.map(String.init) ?? ""] + words[next...].map(String.init)).filter { !$0.isEmpty }
                if !remaining.isEmpty {
                    result[lines - 1] = DisplayWidth.truncate(result[lines - 1] + " " + remaining.joined(separator: " "), to: width)
                }
                return result
            }
        }
        if !current.isEmpty { result.append(current) }
        return Array(result.prefix(lines))
    }

    /// Text centred in `width` columns (cut when longer).
    static func center(_ text: String, width: Int) -> (text: String, offset: Int) {
        let cut = DisplayWidth.truncate(text, to: width)
        return (cut, max(0, (width - DisplayWidth.of(cut)) / 2))
    }
}
