/// Makes untrusted text (titles, summaries, server messages) safe to print on a terminal.
public enum TextSanitizer {
    /// `text` with every control character, escape sequence introducer, bidi override and
    /// line break replaced, so that printing it cannot move the cursor, change colours or
    /// reorder what follows. Tabs and line breaks become spaces.
    public static func inert(_ text: String) -> String {
        // Most titles are printable ASCII and come back as they are.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D:
                scalars.append(" ")
            case 0x00...0x1F, 0x7F, 0x80...0x9F:
                scalars.append("\u{FFFD}")
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                // Bidi marks, embeddings, overrides and isolates.
                break
            case 0x2028, 0x2029:
                scalars.append(" ")
            case 0xFFF9...0xFFFB, 0xFEFF:
                break
            default:
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }
}
