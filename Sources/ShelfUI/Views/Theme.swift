import NewsstandKit

/// The shelf's styles for a terminal's colour support; with none, only attributes remain.
public struct Theme: Sendable {
    public let colors: ColorSupport

    public init(colors: ColorSupport) {
        self.colors = colors
    }

    private func color(_ basic: Color, _ rich: Color? = nil) -> Color {
        switch colors {
        case .none: return .default
        case .basic: return basic
        case .palette256, .direct: return rich ?? basic
        }
    }

    var header: Style { colors == .none ? Style(bold: true, reverse: true) : Style(foreground: .white, background: .blue, bold: true) }
    var statusBar: Style { colors == .none ? Style(reverse: true) : Style(foreground: .black, background: .white) }
    var statusWarning: Style { colors == .none ? Style(bold: true, reverse: true) : Style(foreground: .white, background: .red, bold: true) }
    var border: Style { Style(foreground: color(.white, .palette(244))) }
    var selectedBorder: Style { Style(foreground: color(.yellow, .palette(220)), bold: true) }
    var title: Style { Style(bold: true) }
    var dim: Style { colors == .none ? Style(dim: true) : Style(foreground: color(.white, .palette(246))) }
    var free: Style { Style(foreground: color(.green), bold: true) }
    var paid: Style { Style(foreground: color(.magenta)) }
    var download: Style { colors == .none ? Style(bold: true) : Style(foreground: color(.cyan), bold: true) }
    var queued: Style { Style(foreground: color(.yellow)) }
    var progress: Style { Style(foreground: color(.green)) }
    var read: Style { colors == .none ? Style(bold: true, reverse: true) : Style(foreground: .black, background: .green, bold: true) }
    var failure: Style { colors == .none ? Style(bold: true, underline: true) : Style(foreground: color(.red), bold: true) }
    var overlay: Style { Style(foreground: .default, background: .default) }
    var key: Style { Style(foreground: color(.yellow), bold: true) }
    /// NEW on a cover's corner.
    var newBadge: Style { colors == .none ? Style(bold: true, reverse: true) : Style(foreground: .black, background: color(.yellow, .palette(220)), bold: true) }
    /// UNREAD on a cover's corner.
    var unreadBadge: Style { colors == .none ? Style(reverse: true) : Style(foreground: .white, background: color(.blue, .palette(25)), bold: true) }
    /// PIN on a cover's corner.
    var pinBadge: Style { colors == .none ? Style(reverse: true) : Style(foreground: .black, background: color(.cyan, .palette(80)), bold: true) }
    var unread: Style { colors == .none ? Style(bold: true) : Style(foreground: color(.cyan, .palette(75))) }

    /// A background for a card with no cover image: one colour per publication, from its name.
    func textCover(for id: String) -> Style {
        guard colors != .none else { return .plain }
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        if colors >= .palette256 {
            let choices: [UInt8] = [24, 25, 29, 30, 53, 54, 58, 88, 89, 94, 60, 66]
            return Style(foreground: .palette(255), background: .palette(choices[Int(hash % UInt32(choices.count))]), bold: true)
        }
        let choices: [Color] = [.blue, .magenta, .cyan, .red, .green]
        return Style(foreground: .white, background: choices[Int(hash % UInt32(choices.count))], bold: true)
    }
}
