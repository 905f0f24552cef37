import Foundation

extension UnsafeBufferPointer<UInt8> {
    /// Where `byte` first occurs in `start..<end`, found by memchr: the XML readers cross text
    /// and quoted values with it (a byte at a time was a tenth of a parse).
    func firstIndex(of byte: UInt8, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = baseAddress, let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
