import Foundation

/// One value of a property list, as ``XMLPropertyListParser`` and ``BinaryPropertyListParser`` read it.
///
/// Foundation's `PropertyListSerialization` returns bridged `Any` trees whose casts cost more
/// than the parsing itself (a 100,000-issue catalog took over a second); these parsers return
/// plain values and check the limits (nesting, expansion) while they read.
enum PropertyListValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    /// An integer beyond 64 bits, as its digits: well-formed, so no reason to refuse the
    /// document; a key that needs a number says so for its entry alone.
    case bigInteger(String)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary(PropertyListDictionary)
}

/// The keys and values of a property-list dictionary in file order. Catalog dictionaries have a
/// handful of keys, so a linear search beats hashing; a repeated key finds its last value.
struct PropertyListDictionary: Sendable, Equatable {
    /// One array of pairs: a single allocation per dictionary, of which a catalog has one per issue.
    private(set) var pairs: [(key: String, value: PropertyListValue)] = []

    init() {}

    init(minimumCapacity: Int) {
        pairs.reserveCapacity(minimumCapacity)
    }

    mutating func append(_ key: String, _ value: PropertyListValue) {
        pairs.append((key, value))
    }

    subscript(key: String) -> PropertyListValue? {
        var index = pairs.count - 1
        while index >= 0 {
            if pairs[index].key == key { return pairs[index].value }
            index -= 1
        }
        return nil
    }

    static func == (lhs: PropertyListDictionary, rhs: PropertyListDictionary) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
