import Foundation

extension UnsafeBufferPointer<UInt8> {
    /// Where `byte` first occurs in `start..<end`, found by memchr: the XML readers cross text
    /// and quoted values with it (a byte at a time was a tenth of a parse).
    func firstIndex(of byte: UInt8, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = baseAddress, let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether these bytes are `text`'s, compared with one `memcmp`: the readers tell names,
    /// keys and link relations apart this way, where a `String` made of the bytes was an
    /// allocation and a comparison with each candidate in turn.
    func equals(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        return count == 0 || memcmp(baseAddress!, text.utf8Start, count) == 0
    }

    /// Whether these bytes begin with `text`'s.
    func hasPrefix(_ text: StaticString) -> Bool {
        guard count >= text.utf8CodeUnitCount else { return false }
        return text.utf8CodeUnitCount == 0 || memcmp(baseAddress!, text.utf8Start, text.utf8CodeUnitCount) == 0
    }

    /// Whether these bytes are `text`'s with ASCII letters in any case; `text` is written in
    /// lower case (media types, a text construct's `type`).
    func equalsIgnoringASCIICase(_ lowercase: StaticString) -> Bool {
        guard count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for offset in 0..<count {
            let byte = self[offset]
            if (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) != expected[offset] { return false }
        }
        return true
    }

    /// Whether every byte is below 0x80, looked at eight at a time: a byte at a time was most of
    /// the cost of writing a snapshot's strings.
    var isASCII: Bool {
        guard let base = baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var high: UInt64 = 0
        var position = 0
        while position + 8 <= count {
            high |= raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            position += 8
        }
        while position < count {
            high |= UInt64(base[position])
            position += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
