import Foundation

/// Writes a binary property list (`bplist00`) of strings, integers, booleans, dates, arrays and
/// dictionaries: the form ``PropertyListFormat`` reads an issue at a time on every core.
///
/// Written here because Foundation's property-list writer fails in the statically linked
/// build ("An error occurred in the destination for the data", for any catalog).
struct BinaryPropertyListWriter {
    /// A value to write.
    indirect enum Value {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
        case date(Date)
        case array([Value])
        /// Pairs in order; keys are strings.
        case dictionary([(String, Value)])
    }

    /// The file so far; objects are appended as they are finished, children before parents.
    private var output: [UInt8] = Array("bplist00".utf8)
    /// Where each object starts, by its index.
    private var offsets: [Int] = []
    /// Short strings written once and referred to from everywhere.
    private var strings: [String: Int] = [:]
    /// Bytes per object reference, from an upper bound on the number of objects.
    private let referenceSize: Int

    private init(objectBound: Int) {
        referenceSize = Self.size(for: objectBound)
    }

    static func data(_ root: Value) -> Data {
        var writer = BinaryPropertyListWriter(objectBound: count(root))
        let top = writer.add(root)
        return writer.finish(top: top)
    }

    /// Objects in `value` at most (shared strings make fewer).
    private static func count(_ value: Value) -> Int {
        switch value {
        case .string, .integer, .boolean, .date: return 1
        case .array(let items): return 1 + items.reduce(0) { $0 + count($1) }
        case .dictionary(let pairs): return 1 + pairs.reduce(0) { $0 + 1 + count($1.1) }
        }
    }

    private mutating func begin() -> Int {
        offsets.append(output.count)
        return offsets.count - 1
    }

    private mutating func add(_ value: Value) -> Int {
        switch value {
        case .string(let string):
            // Keys and short values (media types) repeat in every issue and are written once;
            // titles and URLs are nearly all different, and hashing them cost a fifth of a refresh.
            let shared = string.utf8.count <= 24
            if shared, let known = strings[string] { return known }
            let index = begin()
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                marker(0x50, count: string.utf8.count)
                output.append(contentsOf: string.utf8)
            } else {
                let units = Array(string.utf16)
                marker(0x60, count: units.count)
                for unit in units {
                    output.append(UInt8(unit >> 8))
                    output.append(UInt8(unit & 0xFF))
                }
            }
            if shared { strings[string] = index }
            return index
        case .integer(let value):
            let index = begin()
            output.append(0x13)
            bigEndian(UInt64(bitPattern: value), size: 8)
            return index
        case .boolean(let value):
            let index = begin()
            output.append(value ? 0x09 : 0x08)
            return index
        case .date(let date):
            let index = begin()
            output.append(0x33)
            bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
            return index
        case .array(let items):
            let references = items.map { add($0) }
            let index = begin()
            marker(0xA0, count: items.count)
            for reference in references { bigEndian(UInt64(reference), size: referenceSize) }
            return index
        case .dictionary(let pairs):
            var references: [Int] = []
            references.reserveCapacity(pairs.count * 2)
            for pair in pairs { references.append(add(.string(pair.0))) }
            for pair in pairs { references.append(add(pair.1)) }
            let index = begin()
            marker(0xD0, count: pairs.count)
            for reference in references { bigEndian(UInt64(reference), size: referenceSize) }
            return index
        }
    }

    private mutating func marker(_ type: UInt8, count: Int) {
        if count < 15 {
            output.append(type | UInt8(count))
        } else {
            output.append(type | 0x0F)
            output.append(0x13)
            bigEndian(UInt64(count), size: 8)
        }
    }

    private mutating func bigEndian(_ value: UInt64, size: Int) {
        for position in 0..<size { output.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - position)))) }
    }

    private static func size(for value: Int) -> Int {
        value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
    }

    private mutating func finish(top: Int) -> Data {
        let tableOffset = output.count
        let offsetSize = Self.size(for: tableOffset)
        for offset in offsets { bigEndian(UInt64(offset), size: offsetSize) }
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        bigEndian(UInt64(offsets.count), size: 8)
        bigEndian(UInt64(top), size: 8)
        bigEndian(UInt64(tableOffset), size: 8)
        return Data(output)
    }
}
