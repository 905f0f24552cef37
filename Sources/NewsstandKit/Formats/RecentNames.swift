import Foundation

/// The strings of the element and attribute names a document has used, each made once.
///
/// A feed uses a few dozen names hundreds of thousands of times: making each one's string
/// afresh (its UTF-8 checked, its bytes copied) was a tenth of building a tree. A name of up to
/// 16 bytes is looked up by its bytes, read as two words; a slot holds the name last put there,
/// so a document of many more names than slots is still read right, only slower.
struct RecentNames {
    private struct Slot {
        var length = -1
        var head: UInt64 = 0
        var tail: UInt64 = 0
        var name = ""
    }

    private var slots = [Slot](repeating: Slot(), count: 64)

    mutating func name(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        let count = bytes.count
        guard count > 0, count <= 16, let base = bytes.base.baseAddress else { return String(decoding: bytes, as: UTF8.self) }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: base + bytes.startIndex, byteCount: count) }
        let slot = Int(truncatingIfNeeded: ((words.0 ^ words.1 &* 31) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(count)) >> 58)
        if slots[slot].length == count, slots[slot].head == words.0, slots[slot].tail == words.1 {
            return slots[slot].name
        }
        let name = String(decoding: bytes, as: UTF8.self)
        slots[slot] = Slot(length: count, head: words.0, tail: words.1, name: name)
        return name
    }
}
