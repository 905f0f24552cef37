import Foundation

/// Reads a binary property list (`bplist00`) straight from its bytes.
///
/// Every offset, count and reference is checked against the file before it is followed. Objects
/// may be shared, so a small file could describe an enormous tree (the binary form of "billion
/// laughs"): decoding stops after a number of values (16 million by default, ten times what a
/// 100,000-issue catalog holds), and cycles end at the nesting limit.
/// Sets and UIDs, which a catalog never holds, are refused (a corrupted set once crashed
/// Foundation's parser, found by fuzzing).
///
/// Sendable so that parts of one document can be read on several threads: a parser only reads
/// its bytes, which ``withDocument(_:maximumDepth:maximumValues:_:)`` keeps alive and unchanged.
struct BinaryPropertyListParser: @unchecked Sendable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maximumDepth: Int
    private var offsetSize = 0
    private var referenceSize = 0
    private var objectCount = 0
    private var tableOffset = 0
    private let maximumValues: Int
    private var budget: Int

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, maximumValues: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.maximumValues = maximumValues
        budget = maximumValues
    }

    static func parse(_ data: Data, maximumDepth: Int, maximumValues: Int = 16_000_000) throws(PropertyListError) -> PropertyListValue {
        try withDocument(data, maximumDepth: maximumDepth, maximumValues: maximumValues) { parser, top throws(PropertyListError) in
            try parser.value(top, depth: 0)
        }
    }

    /// Checks the trailer and hands `body` a parser and the top object's reference, so that a
    /// caller can read the document a part at a time (see ``children(_:depth:)``).
    static func withDocument<Result>(
        _ data: Data, maximumDepth: Int, maximumValues: Int = 16_000_000,
        _ body: (inout BinaryPropertyListParser, Int) throws(PropertyListError) -> Result
    ) throws(PropertyListError) -> Result {
        let result = data.withUnsafeBytes { raw -> Swift.Result<Result, PropertyListError> in
            var parser = BinaryPropertyListParser(
                bytes: raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth, maximumValues: maximumValues)
            return Swift.Result { () throws(PropertyListError) in
                let top = try parser.topReference()
                return try body(&parser, top)
            }
        }
        return try result.get()
    }

    /// The whole value of an object and everything under it.
    mutating func value(_ reference: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        try object(reference, depth: depth)
    }

    /// What an array or dictionary holds, as references not yet read (a dictionary's keys are
    /// read), or nil for any other object. Counts as one value against the budget.
    mutating func children(_ reference: Int, depth: Int) throws(PropertyListError) -> Children? {
        budget -= 1
        guard budget >= 0 else { throw PropertyListError("it expands to more than \(maximumValues) values") }
        let start = try objectStart(reference)
        let marker = bytes[start]
        switch marker >> 4 {
        case 0xA:
            guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
            let (first, length) = try extent(start, low: Int(marker & 0x0F), unit: referenceSize)
            var items: [Int] = []
            items.reserveCapacity(length / referenceSize)
            for item in 0..<length / referenceSize { items.append(try objectReference(at: first + item * referenceSize)) }
            return .array(items)
        case 0xD:
            guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
            let (first, length) = try extent(start, low: Int(marker & 0x0F), unit: 2 * referenceSize)
            let count = length / (2 * referenceSize)
            var pairs: [(key: String, value: Int)] = []
            pairs.reserveCapacity(count)
            for item in 0..<count {
                guard case .string(let key) = try object(try objectReference(at: first + item * referenceSize), depth: depth + 1) else {
                    throw PropertyListError("a dictionary key is not a string")
                }
                pairs.append((key, try objectReference(at: first + (count + item) * referenceSize)))
            }
            return .dictionary(pairs)
        default:
            return nil
        }
    }

    /// Reads a dictionary's keys without making strings of them: `slot` names the slot of each
    /// key the caller wants (from its UTF-8 bytes), and the value's reference is put there; a
    /// repeated key keeps its last value. Returns false, reading nothing, when the object is
    /// not a dictionary. Keys count against the budget; values are read later, if at all.
    mutating func references(
        in reference: Int, depth: Int, slot: (UnsafeBufferPointer<UInt8>) -> Int?, into slots: inout [Int]
    ) throws(PropertyListError) -> Bool {
        budget -= 1
        guard budget >= 0 else { throw PropertyListError("it expands to more than \(maximumValues) values") }
        let start = try objectStart(reference)
        let marker = bytes[start]
        guard marker >> 4 == 0xD else { return false }
        guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
        let (first, length) = try extent(start, low: Int(marker & 0x0F), unit: 2 * referenceSize)
        let count = length / (2 * referenceSize)
        for item in 0..<count {
            budget -= 1
            guard budget >= 0 else { throw PropertyListError("it expands to more than \(maximumValues) values") }
            let keyReference = try objectReference(at: first + item * referenceSize)
            let keyStart = try objectStart(keyReference)
            let keyMarker = bytes[keyStart]
            let index: Int?
            switch keyMarker >> 4 {
            case 0x5:
                let (keyFirst, keyLength) = try extent(keyStart, low: Int(keyMarker & 0x0F), unit: 1)
                index = slot(UnsafeBufferPointer(rebasing: bytes[keyFirst..<keyFirst + keyLength]))
            case 0x6:
                budget += 1  // counted above, and again by object()
                if case .string(let key) = try object(keyReference, depth: depth + 1) {
                    index = Array(key.utf8).withUnsafeBufferPointer { slot($0) }
                } else {
                    index = nil
                }
            default:
                throw PropertyListError("a dictionary key is not a string")
            }
            if let index { slots[index] = try objectReference(at: first + (count + item) * referenceSize) }
        }
        return true
    }

    enum Children {
        case array([Int])
        case dictionary([(key: String, value: Int)])
    }

    /// Parsers for `count` threads reading parts of the same document, each allowed an equal
    /// share of what is left of the budget.
    func split(into count: Int) -> [BinaryPropertyListParser] {
        var share = self
        share.budget = max(0, budget) / max(1, count)
        return Array(repeating: share, count: count)
    }

    private mutating func topReference() throws(PropertyListError) -> Int {
        guard bytes.count >= 8 + 32, memcmp(bytes.baseAddress!, "bplist00", 8) == 0 else {
            throw PropertyListError("too short")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              let count = unsigned(at: trailer + 8, size: 8), let top = unsigned(at: trailer + 16, size: 8),
              let table = unsigned(at: trailer + 24, size: 8)
        else { throw PropertyListError("bad trailer") }
        guard count > 0, count <= bytes.count, top < count, table >= 8, table <= trailer,
              count <= (trailer - table) / offsetSize
        else { throw PropertyListError("bad offset table") }
        objectCount = count
        tableOffset = table
        return top
    }

    private func objectStart(_ reference: Int) throws(PropertyListError) -> Int {
        guard reference < objectCount,
              let start = unsigned(at: tableOffset + reference * offsetSize, size: offsetSize),
              start >= 8, start < tableOffset
        else { throw PropertyListError("an object lies outside the file") }
        return start
    }

    private mutating func object(_ reference: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        budget -= 1
        guard budget >= 0 else { throw PropertyListError("it expands to more than \(maximumValues) values") }
        let start = try objectStart(reference)
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: throw PropertyListError("an unsupported object 0x\(String(marker, radix: 16))")
            }
        case 0x1:
            return .integer(try integer(at: start + 1, sizeExponent: low))
        case 0x2:
            guard low == 2 || low == 3, let bits = unsigned64(at: start + 1, size: 1 << low) else {
                throw PropertyListError("a bad real number")
            }
            return .real(low == 2 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits))
        case 0x3:
            guard marker == 0x33, let bits = unsigned64(at: start + 1, size: 8) else { throw PropertyListError("a bad date") }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
        case 0x4:
            let (first, length) = try extent(start, low: low, unit: 1)
            return .data(Data(UnsafeBufferPointer(rebasing: bytes[first..<first + length])))
        case 0x5:
            let (first, length) = try extent(start, low: low, unit: 1)
            return .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<first + length]), as: UTF8.self))
        case 0x6:
            let (first, length) = try extent(start, low: low, unit: 2)
            var units: [UInt16] = []
            units.reserveCapacity(length / 2)
            var position = first
            while position < first + length {
                units.append(UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]))
                position += 2
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0xA:
            guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
            let (first, length) = try extent(start, low: low, unit: referenceSize)
            let count = length / referenceSize
            var array: [PropertyListValue] = []
            array.reserveCapacity(count)
            for item in 0..<count {
                array.append(try object(try objectReference(at: first + item * referenceSize), depth: depth + 1))
            }
            return .array(array)
        case 0xD:
            guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
            let (first, length) = try extent(start, low: low, unit: 2 * referenceSize)
            let count = length / (2 * referenceSize)
            var dictionary = PropertyListDictionary(minimumCapacity: count)
            for item in 0..<count {
                guard case .string(let key) = try object(try objectReference(at: first + item * referenceSize), depth: depth + 1) else {
                    throw PropertyListError("a dictionary key is not a string")
                }
                dictionary.append(key, try object(try objectReference(at: first + (count + item) * referenceSize), depth: depth + 1))
            }
            return .dictionary(dictionary)
        case 0xC:
            throw PropertyListError("it contains a set")
        default:
            throw PropertyListError("an unsupported object 0x\(String(marker, radix: 16))")
        }
    }

    /// Where an object's payload starts and how many bytes it has: the count is in the marker's
    /// low nibble, or in an integer object after it when the nibble is 0xF.
    private func extent(_ start: Int, low: Int, unit: Int) throws(PropertyListError) -> (first: Int, length: Int) {
        var count = low
        var first = start + 1
        if low == 0x0F {
            guard first < tableOffset, bytes[first] >> 4 == 0x1 else { throw PropertyListError("a bad object length") }
            let exponent = Int(bytes[first] & 0x0F)
            guard exponent <= 3, let value = unsigned(at: first + 1, size: 1 << exponent) else {
                throw PropertyListError("a bad object length")
            }
            count = value
            first += 1 + (1 << exponent)
        }
        let (length, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, first <= tableOffset, length <= tableOffset - first else {
            throw PropertyListError("an object runs past its end")
        }
        return (first, length)
    }

    private func objectReference(at position: Int) throws(PropertyListError) -> Int {
        guard let value = unsigned(at: position, size: referenceSize) else { throw PropertyListError("a bad reference") }
        return value
    }

    private func integer(at position: Int, sizeExponent: Int) throws(PropertyListError) -> Int64 {
        switch sizeExponent {
        case 0, 1, 2:
            guard let value = unsigned64(at: position, size: 1 << sizeExponent) else { throw PropertyListError("a bad integer") }
            return Int64(value)
        case 3:
            guard let value = unsigned64(at: position, size: 8) else { throw PropertyListError("a bad integer") }
            return Int64(bitPattern: value)
        case 4:
            // 128 bits, written for unsigned values above Int64.max: only those that fit are accepted.
            guard let high = unsigned64(at: position, size: 8), let value = unsigned64(at: position + 8, size: 8),
                  high == 0, value <= UInt64(Int64.max)
            else { throw PropertyListError("an integer out of range") }
            return Int64(value)
        default:
            throw PropertyListError("a bad integer")
        }
    }

    private func unsigned64(at position: Int, size: Int) -> UInt64? {
        guard position >= 0, size >= 1, size <= 8, position <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for index in position..<position + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func unsigned(at position: Int, size: Int) -> Int? {
        guard let value = unsigned64(at: position, size: size), value <= UInt64(Int.max) else { return nil }
        return Int(value)
    }
}
