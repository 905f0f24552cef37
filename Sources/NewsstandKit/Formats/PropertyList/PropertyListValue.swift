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

/// Why a property list could not be read: a short reason for "The catalog is not a valid … (reason)".
/// Why a property list was refused.
struct PropertyListError: Error, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// The document declares XML entities.
        case entityDeclaration
        /// Arrays and dictionaries nest deeper than the limit.
        case tooDeep(limit: Int)
        /// The root is neither an array of issues nor a dictionary with `Issues`.
        case notACatalog
        /// The root dictionary has no `Issues` array.
        case missingIssues
        /// Any other fault, described for a person.
        case malformed(String)
    }

    let kind: Kind

    init(kind: Kind) { self.kind = kind }
    init(_ reason: String) { kind = .malformed(reason) }

    static func tooDeep(_ limit: Int) -> PropertyListError { PropertyListError(kind: .tooDeep(limit: limit)) }

    /// Why, for a person.
    var reason: String {
        switch kind {
        case .entityDeclaration: return "it declares XML entities, which are not allowed"
        case .tooDeep(let limit): return "it nests deeper than \(limit) levels"
        case .notACatalog: return "the root must be an array of issues or a dictionary with `Issues`"
        case .missingIssues: return "the root dictionary has no `Issues` array"
        case .malformed(let reason): return reason
        }
    }
}

/// Dates as property lists write them: `2024-05-01T00:00:00Z`, in UTC.
enum PropertyListDate {
    /// Reads `YYYY-MM-DDTHH:MM:SSZ`; the time, and then the day and month, may be left out.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == character else { return false }
            index += 1
            return true
        }
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard let year = number(4) else { return nil }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0
        if expect(UInt8(ascii: "-")) {
            guard let value = number(2) else { return nil }
            month = value
            if expect(UInt8(ascii: "-")) {
                guard let value = number(2) else { return nil }
                day = value
                if expect(UInt8(ascii: "T")) {
                    guard let h = number(2), expect(UInt8(ascii: ":")), let m = number(2), expect(UInt8(ascii: ":")), let s = number(2)
                    else { return nil }
                    (hour, minute, second) = (h, m, s)
                }
            }
        }
        _ = expect(UInt8(ascii: "Z"))
        guard index == bytes.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysFromCivil(year: negative ? -year : year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
