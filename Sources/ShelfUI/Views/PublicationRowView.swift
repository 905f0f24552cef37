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
            let (label, style) = PublicationCardView.conditionLabel(item.condition, theme: theme)
            right -= Self.conditionWidth
            buffer.write(DisplayWidth.truncate(label, to: Self.conditionWidth - 1), x: right + 1, y: y, style: styled(style), clip: area)
            if area.width >= 60 {
                var counts = "\(item.downloadedCount)/\(item.issueCount) kept"
                if item.unreadCount > 0 { counts = "\(item.unreadCount) unread · " + counts }
                if item.newCount > 0 { counts = "\(item.newCount) new · " + counts }
                right -= Self.countsWidth
                buffer.write(DisplayWidth.truncate(counts, to: Self.countsWidth - 1), x: right + 1, y: y,
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
