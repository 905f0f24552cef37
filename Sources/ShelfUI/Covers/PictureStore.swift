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
    /// The pictures, and their IDs oldest first (the first to go when there are too many).
    private struct Kept: Sendable {
        var byID: [UInt32: Picture] = [:]
        var order: [UInt32] = []
        var bytes = 0
    }
    private let kept = Locked(Kept())
    /// At most this many bytes of pictures are kept (a sixel cover is 30–100 KB): a catalog of
    /// 10,000 issues scrolled through does not keep them all.
    let maximumBytes: Int
    private let lastID: Locked<UInt32>
    /// 24-bit IDs with a high byte of their own (0x4E, "N"), so that another program's images in
    /// the same kitty window are not replaced; palette indices from 16 where colours are 256.
    private let idRange: ClosedRange<UInt32>

    init(support: PictureSupport, colors: ColorSupport, maximumBytes: Int = 48 << 20) {
        self.support = support
        self.maximumBytes = maximumBytes
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

    /// Keeps `picture`; returns the IDs of the oldest ones let go to stay within the cap
    /// (their covers are made again when next shown).
    @discardableResult
    func add(_ picture: Picture) -> [UInt32] {
        kept.withLock { kept in
            var evicted: [UInt32] = []
            // An ID used again (the palette's 240 ran out): the cover that had it loses it.
            if let replaced = kept.byID.updateValue(picture, forKey: picture.id) {
                kept.bytes -= replaced.payload.count
                kept.order.removeAll { $0 == picture.id }
                evicted.append(picture.id)
            }
            kept.order.append(picture.id)
            kept.bytes += picture.payload.count
            while kept.bytes > maximumBytes, kept.order.count > 1 {
                let oldest = kept.order.removeFirst()
                kept.bytes -= kept.byID.removeValue(forKey: oldest)?.payload.count ?? 0
                evicted.append(oldest)
            }
            return evicted
        }
    }

    func picture(_ id: UInt32) -> Picture? {
        kept.withLock { $0.byID[id] }
    }
}
