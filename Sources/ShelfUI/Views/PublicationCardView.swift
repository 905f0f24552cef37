import Foundation
import NewsstandKit

/// One publication in the newsstand view: its newest cover, its title, what is new and unread,
/// how many issues are kept, and the state of its catalog.
struct PublicationCardView: ShelfCard {
    let item: PublicationItem
    let isSelected: Bool
    let theme: Theme
    var coverRows = CardView.coverRows

    func render(into buffer: inout Buffer, area: Rect) {
        guard let (inner, coverArea) = frame(into: &buffer, area: area, selected: isSelected, theme: theme, coverRows: coverRows) else { return }
        let picture = item.cover?.isPicture ?? false
        if let cover = item.cover, picture || theme.colors >= .palette256 {
            cover.render(into: &buffer, area: coverArea)
        } else {
            TitleCard(title: item.title, colorKey: item.name, theme: theme).render(into: &buffer, area: coverArea)
        }
        if item.newCount > 0 {
            // A picture is drawn whole or not at all: the badge goes on the frame above it.
            let badge = picture ? Rect(x: coverArea.x, y: coverArea.y - 1, width: coverArea.width, height: 1) : coverArea
            Badge.render("\(item.newCount) NEW", style: theme.newBadge, into: &buffer, x: badge.x, y: badge.y, clip: badge)
        }

        var y = inner.y + coverRows
        for line in TextLayout.wrap(item.title, width: inner.width, lines: 2) {
            buffer.write(line, x: inner.x, y: y, style: theme.title, clip: inner)
            y += 1
        }
        if let folder = item.folder {
            let (kind, action): (String, String) = switch folder.kind {
            case .sections: ("sections", "Enter ›")
            case .issues: ("issues · + subscribes", "Enter ›")
            case .unknown: ("a feed", "Enter ›")
            case .issue: ("an issue", "")
            }
            buffer.write(DisplayWidth.truncate(kind, to: inner.width), x: inner.x, y: inner.y + coverRows + 2, style: theme.dim, clip: inner)
            let (text, offset) = TextLayout.center(DisplayWidth.truncate(action, to: inner.width), width: inner.width)
            buffer.write(text, x: inner.x + offset, y: inner.y + coverRows + 3, style: theme.dim, clip: inner)
            return
        }
        // The longest wording that fits whole: a count cut in the middle says nothing.
        let (kept, total) = (item.downloadedCount, item.issueCount)
        var wordings = ["\(kept) of \(total) kept", "\(kept)/\(total) kept", "\(kept)/\(total)"]
        if item.unreadCount > 0 {
            wordings = wordings.map { "\(item.unreadCount) unread · " + $0 } + ["\(item.unreadCount) unread"]
        }
        let counts = wordings.first { DisplayWidth.of($0) <= inner.width } ?? wordings[wordings.count - 1]
        buffer.write(DisplayWidth.truncate(counts, to: inner.width), x: inner.x, y: inner.y + coverRows + 2,
                     style: item.unreadCount > 0 ? theme.unread : theme.dim, clip: inner)

        let (label, style) = Self.conditionLabel(item.condition, theme: theme, width: inner.width)
        let (text, offset) = TextLayout.center(label, width: inner.width)
        buffer.write(text, x: inner.x + offset, y: inner.y + coverRows + 3, style: style, clip: inner)
    }

    /// How a publication's catalog stands, in a word or two: the longest wording that fits
    /// `width` whole (a date cut in the middle says nothing).
    static func conditionLabel(_ condition: PublicationItem.Condition, theme: Theme, width: Int) -> (String, Style) {
        let (wordings, style): ([String], Style) = switch condition {
        case .loading: (["loading…"], theme.dim)
        case .fresh(let date?): (["✓ " + Formatting.moment(date), "✓ " + String(Formatting.moment(date).suffix(5)), "✓"], theme.dim)
        case .fresh(nil): (["✓ local", "✓"], theme.dim)
        case .refreshing: (["refreshing…"], theme.queued)
        case .offline(let since):
            (["offline since " + Formatting.moment(since), "offline · " + Formatting.moment(since),
              "offline · " + String(Formatting.moment(since).suffix(5)), "offline"], theme.failure)
        case .needsCredentials: (["NEEDS LOGIN"], theme.failure)
        case .failed: (["ERROR"], theme.failure)
        }
        return (wordings.first { DisplayWidth.of($0) <= width } ?? DisplayWidth.truncate(wordings[wordings.count - 1], to: width), style)
    }
}

/// A card's stand-in for a missing cover: the title on a colour that is the same for every card
/// of one publication (a frame without colour).
struct TitleCard {
    let title: String
    let colorKey: String
    let theme: Theme

    func render(into buffer: inout Buffer, area: Rect) {
        guard !area.isEmpty else { return }
        let style = theme.textCover(for: colorKey)
        var textArea = area
        if theme.colors != .none {
            buffer.fill(area, with: Cell(" ", style: style))
            textArea = Rect(x: area.x + 1, y: area.y, width: area.width - 2, height: area.height)
        } else {
            buffer.box(area, style: theme.border)
            textArea = area.inset(by: 1)
        }
        let lines = TextLayout.wrap(title, width: max(1, textArea.width), lines: max(1, textArea.height))
        let top = textArea.y + max(0, (textArea.height - lines.count) / 2)
        for (index, line) in lines.enumerated() {
            let (text, offset) = TextLayout.center(line, width: textArea.width)
            buffer.write(text, x: textArea.x + offset, y: top + index, style: theme.colors == .none ? Style(bold: true) : style, clip: textArea)
        }
    }
}

/// A word or mark set on a cover's corner: NEW, the unread mark, PIN.
enum Badge {
    static func render(_ text: String, style: Style, into buffer: inout Buffer, x: Int, y: Int, clip: Rect) {
        buffer.write(" " + text + " ", x: x, y: y, style: style, clip: clip)
    }

    /// The x where `text` ends at the right edge of `clip`.
    static func rightAligned(_ text: String, in clip: Rect) -> Int {
        clip.maxX - DisplayWidth.of(" " + text + " ")
    }
}
