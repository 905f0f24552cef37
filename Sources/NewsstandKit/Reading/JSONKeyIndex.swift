import Foundation

/// The strings of a JSON array as `ReadingState.jsonArray` writes local keys (`["a","b"]`, no
/// escapes), found by their bytes where they lie in a copy of the text.
///
/// A changed catalog's keys are checked against the keys of the subscription's first load: read
/// through `json_each` into a `Set<String>`, that was a tenth of a sync of a hundred changed
/// catalogs of 1,000 issues. Here each key is one hash and, on a hit, one byte comparison.
struct JSONKeyIndex {
    private let text: [UInt8]
    /// Each key's first byte and length in `text`.
    private let starts: [Int32]
    private let lengths: [Int32]
    /// Open addressing: a key's number + 1 in the slot its hash picks (or a later one), 0 for none.
    private let slots: [Int32]
    private let mask: Int

    var count: Int { starts.count }

    /// Nil when the text is not such an array (an escape, white space, anything else): the
    /// caller reads it with SQLite's JSON functions instead.
    init?(json: UnsafeBufferPointer<UInt8>) {
        guard json.count >= 2, json.count < Int(Int32.max), json.first == UInt8(ascii: "["), json.last == UInt8(ascii: "]") else { return nil }
        let text = Array(json)
        var starts: [Int32] = []
        var lengths: [Int32] = []
        starts.reserveCapacity(json.count / 8)
        lengths.reserveCapacity(json.count / 8)
        let end = text.count - 1
        var index = 1
        let found = text.withUnsafeBufferPointer { bytes -> Bool in
            while index < end {
                if !starts.isEmpty {
                    guard bytes[index] == UInt8(ascii: ",") else { return false }
                    index += 1
                }
                guard index < end, bytes[index] == UInt8(ascii: "\"") else { return false }
                let start = index + 1
                guard let close = bytes.firstIndex(of: UInt8(ascii: "\""), from: start, to: end),
                      bytes.firstIndex(of: UInt8(ascii: "\\"), from: start, to: close) == nil else { return false }
                starts.append(Int32(start))
                lengths.append(Int32(close - start))
                index = close + 1
            }
            return true
        }
        guard found else { return nil }
        var capacity = 16
        while capacity < starts.count * 2 { capacity <<= 1 }
        let mask = capacity - 1
        var slots = [Int32](repeating: 0, count: capacity)
        text.withUnsafeBufferPointer { bytes in
            for number in starts.indices {
                var slot = Self.hash(UnsafeBufferPointer(rebasing: bytes[Int(starts[number])..<Int(starts[number] + lengths[number])])) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(number + 1)
            }
        }
        self.text = text
        self.starts = starts
        self.lengths = lengths
        self.slots = slots
        self.mask = mask
    }

    func contains(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { key in
            text.withUnsafeBufferPointer { bytes in
                var slot = Self.hash(key) & mask
                while slots[slot] != 0 {
                    let number = Int(slots[slot] - 1)
                    if Int(lengths[number]) == key.count,
                       key.isEmpty || memcmp(bytes.baseAddress! + Int(starts[number]), key.baseAddress!, key.count) == 0 {
                        return true
                    }
                    slot = (slot + 1) & mask
                }
                return false
            }
        }
    }

    /// ``fnv1a(_:)``, folded to an `Int`.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let hash = fnv1a(bytes)
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }

    /// The 64-bit FNV-1a hash of `bytes` (also what the reading state's key-set digest is made of).
    static func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
