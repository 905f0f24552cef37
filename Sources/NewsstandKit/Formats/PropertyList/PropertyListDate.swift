import Foundation

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
