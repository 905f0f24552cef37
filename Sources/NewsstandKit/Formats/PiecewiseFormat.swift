import Foundation

/// A format that reads a page's entries in pieces on several cores (a big Atom page), and hands
/// each piece on where it was read, so that the next step on it (checking, in
/// ``CatalogValidator/readAndCheck(_:url:format:limits:)``) runs on the same core right away:
/// every core then waits for the others once a page, not once after reading and again after
/// checking, and no entry is moved from its piece into one array.
protocol PiecewiseFormat: CatalogFormat {
    /// The page read from `data`, without its entries, and what `eachPiece` made of each piece
    /// of them, in the page's order. Each entry's ``FeedEntry/index`` is its place in the page.
    func read<Piece: Sendable>(_ data: Data, url: URL, limits: CatalogLimits,
                               eachPiece: @Sendable (consuming [FeedEntry]) -> Piece) throws(NewsstandError) -> (page: FeedPage, pieces: [Piece])
}
