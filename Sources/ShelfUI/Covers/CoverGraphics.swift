/// How the shelf draws covers: as pictures where the terminal can show them, as symbols in
/// coloured cells (chafa's blocks and sextants), or not at all (a title card each).
public enum CoverGraphics: String, Sendable, CaseIterable {
    /// Pictures when the terminal answers that it can show them, else symbols.
    case auto
    /// The kitty graphics protocol (kitty, Ghostty): Unicode placeholders where the terminal has
    /// them, else placed at the cursor.
    case kitty
    /// Sixel images (xterm -ti vt340, foot, WezTerm, Konsole, mlterm, contour).
    case sixel
    /// iTerm2's inline images (iTerm2, WezTerm, Konsole).
    case iterm2
    /// Blocks and sextants in coloured cells: works in every terminal with 256 colours.
    case symbols
    /// Title cards only.
    case off
}
