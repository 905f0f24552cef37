import Foundation
import NewsstandKit

/// One issue as a line of the list view: its marks (N new, ● unread, P pinned), title, date,
/// size and state, with a progress bar while it downloads; narrow lines drop size, then date.
struct IssueRowView: ShelfCard {
    let item: ShelfItem
    let isSelected: Bool
    let theme: Theme

    static let stateWidth = 16

    func render(into buffer: inout Buffer, area: Rect) {
        guard !area.isEmpty else { return }
        let styled = line(into: &buffer, area: area, selected: isSelected, theme: theme)
        let y = area.y
        if item.isNew {
            buffer.write("N", x: area.x, y: y, style: styled(theme.unread), clip: area)
        } else if item.isUnread {
            buffer.write(CardView.unreadMark, x: area.x, y: y, style: styled(theme.unread), clip: area)
        }
        if item.isPinned { buffer.write("P", x: area.x + 1, y: y, style: styled(theme.dim), clip: area) }

        var right = area.maxX - Self.stateWidth
        if let (label, style) = StateLabel.of(item.state, theme: theme) {
            buffer.write(label, x: right + 1, y: y, style: styled(style), clip: area)
        } else if case .downloading(let progress) = item.state {
            let (bar, percent) = StateLabel.progress(progress, width: Self.stateWidth - 1)
            buffer.write(bar, x: right + 1, y: y, style: theme.progress, clip: area)
            buffer.write(percent, x: area.maxX - percent.count, y: y, style: styled(theme.title), clip: area)
        }
        if area.width >= 70 {
            let size = item.size.map(Formatting.bytes) ?? ""
            right -= 9
            buffer.write(String(repeating: " ", count: max(0, 8 - size.count)) + size, x: right, y: y, style: styled(theme.dim), clip: area)
        }
        if area.width >= 56 {
            right -= 11
            buffer.write(Formatting.day(item.releaseDate), x: right, y: y, style: styled(theme.dim), clip: area)
        }
        let titleWidth = right - 1 - (area.x + 3)
        if titleWidth > 0 {
            buffer.write(DisplayWidth.truncate(TextSanitizer.inert(item.cardTitle), to: titleWidth), x: area.x + 3, y: y,
                         style: styled(theme.title), clip: area)
        }
    }
}
