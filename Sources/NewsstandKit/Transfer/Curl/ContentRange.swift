import Foundation

/// A parsed `Content-Range: bytes first-last/total` header.
struct ContentRange {
    let first: Int64
    let last: Int64
    let total: Int64?

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
        self.first = first
        self.last = last
        self.total = halves[1] == "*" ? nil : Int64(halves[1])
        if let total, last >= total { return nil }
    }

    /// N in `Content-Range: bytes */N`, the form a 416 answer uses.
    static func unsatisfiedTotal(_ header: String?) -> Int64? {
        guard let header, header.lowercased().hasPrefix("bytes */") else { return nil }
        return Int64(header.dropFirst(8).trimmingCharacters(in: .whitespaces))
    }
}
