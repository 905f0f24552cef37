import NewsstandKit

/// Wrapping and cutting text by display width.
enum TextLayout {
    /// Greedy word wrap into at most `lines` lines of `width` columns; the last line ends in `…` if cut.
    static func wrap(_ text: String, width: Int, lines: Int) -> [String] {
        guard width > 0, lines > 0 else { return [] }
        var result: [String] = []
        var current = ""
        var words = TextSanitizer.inert(text).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        while !words.isEmpty {
            let word = words.removeFirst()
            let candidate = current.isEmpty ? word : current + " " + word
            if DisplayWidth.of(candidate) <= width {
                current = candidate
                continue
            }
            if current.isEmpty {
                // A word longer than the line: cut it where it must be cut.
                var head = "", rest = Substring(word)
                while let character = rest.first, DisplayWidth.of(head + String(character)) <= width {
                    head.append(character)
                    rest = rest.dropFirst()
                }
                if head.isEmpty { head = String(rest.prefix(1)); rest = rest.dropFirst() }
                result.append(head)
                if !rest.isEmpty { words.insert(String(rest), at: 0) }
            } else {
                result.append(current)
                current = ""
                words.insert(word, at: 0)
            }
            if result.count == lines {
                let remaining = ([current] + words).filter { !$0.isEmpty }
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
