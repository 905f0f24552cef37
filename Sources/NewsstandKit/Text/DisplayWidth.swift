import CText

/// How many terminal columns text takes, and how to cut it to fit: as the C library's `wcwidth`
/// says, which is what ncurses uses to place each character, so that our columns and the
/// terminal's agree (CJK, emoji, combining marks, joiners). The only file that imports CText.
public enum DisplayWidth {
    /// The columns one scalar takes: `wcwidth`'s answer (0 for combining marks and joiners, 2 for
    /// wide East Asian and most emoji); the table below where the C library has no answer.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value < 0x20 ? 0 : 1 }
        if value < 0xA0 { return 0 }
        if let width = libcWidth(value) { return width }
        return tableWidth(scalar)
    }

    private static func libcWidth(_ value: UInt32) -> Int? {
        let width = ctext_wcwidth(value)
        return width >= 0 ? Int(width) : nil
    }

    /// Widths by Unicode properties, for a C library without C.UTF-8 or a scalar it does not know.
    static func tableWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0 { return 0 }
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return 0
        default:
            break
        }
        if (0x1160...0x11FF).contains(value) || value == 0x200B { return 0 }
        if isWide(value) { return 2 }
        return 1
    }

    /// The columns a string takes.
    public static func of(_ text: String) -> Int {
        var width = 0
        for character in text {
            width += of(character)
        }
        return width
    }

    /// The columns one grapheme cluster takes: the sum of its ``cells(of:)``.
    public static func of(_ character: Character) -> Int {
        if character.isASCII { return of(character.unicodeScalars.first!) }
        return cells(of: character).reduce(0) { $0 + $1.width }
    }

    /// A grapheme as ncurses places it: every scalar with a width starts a cell of that width,
    /// and the zero-width scalars after it (combining marks, variation selectors, joiners) ride
    /// on that cell. A family emoji joined by ZWJs is three wide cells, as `wcwidth` counts it.
    public static func cells(of character: Character) -> [(text: String, width: Int)] {
        var cells: [(text: String, width: Int)] = []
        for scalar in character.unicodeScalars {
            let width = of(scalar)
            if width > 0 || cells.isEmpty {
                cells.append((String(scalar), width))
            } else if cells[cells.count - 1].text.unicodeScalars.count < 5 {
                // ncurses keeps at most five characters a cell: the rest is dropped.
                cells[cells.count - 1].text.unicodeScalars.append(scalar)
            }
        }
        return cells
    }

    /// The longest prefix of `text` that fits in `columns`, with `…` when it was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if of(text) <= columns { return text }
        var result = ""
        var width = 0
        for character in text {
            let characterWidth = of(character)
            if width + characterWidth > columns - 1 { break }
            result.append(character)
            width += characterWidth
        }
        return result + "…"
    }

    /// `text` cut to `columns` and padded with spaces to exactly that width.
    public static func pad(_ text: String, to columns: Int) -> String {
        let cut = truncate(text, to: columns)
        let missing = columns - of(cut)
        return missing > 0 ? cut + String(repeating: " ", count: missing) : cut
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
             0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB,
             0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA,
             0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757,
             0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
             0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
             0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F,
             0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
