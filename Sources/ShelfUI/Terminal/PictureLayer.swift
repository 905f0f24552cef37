/// Finds the pictures in a frame and works out what the terminal is sent for them, beside what
/// curses draws: kitty's uploads before the cells; pictures placed at the cursor after them, and
/// the rows to write again where a sixel went away (only writing cells erases its pixels).
///
/// Kept apart from curses so that it can be tested without a terminal; the terminal carries out
/// the ``Frame`` it returns.
struct PictureLayer {
    /// A picture on screen: its image and the cell of its top-left corner.
    struct Placement: Hashable {
        let id: UInt32
        let x: Int
        let y: Int
        let columns: Int
        let rows: Int

        func intersects(row: Int) -> Bool { row >= y && row < y + rows }
    }

    /// What to do for one frame.
    struct Frame {
        /// Written before curses updates the screen (kitty's uploads and deletions).
        var before: [UInt8] = []
        /// Rows for curses to write whole again (a sixel or inline image went from them).
        var redrawRows: Set<Int> = []
        /// Written at a cell after curses' update, the cursor put back after.
        var after: [(x: Int, y: Int, bytes: [UInt8])] = []
    }

    let store: PictureStore
    private var support: PictureSupport { store.support }
    /// kitty images the terminal has.
    private var uploaded: Set<UInt32> = []
    /// Pictures drawn at the cursor that are on screen now.
    private(set) var shown: Set<Placement> = []

    init(store: PictureStore) {
        self.store = store
    }

    /// Whether curses writes a picture's cells as they are (kitty's placeholders), or blank.
    var drawsPlaceholderCells: Bool { support.pictureProtocol == .kittyPlaceholders }

    /// The pictures whose every cell is in `buffer` (one partly covered by a dialog is not drawn).
    func placements(in buffer: Buffer) -> Set<Placement> {
        Set(buffer.pictures.filter { store.picture($0.id) != nil && isWhole($0, in: buffer) })
    }

    /// Whether every cell of the picture is still one of its placeholders: anything drawn over
    /// it (a dialog, the help) is not.
    private func isWhole(_ placement: Placement, in buffer: Buffer) -> Bool {
        guard placement.x + placement.columns <= buffer.width, placement.y + placement.rows <= buffer.height else { return false }
        let color = KittyGraphics.color(for: placement.id)
        for row in 0..<placement.rows {
            for column in 0..<placement.columns {
                let cell = buffer[placement.x + column, placement.y + row]
                guard cell.text.utf8.first == 0xF4, cell.style.foreground == color else { return false }
            }
        }
        return true
    }

    /// What to send for `buffer`; `repainted` when the terminal was cleared (a resize, a return
    /// from a reader), which takes every picture with it.
    mutating func frame(for buffer: Buffer, repainted: Bool) -> Frame {
        var frame = Frame()
        if repainted {
            uploaded.removeAll()
            shown.removeAll()
        }
        let wanted = placements(in: buffer)
        let throughTmux = support.throughTmux
        func wrap(_ sequence: [UInt8]) -> [UInt8] { throughTmux ? KittyGraphics.throughTmux(sequence) : sequence }
        switch support.pictureProtocol {
        case .kittyPlaceholders:
            for placement in wanted.sorted(by: Self.order) where !uploaded.contains(placement.id) {
                guard let picture = store.picture(placement.id) else { continue }
                frame.before += wrap(picture.payload)
                frame.before += wrap(KittyGraphics.virtualPlacement(id: placement.id, columns: placement.columns, rows: placement.rows))
                uploaded.insert(placement.id)
            }
        case .kittyDirect:
            for placement in shown.subtracting(wanted).sorted(by: Self.order) {
                frame.before += wrap(KittyGraphics.deletePlacement(id: placement.id, placement: Self.placementNumber(placement)))
            }
            for placement in wanted.subtracting(shown).sorted(by: Self.order) {
                guard let picture = store.picture(placement.id) else { continue }
                if !uploaded.contains(placement.id) {
                    frame.before += wrap(picture.payload)
                    uploaded.insert(placement.id)
                }
                frame.after.append((placement.x, placement.y, wrap(KittyGraphics.place(
                    id: placement.id, placement: Self.placementNumber(placement), columns: placement.columns, rows: placement.rows))))
            }
            shown = wanted
        case .sixel, .iterm2:
            for placement in shown.subtracting(wanted) {
                frame.redrawRows.formUnion(placement.y..<(placement.y + placement.rows))
            }
            // A picture still wanted on a row written again is painted again.
            let damaged = wanted.filter { placement in frame.redrawRows.contains { placement.intersects(row: $0) } }
            for placement in wanted.subtracting(shown).union(damaged).sorted(by: Self.order) {
                guard let picture = store.picture(placement.id) else { continue }
                frame.after.append((placement.x, placement.y, picture.payload))
            }
            shown = wanted.filter { store.picture($0.id) != nil }
        }
        return frame
    }

    /// Top to bottom, left to right: the order a reader sees pictures arrive.
    private static func order(_ a: Placement, _ b: Placement) -> Bool {
        (a.y, a.x) < (b.y, b.x)
    }

    /// kitty's placement ID for a picture at a cell: one per position, so that the same cover
    /// shown twice is two placements.
    static func placementNumber(_ placement: Placement) -> UInt32 {
        UInt32(placement.y * 1000 + placement.x + 1)
    }
}
