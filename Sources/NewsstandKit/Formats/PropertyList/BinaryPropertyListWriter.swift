import Foundation

/// Writes a binary property list (`bplist00`) of strings, integers, booleans, dates, arrays and
/// dictionaries, an object at a time: the form ``PropertyListFormat`` reads an issue at a time
/// on every core.
///
/// Each call writes one object and answers its reference; a container is written after its
/// children, from their references. Nothing is built in between: a tree of values for a 10,000-
/// issue catalog, then torn down, took longer than writing the file.
///
/// Written here because Foundation's property-list writer fails in the statically linked
/// build ("An error occurred in the destination for the data", for any catalog).
struct BinaryPropertyListWriter: ~Copyable {
    /// An object written, as containers refer to it.
    struct Reference {
        fileprivate let index: Int
    }

    /// The file so far: `count` bytes of `capacity`, handed to the `Data` that ``finish(top:)``
    /// makes without a copy (copying a snapshot of 10,000 issues touched 3 MB of fresh memory).
    private var output: UnsafeMutablePointer<UInt8>?
    private var count = 0
    private var capacity: Int
    /// Where each object starts, by its index.
    private var offsets: [Int] = []
    /// Bytes per object reference, from the bound on the number of objects.
    private let referenceSize: Int
    private let objectBound: Int

    /// A writer for at most `objectBound` objects (a reference's width depends on it), the file
    /// expected to take about `expectedBytes`.
    init(objectBound: Int, expectedBytes: Int = 0) {
        self.objectBound = objectBound
        referenceSize = Self.size(for: objectBound)
        capacity = max(64, expectedBytes)
        output = malloc(capacity)?.assumingMemoryBound(to: UInt8.self)
        append("bplist00")
        offsets.reserveCapacity(objectBound)
    }

    deinit {
        free(output)
    }

    /// Room for `more` bytes after the last.
    private mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        capacity = max(capacity * 2, count + more)
        guard let grown = realloc(output, capacity) else { fatalError("out of memory writing a property list") }
        output = grown.assumingMemoryBound(to: UInt8.self)
    }

    private mutating func append(_ byte: UInt8) {
        reserve(1)
        output![count] = byte
        count += 1
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (output! + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    private mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func begin() -> Reference {
        precondition(offsets.count < objectBound, "more objects than the writer was made for")
        offsets.append(count)
        return Reference(index: offsets.count - 1)
    }

    mutating func string(_ string: String) -> Reference {
        let reference = begin()
        // Read in place (a native string is contiguous): a copy to call `withUTF8` on took and
        // dropped a count per string.
        let isASCII = string.utf8.withContiguousStorageIfAvailable { writeASCII($0) }
            ?? Array(string.utf8).withUnsafeBufferPointer { writeASCII($0) }
        if !isASCII {
            let units = Array(string.utf16)
            marker(0x60, count: units.count)
            for unit in units {
                append(UInt8(unit >> 8))
                append(UInt8(unit & 0xFF))
            }
        }
        return reference
    }

    /// Writes `utf8` as an ASCII string if it is one.
    private mutating func writeASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.isASCII else { return false }
        marker(0x50, count: utf8.count)
        append(utf8)
        return true
    }

    mutating func integer(_ value: Int64) -> Reference {
        guard value >= 0, value < 1 << 32 else { return eightBytes(UInt64(bitPattern: value), marker: 0x13) }
        let reference = begin()
        unsignedInteger(Int(value))
        return reference
    }

    /// An integer object of as few bytes as hold `value` (below 2^32, as readers take one of
    /// fewer than eight bytes as unsigned): a size, a version, a count after a marker.
    private mutating func unsignedInteger(_ value: Int) {
        let size = Self.size(for: value)
        reserve(1 + size)
        output![count] = 0x10 | UInt8(size.trailingZeroBitCount)
        count += 1
        bigEndian(UInt64(value), size: size)
    }

    mutating func boolean(_ value: Bool) -> Reference {
        let reference = begin()
        append(value ? 0x09 : 0x08)
        return reference
    }

    mutating func date(_ date: Date) -> Reference {
        eightBytes(date.timeIntervalSinceReferenceDate.bitPattern, marker: 0x33)
    }

    /// An object of a marker byte and eight bytes of value (an integer, a date).
    private mutating func eightBytes(_ value: UInt64, marker: UInt8) -> Reference {
        let reference = begin()
        reserve(9)
        output![count] = marker
        count += 1
        bigEndian(value, size: 8)
        return reference
    }

    mutating func array(_ items: [Reference]) -> Reference {
        let reference = begin()
        marker(0xA0, count: items.count)
        reserve(items.count * referenceSize)
        for item in items { bigEndian(UInt64(item.index), size: referenceSize) }
        return reference
    }

    /// A dictionary of `pairs`.
    mutating func dictionary(_ pairs: borrowing Pairs) -> Reference {
        let reference = begin()
        marker(0xD0, count: pairs.count)
        reserve(2 * pairs.count * referenceSize)
        for position in 0..<pairs.count { bigEndian(UInt64(pairs.names[position].index), size: referenceSize) }
        for position in 0..<pairs.count { bigEndian(UInt64(pairs.values[position].index), size: referenceSize) }
        return reference
    }

    /// A dictionary's keys and values as they are written, sixteen at most (a snapshot's issue
    /// has fifteen keys): kept in place, not in two growing arrays, each of whose appends checked
    /// the array's uniqueness and room.
    struct Pairs {
        fileprivate var names = InlineArray<16, Reference>(repeating: Reference(index: 0))
        fileprivate var values = InlineArray<16, Reference>(repeating: Reference(index: 0))
        private(set) var count = 0

        init() {}

        mutating func add(_ name: Reference, _ value: Reference) {
            precondition(count < names.count, "a dictionary of more keys than a snapshot writes")
            names[count] = name
            values[count] = value
            count += 1
        }

        mutating func removeAll() { count = 0 }
    }

    /// The file, `top` its root object.
    consuming func finish(top: Reference) -> Data {
        let tableOffset = count
        let offsetSize = Self.size(for: tableOffset)
        reserve(offsets.count * offsetSize + 32)
        for offset in offsets { bigEndian(UInt64(offset), size: offsetSize) }
        for byte in [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)] { append(byte) }
        reserve(24)
        bigEndian(UInt64(offsets.count), size: 8)
        bigEndian(UInt64(top.index), size: 8)
        bigEndian(UInt64(tableOffset), size: 8)
        guard let bytes = output else { return Data() }
        // The buffer is the Data's now, freed by it.
        output = nil
        return Data(bytesNoCopy: bytes, count: count, deallocator: .free)
    }

    private mutating func marker(_ type: UInt8, count: Int) {
        if count < 15 {
            append(type | UInt8(count))
        } else {
            // The count in as few bytes as hold it: eight bytes for every count made a snapshot
            // of 10,000 issues 12% larger.
            append(type | 0x0F)
            unsignedInteger(count)
        }
    }

    /// Writes the last `size` bytes (1, 2, 4 or 8) of `value`, most significant first, into room
    /// the caller reserved: checking for room byte by byte was a third of writing a dictionary,
    /// and a byte at a time most of the rest.
    private mutating func bigEndian(_ value: UInt64, size: Int) {
        precondition(count + size <= capacity)
        let start = UnsafeMutableRawPointer(output! + count)
        switch size {
        case 1: start.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        case 2: start.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self)
        case 4: start.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self)
        default:
            precondition(size == 8, "a width of \(size) bytes")
            start.storeBytes(of: value.bigEndian, as: UInt64.self)
        }
        count += size
    }

    private static func size(for value: Int) -> Int {
        value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
    }
}
