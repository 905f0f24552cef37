import Foundation
import NewsstandKit

/// A card of the grid: an issue or a publication.
protocol ShelfCard {
    func render(into buffer: inout Buffer, area: Rect)
}

extension ShelfCard {
    /// The frame every card has (heavy when selected), and the area inside it with its cover's
    /// place at the top; nil when nothing fits inside.
    func frame(into buffer: inout Buffer, area: Rect, selected: Bool, theme: Theme, coverRows: Int) -> (inner: Rect, cover: Rect)? {
        guard !area.isEmpty else { return nil }
        buffer.fill(area)
        buffer.box(area, style: selected ? theme.selectedBorder : theme.border, heavy: selected)
        let inner = area.inset(by: 1)
        guard !inner.isEmpty else { return nil }
        let cover = Rect(x: inner.x + (inner.width - CardView.coverColumns) / 2, y: inner.y,
                         width: min(CardView.coverColumns, inner.width), height: min(coverRows, inner.height))
        return (inner, cover.intersection(inner))
    }
}

extension ShelfCard {
    /// Clears a list line, in the selection's style when selected; returns how to style a part
    /// of it (on the selected line every part takes the selection's style, to stay readable).
    func line(into buffer: inout Buffer, area: Rect, selected: Bool, theme: Theme) -> (Style) -> Style {
        let base = selected ? theme.selectedRow : Style.plain
        buffer.fill(area, with: Cell(" ", style: base))
        return { selected ? base : $0 }
    }
}

/// One issue on the shelf: cover, title, date, price and download state.
struct CardView: ShelfCard {
    let item: ShelfItem
    let isSelected: Bool
    let theme: Theme
    /// Rows of the cover: fewer on a compact card.
    var coverRows = CardView.coverRows

    /// On the cover's corner of a downloaded issue not read yet.
    static let unreadMark = "●"
    static let coverColumns = 12
    static let coverRows = 8

    func render(into buffer: inout Buffer, area: Rect) {
        guard let (inner, coverArea) = frame(into: &buffer, area: area, selected: isSelected, theme: theme, coverRows: coverRows) else { return }
        renderCover(into: &buffer, area: coverArea)

        var y = inner.y + coverRows
        for line in TextLayout.wrap(item.cardTitle, width: inner.width, lines: 2) {
            buffer.write(line, x: inner.x, y: y, style: theme.title, clip: inner)
            y += 1
        }
        renderInfoLine(into: &buffer, inner: inner, y: inner.y + coverRows + 2)
        renderState(into: &buffer, inner: inner, y: inner.y + coverRows + 3)
    }

    private func renderCover(into buffer: inout Buffer, area: Rect) {
        let picture = item.cover?.isPicture ?? false
        if let cover = item.cover, picture || theme.colors >= .palette256 {
            cover.render(into: &buffer, area: area)
        } else {
            // Without a cover, the publication's colour tells whose issue it is.
            TitleCard(title: item.cardTitle, colorKey: item.subscription.isEmpty ? item.id : item.subscription, theme: theme)
                .render(into: &buffer, area: area)
        }
        // A picture is drawn whole or not at all: its badges go on the card's frame above it.
        let badges = picture ? Rect(x: area.x, y: area.y - 1, width: area.width, height: 1) : area
        if item.isNew {
            Badge.render("NEW", style: theme.newBadge, into: &buffer, x: badges.x, y: badges.y, clip: badges)
        } else if item.isUnread {
            // A mark, not a word: the card's one word for a downloaded issue is READ, and a
            // ribbon saying UNREAD above it read as a contradiction.
            Badge.render(Self.unreadMark, style: theme.unreadBadge, into: &buffer, x: badges.x, y: badges.y, clip: badges)
        }
        if item.isPinned {
            Badge.render("PIN", style: theme.pinBadge, into: &buffer, x: Badge.rightAligned("PIN", in: badges), y: badges.y + badges.height - 1, clip: badges)
        }
    }

    private func renderInfoLine(into buffer: inout Buffer, inner: Rect, y: Int) {
        if case .downloading(let progress) = item.state {
            var text = Formatting.bytes(Int64(progress.bytesPerSecond)) + "/s"
            if let eta = progress.secondsRemaining { text += " " + Formatting.duration(eta) }
            buffer.write(text, x: inner.x, y: y, style: theme.dim, clip: inner)
            return
        }
        buffer.write(Formatting.day(item.releaseDate), x: inner.x, y: y, style: theme.dim, clip: inner)
        let price = item.isFree ? "FREE" : "PAID"
        buffer.write(price, x: inner.maxX - price.count, y: y, style: item.isFree ? theme.free : theme.paid, clip: inner)
    }

    private func renderState(into buffer: inout Buffer, inner: Rect, y: Int) {
        guard let (label, style) = StateLabel.of(item.state, theme: theme) else {
            if case .downloading(let progress) = item.state {
                let (bar, percent) = StateLabel.progress(progress, width: inner.width)
                buffer.write(bar, x: inner.x, y: y, style: theme.progress, clip: inner)
                buffer.write(percent, x: inner.maxX - percent.count, y: y, style: theme.title, clip: inner)
            }
            return
        }
        let (text, offset) = TextLayout.center(label, width: inner.width)
        buffer.write(text, x: inner.x + offset, y: y, style: style, clip: inner)
    }
}
