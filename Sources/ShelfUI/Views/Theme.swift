import NewsstandKit

/// The shelf's styles for a terminal's colour support, with the configuration's `[colors]` in
/// place of the defaults; with no colour, only attributes remain.
public struct Theme: Sendable {
    public let colors: ColorSupport
    private let overrides: [ShelfSettings.Element: ShelfSettings.ColorSpec]

    public init(colors: ColorSupport, overrides: [ShelfSettings.Element: ShelfSettings.ColorSpec] = [:]) {
        self.colors = colors
        self.overrides = overrides
    }

    /// `element`'s style: the configuration's when it sets one, else `standard`.
    private func style(_ element: ShelfSettings.Element, _ standard: Style) -> Style {
        guard let spec = overrides[element] else { return standard }
        func color(_ value: Color?, _ fallback: Color) -> Color {
            guard colors != .none, let value else { return colors == .none ? .default : fallback }
            return value
        }
        return Style(foreground: color(spec.foreground, standard.foreground), background: color(spec.background, standard.background),
                     bold: spec.bold, dim: spec.dim, reverse: spec.reverse, underline: spec.underline)
    }

    private func color(_ basic: Color, _ rich: Color? = nil) -> Color {
        switch colors {
        case .none: return .default
        case .basic: return basic
        case .palette256, .direct: return rich ?? basic
        }
    }

    var header: Style { style(.header, colors == .none ? Style(bold: true, reverse: true) : Style(foreground: .white, background: .blue, bold: true)) }
    var statusBar: Style { style(.status, colors == .none ? Style(reverse: true) : Style(foreground: .black, background: .white)) }
    var statusWarning: Style { style(.statusWarning, colors == .none ? Style(bold: true, reverse: true) : Style(foreground: .black, background: .yellow, bold: true)) }
    var statusSuccess: Style { style(.statusSuccess, colors == .none ? Style(reverse: true) : Style(foreground: color(.green, .palette(22)), background: .white, bold: true)) }
    var statusError: Style { style(.statusError, colors == .none ? Style(bold: true, reverse: true, underline: true) : Style(foreground: .white, background: .red, bold: true)) }

    /// The status line's style for a message of `kind`.
    func status(_ kind: ShelfMessage.Kind) -> Style {
        switch kind {
        case .info: return statusBar
        case .success: return statusSuccess
        case .warning: return statusWarning
        case .error: return statusError
        }
    }
    var border: Style { style(.border, Style(foreground: color(.white, .palette(244)))) }
    var selectedBorder: Style { style(.selected, Style(foreground: color(.yellow, .palette(220)), bold: true)) }
    var title: Style { style(.title, Style(bold: true)) }
    var dim: Style { style(.dim, colors == .none ? Style(dim: true) : Style(foreground: color(.white, .palette(246)))) }
    var free: Style { style(.free, Style(foreground: color(.green), bold: true)) }
    var paid: Style { style(.paid, Style(foreground: color(.magenta))) }
    var download: Style { style(.download, colors == .none ? Style(bold: true) : Style(foreground: color(.cyan), bold: true)) }
    var queued: Style { style(.queued, Style(foreground: color(.yellow))) }
    var progress: Style { style(.progress, Style(foreground: color(.green))) }
    var read: Style { style(.read, colors == .none ? Style(bold: true, reverse: true) : Style(foreground: .black, background: .green, bold: true)) }
    var failure: Style { style(.failure, colors == .none ? Style(bold: true, underline: true) : Style(foreground: color(.red), bold: true)) }
    /// The selected line of the list view.
    var selectedRow: Style { style(.selected, colors == .none ? Style(reverse: true) : Style(foreground: .black, background: color(.yellow, .palette(220)))) }
    var overlay: Style { Style(foreground: .default, background: .default) }
    var key: Style { style(.key, Style(foreground: color(.yellow), bold: true)) }
    /// NEW on a cover's corner.
    var newBadge: Style { style(.newBadge, colors == .none ? Style(bold: true, reverse: true) : Style(foreground: .black, background: color(.yellow, .palette(220)), bold: true)) }
    /// The unread mark on a cover's corner.
    var unreadBadge: Style { style(.unreadBadge, colors == .none ? Style(reverse: true) : Style(foreground: .white, background: color(.blue, .palette(25)), bold: true)) }
    /// PIN on a cover's corner.
    var pinBadge: Style { style(.pinBadge, colors == .none ? Style(reverse: true) : Style(foreground: .black, background: color(.cyan, .palette(80)), bold: true)) }
    var unread: Style { style(.unread, colors == .none ? Style(bold: true) : Style(foreground: color(.cyan, .palette(75)))) }

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
