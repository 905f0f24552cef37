import Foundation

/// Writes JSON text into a byte buffer, one value after another.
///
/// `list --json` prints a line per issue of catalogs with 100,000 of them, and `publish` writes
/// feeds of 10,000: JSONEncoder and JSONSerialization spent longer on that than on the rest.
/// Keys are written in the order given, and callers give them sorted, as scripts diffing two
/// listings expect (and as a feed whose issues did not change keeps its bytes).
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current object or array needs a comma before it.
    private var needsComma = false

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":`; the value follows. Keys are literals, plain words with nothing to
    /// escape, so they are copied as they are.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    public mutating func integer(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// A number as Swift writes it: the shortest text that reads back as the same double.
    public mutating func number(_ value: Double) {
        separate()
        bytes.append(contentsOf: (value.isFinite ? "\(value)" : "0").utf8)
        needsComma = true
    }

    public mutating func boolean(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// A key and a string value, left out when the value is nil.
    public mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// A key and an integer value, left out when the value is nil.
    public mutating func field(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    /// A date as `"2026-01-05T08:30:00Z"`.
    public mutating func timestamp(_ date: Date) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        Formatting.appendTimestamp(date, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most text needs no escapes: one look at its bytes, then one copy.
        var text = text
        let plain = text.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return false
            }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
