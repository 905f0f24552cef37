import Foundation

/// The safe folder name an issue gets from its publisher's ID.
///
/// A publisher's ID is data (`2026-01`, `urn:uuid:…`, `http://example.com/issues/7`); only its
/// local key ever becomes a path. An ID that is already a safe file name is its own key, so a
/// reader can find it on disk; any other gets a readable stem and a short, stable hash.
public enum LocalKey {
    /// The longest key, in bytes.
    public static let maximumLength = 100

    /// The key for a publisher's ID.
    public static func make(for id: String) -> String {
        if isValid(id) { return id }
        var id = id
        // Hashed and cut from the ID's own bytes, the key written once: a catalog of 10,000
        // `urn:uuid:` IDs makes as many keys, and the copies of each ID on the way, then the
        // stem, the hash and their joins, were a third of checking the catalog.
        if let key = id.withUTF8(asciiKey) { return key }
        // Not ASCII: by Characters, as keys have always been made (a key names a folder on disk).
        let hash = id.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: hashLength) { text in
                writeHash(of: bytes, into: UnsafeMutableBufferPointer(rebasing: text[0..<hashLength]))
                return hashLength
            }
        }
        let tail = id.split(whereSeparator: { $0 == ":" || $0 == "/" }).last.map(String.init) ?? ""
        let stem = String(tail.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            .prefix(maximumStem).map(Character.init)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return (stem.isEmpty ? "issue" : stem) + "-" + hash
    }

    /// The longest stem, and the hash's length in hex digits.
    private static let maximumStem = 40
    private static let hashLength = 10
    /// The stem of an ID with no letter or digit in its last segment.
    private static let fallbackStem: StaticString = "issue"

    /// The key of an ASCII ID, byte by byte (a catalog of 10,000 `urn:uuid:` IDs spent half its
    /// load in the Character-based path): the stem is the last segment after `:` or `/`, its
    /// letters, digits and `-`, at most 40 of them, without `-` at either end (`issue` when
    /// nothing is left), then `-` and the hash. Nil when not ASCII.
    private static func asciiKey(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.isASCII else { return nil }
        var end = bytes.count
        // The last non-empty segment.
        while end > 0, bytes[end - 1] == UInt8(ascii: ":") || bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        var start = end
        while start > 0, bytes[start - 1] != UInt8(ascii: ":"), bytes[start - 1] != UInt8(ascii: "/") { start -= 1 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumStem) { kept -> String in
            var count = 0
            for byte in bytes[start..<end] where count < maximumStem {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                     UInt8(ascii: "-"):
                    kept[count] = byte
                    count += 1
                default:
                    break
                }
            }
            var first = 0, last = count
            while first < last, kept[first] == UInt8(ascii: "-") { first += 1 }
            while last > first, kept[last - 1] == UInt8(ascii: "-") { last -= 1 }
            let stem = first < last ? UnsafeBufferPointer(rebasing: kept[first..<last]) : UnsafeBufferPointer(start: fallbackStem.utf8Start, count: fallbackStem.utf8CodeUnitCount)
            let length = stem.count + 1 + hashLength
            return String(unsafeUninitializedCapacity: length) { text in
                _ = UnsafeMutableBufferPointer(rebasing: text[0..<stem.count]).initialize(from: stem)
                text[stem.count] = UInt8(ascii: "-")
                writeHash(of: bytes, into: UnsafeMutableBufferPointer(rebasing: text[(stem.count + 1)..<length]))
                return length
            }
        }
    }

    /// The first five bytes of the ID's SHA-256, in lowercase hex.
    private static func writeHash(of bytes: UnsafeBufferPointer<UInt8>, into text: UnsafeMutableBufferPointer<UInt8>) {
        Digest.withSHA256(of: bytes) { digest in
            let digits: StaticString = "0123456789abcdef"
            for position in 0..<(hashLength / 2) {
                let byte = digest[position]
                text[2 * position] = digits.utf8Start[Int(byte >> 4)]
                text[2 * position + 1] = digits.utf8Start[Int(byte & 0x0F)]
            }
        }
    }

    /// Whether a text may be a folder name in the library.
    ///
    /// Allowed: ASCII letters, digits, `.`, `_` and `-`, not starting with `.` or `-`, at most
    /// ``maximumLength`` bytes. Anything else (slashes, `..`, control characters, spaces,
    /// non-ASCII letters that file systems normalise differently) is refused.
    public static func isValid(_ key: String) -> Bool {
        // Through the bytes' buffer: a catalog's keys are checked every time it is read.
        var key = key
        return key.withUTF8(isValid)
    }

    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= maximumLength else { return false }
        guard first != UInt8(ascii: ".") && first != UInt8(ascii: "-") else { return false }
        // By index and by bit: `allSatisfy` over a switch of ranges went through the buffer's
        // iterator and `ClosedRange.contains`, neither inlined (perf). Writing the 10,000 keys a
        // first refresh records took 3.3 ms either way, though: what they wait for is memory.
        for position in 0..<bytes.count where !isKeyByte(bytes[position]) { return false }
        return true
    }

    /// Whether `byte` may be in a key: an ASCII letter or digit, `.`, `_` or `-`.
    @inline(__always)
    static func isKeyByte(_ byte: UInt8) -> Bool {
        // `-`, `.` and `0` to `9`, as bits of the bytes 0 to 63.
        let below64: UInt64 = 1 << 45 | 1 << 46 | 0x3FF << 48
        // `A` to `Z`, `_` and `a` to `z`, as bits of the bytes 64 to 127.
        let from64: UInt64 = 0x3FF_FFFF << 1 | 1 << 31 | 0x3FF_FFFF << 33
        if byte < 64 { return below64 >> byte & 1 == 1 }
        if byte < 128 { return from64 >> (byte - 64) & 1 == 1 }
        return false
    }
}
