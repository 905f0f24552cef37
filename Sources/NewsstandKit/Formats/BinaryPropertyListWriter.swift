import Foundation

/// Writes a binary property list (`bplist00`) of strings, integers, booleans, dates, arrays and
/// dictionaries: the form ``CatalogDecoder`` reads an issue at a time on every core.
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

    private var objects: [[UInt8]] = []
    /// Strings written once and referred to from everywhere (dictionary keys repeat in every issue).
    private var strings: [String: Int] = [:]

    static func data(_ root: Value) -> Data {
        var writer = BinaryPropertyListWriter()
        // The root first: object 0 is the top object.
        let top = writer.reserve()
        writer.objects[top] = writer.encode(root, reservedAt: top)
        return writer.finish(top: top)
    }

    private mutating func reserve() -> Int {
        objects.append([])
        return objects.count - 1
    }

    private mutating func add(_ value: Value) -> Int {
        if case .string(let string) = value, let known = strings[string] { return known }
        let index = reserve()
        objects[index] = encode(value, reservedAt: index)
        if case .string(let string) = value { strings[string] = index }
        return index
    }

    /// References are written as 4-byte indexes here and narrowed in ``finish(top:)``.
    private mutating func encode(_ value: Value, reservedAt index: Int) -> [UInt8] {
        switch value {
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                return Self.marker(0x50, count: string.utf8.count) + Array(string.utf8)
            }
            let units = Array(string.utf16)
            var bytes = Self.marker(0x60, count: units.count)
            bytes.reserveCapacity(bytes.count + units.count * 2)
            for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            return bytes
        case .integer(let value):
            return [0x13] + Self.bigEndian(UInt64(bitPattern: value), size: 8)
        case .boolean(let value):
            return [value ? 0x09 : 0x08]
        case .date(let date):
            return [0x33] + Self.bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
        case .array(let items):
            let references = items.map { add($0) }
            return Self.marker(0xA0, count: items.count) + references.flatMap { Self.reference($0) }
        case .dictionary(let pairs):
            let keys = pairs.map { add(.string($0.0)) }
            let values = pairs.map { add($0.1) }
            return Self.marker(0xD0, count: pairs.count) + (keys + values).flatMap { Self.reference($0) }
        }
    }

    /// Placeholder reference bytes, marked so that ``finish(top:)`` can narrow them.
    private static func reference(_ index: Int) -> [UInt8] {
        bigEndian(UInt64(index), size: 4)
    }

    private static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        if count < 15 { return [type | UInt8(count)] }
        return [type | 0x0F, 0x13] + bigEndian(UInt64(count), size: 8)
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    private static func size(for value: Int) -> Int {
        value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
    }

    private func finish(top: Int) -> Data {
        let referenceSize = Self.size(for: objects.count)
        var output: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            output += Self.narrowed(object, referenceSize: referenceSize)
        }
        let tableOffset = output.count
        let offsetSize = Self.size(for: tableOffset)
        for offset in offsets { output += Self.bigEndian(UInt64(offset), size: offsetSize) }
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        output += Self.bigEndian(UInt64(objects.count), size: 8)
        output += Self.bigEndian(UInt64(top), size: 8)
        output += Self.bigEndian(UInt64(tableOffset), size: 8)
        return Data(output)
    }

    /// An array's or dictionary's 4-byte references rewritten in `referenceSize` bytes.
    private static func narrowed(_ object: [UInt8], referenceSize: Int) -> [UInt8] {
        guard let first = object.first, first >> 4 == 0xA || first >> 4 == 0xD, referenceSize != 4 else { return object }
        var header = 1
        var count = Int(first & 0x0F)
        if count == 0x0F {
            count = object[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        let references = first >> 4 == 0xD ? count * 2 : count
        var output = Array(object[0..<header])
        output.reserveCapacity(header + references * referenceSize)
        for index in 0..<references {
            let start = header + index * 4
            let value = object[start..<start + 4].reduce(0) { $0 << 8 | UInt64($1) }
            output += bigEndian(value, size: referenceSize)
        }
        return output
    }
}
