import Foundation

/// Work over a large collection cut into pieces done on every core at once, results in order.
///
/// Used where 100,000 issues make a single core the wait: reading and checking a catalog's
/// entries, making its issues, writing `list --json`.
public enum Pieces {
    /// Below this many items, one piece: handing work to other threads costs more than it saves.
    public static let threshold = 1_024

    /// How many pieces `count` items are cut into: one when few, else pieces of about
    /// ``grain`` items, at least two per core and at most 64, so that a core that finishes
    /// early takes another.
    public static func count(for count: Int) -> Int {
        guard count >= threshold else { return 1 }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return min(64, max(cores * 2, count / grain))
    }

    /// About how many items a piece holds when there are many.
    public static let grain = 512

    /// The items of piece number `piece` when `count` items are cut into `pieces`: pieces of
    /// equal size, the last shorter.
    public static func range(of piece: Int, among count: Int, pieces: Int) -> Range<Int> {
        let pieceSize = (count + pieces - 1) / pieces
        return min(count, piece * pieceSize)..<min(count, (piece + 1) * pieceSize)
    }

    /// `body`'s result for each piece of `0..<count` (its range and its number), in the order
    /// of the pieces; or the error of the first piece that failed.
    public static func map<Element: Sendable, Failure: Error>(
        _ count: Int, _ body: @Sendable (Range<Int>, Int) throws(Failure) -> Element
    ) throws(Failure) -> [Element] {
        let pieces = Self.count(for: count)
        if pieces == 1 { return [try body(0..<count, 0)] }
        let results = Locked<[Result<Element, Failure>?]>(Array(repeating: nil, count: pieces))
        DispatchQueue.concurrentPerform(iterations: pieces) { piece in
            ProcessMemory.adviseHugePagesForThisThread()
            let range = Self.range(of: piece, among: count, pieces: pieces)
            let result = Result { () throws(Failure) in try body(range, piece) }
            results.withLock { $0[piece] = result }
        }
        var ordered: [Element] = []
        ordered.reserveCapacity(pieces)
        for result in results.withLock({ $0 }) { ordered.append(try result!.get()) }
        return ordered
    }
}
