import Foundation

/// The bounds every catalog is read within, whatever its format: a property list, a feed's
/// every page, and the cached copy.
public struct CatalogLimits: Sendable {
    /// The largest document read, in bytes (once decompressed).
    public var maximumSize = 128 << 20
    /// The deepest nesting of elements (XML), arrays and dictionaries (property lists), or
    /// arrays and objects (JSON).
    public var maximumDepth = 64
    /// The largest cover carried inside a catalog as a `data:` URI, in bytes once decoded.
    public var maximumInlineCover = 1 << 20

    public init(maximumSize: Int = 128 << 20, maximumDepth: Int = 64) {
        self.maximumSize = maximumSize
        self.maximumDepth = maximumDepth
    }

    /// Refuses a document larger than ``maximumSize``, in the one sentence every format uses.
    public func checkSize(of data: Data) throws(NewsstandError) {
        guard data.count <= maximumSize else {
            throw NewsstandError.invalidCatalog("is \(data.count) bytes, more than the \(maximumSize) allowed.")
        }
    }
}
