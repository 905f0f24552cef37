import Foundation
import NewsstandKit

/// One publication (or a server's section) as a line of the list view: a mark when it has new
/// issues, its title, its counts and the state of its catalog.
struct PublicationRowView: ShelfCard {
    let item: PublicationItem
    let isSelected: Bool
    let theme: Theme

    static let conditionWidth = 16
    static let countsWidth = 24

    func render(into buffer: inout Buffer, area: Rect) {
        guard !area.isEmpty else { return }
        let styled = line(into: &buffer, area: area, selected: isSelected, theme: theme)
        let y = area.y
        if item.newCount > 0 { buffer.write("N", x: area.x, y: y, style: styled(theme.unread), clip: area) }
        var right = area.maxX
        if let folder = item.folder {
            let kind = switch folder.kind {
            case .sections: "sections ›"
            case .issues: "issues ›"
            case .unknown: "a feed ›"
            case .issue: "an issue"
            }
            right -= Self.conditionWidth
            buffer.write(kind, x: right + 1, y: y, style: styled(theme.dim), clip: area)
        } else {
            let (label, style) = PublicationCardView.conditionLabel(item.condition, theme: theme, width: Self.conditionWidth - 1)
            right -= Self.conditionWidth
            buffer.write(label, x: right + 1, y: y, style: styled(style), clip: area)
            if area.width >= 60 {
                // The longest wording that fits whole, leaving off the least news first.
                var parts: [String] = []
                if item.newCount > 0 { parts.append("\(item.newCount) new") }
                if item.unreadCount > 0 { parts.append("\(item.unreadCount) unread") }
                let kept = "\(item.downloadedCount)/\(item.issueCount)"
                let wordings = [parts + [kept + " kept"], parts + [kept], parts, [kept + " kept"]].map { $0.joined(separator: " · ") }
                let counts = wordings.first { DisplayWidth.of($0) <= Self.countsWidth - 1 } ?? DisplayWidth.truncate(wordings[2], to: Self.countsWidth - 1)
                right -= Self.countsWidth
                buffer.write(counts, x: right + 1, y: y,
                             style: styled(item.newCount + item.unreadCount > 0 ? theme.unread : theme.dim), clip: area)
            }
        }
        let titleWidth = right - (area.x + 2)
        if titleWidth > 0 {
            buffer.write(DisplayWidth.truncate(TextSanitizer.inert(item.title), to: titleWidth), x: area.x + 2, y: y,
                         style: styled(theme.title), clip: area)
        }
    }
}
