import NewsstandKit

/// The pictures made for the shelf, by ID: what the terminal is sent to show each (kitty's
/// upload, or the sixel or iTerm2 image sized for its cells). Filled by the cover loader off the
/// UI thread, read by the terminal when a frame has the picture's cells.
public final class PictureStore: Sendable {
    struct Picture: Sendable {
        let id: UInt32
        let columns: Int
        let rows: Int
        /// kitty: the upload; sixel and iTerm2: the image itself, written at its top-left cell.
        let payload: [UInt8]
    }

    let support: PictureSupport
    private let pictures = Locked<[UInt32: Picture]>([:])
    private let lastID: Locked<UInt32>
    /// 24-bit IDs with a high byte of their own (0x4E, "N"), so that another program's images in
    /// the same kitty window are not replaced; palette indices from 16 where colours are 256.
    private let idRange: ClosedRange<UInt32>

    init(support: PictureSupport, colors: ColorSupport) {
        self.support = support
        idRange = colors == .direct ? 0x4E_0100...0x4E_FFFF : 16...255
        lastID = Locked(idRange.lowerBound - 1)
    }

    /// A fresh ID; after the last, the first again (its picture is replaced).
    func nextID() -> UInt32 {
        lastID.withLock { last in
            last = last >= idRange.upperBound ? idRange.lowerBound : last + 1
            return last
        }
    }

    func add(_ picture: Picture) {
        pictures.withLock { $0[picture.id] = picture }
    }

    func picture(_ id: UInt32) -> Picture? {
        pictures.withLock { $0[id] }
    }
}
