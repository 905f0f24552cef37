import Foundation

/// Sizes, speeds and durations as people read them.
public enum Formatting {
    /// `1.5 MB`, `820 KB`, `12 B` (decimal units, as download tools show them).
    /// `1 issue`, `3 issues`.
    public static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    public static func bytes(_ count: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }

    /// A wait a server asked for, as a person says it: `45 s`, `3 min`.
    public static func wait(_ seconds: TimeInterval) -> String {
        seconds < 120 ? "\(Int(seconds.rounded(.up))) s" : "\(Int((seconds / 60).rounded(.up))) min"
    }

    /// `1:05`, `1:02:03`; `--:--` when unknown.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
        let total = Int(seconds.rounded())
        if total >= 3600 { return String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60) }
        return String(format: "%d:%02d", total / 60, total % 60)
    }

    /// `2026-01-05` in UTC, or an empty string. Called for every row and every card on screen,
    /// so it formats the fields itself instead of going through a formatter.
    public static func day(_ date: Date?) -> String {
        guard let date, let time = UTCTime(date) else { return "" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        time.appendDay(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `08:30` for a time today, else the day, in UTC: when a catalog was fetched.
    public static func moment(_ date: Date, now: Date = Date()) -> String {
        let today = day(now)
        let then = day(date)
        guard then == today, let time = UTCTime(date) else { return then }
        return (time.hour < 10 ? "0" : "") + String(time.hour) + ":" + (time.minute < 10 ? "0" : "") + String(time.minute)
    }

    /// `2026-01-05T08:30:00Z`, as JSON readers expect dates.
    public static func timestamp(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        appendTimestamp(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``timestamp(_:)``'s text as UTF-8 (nothing for a date out of range); `list --json`
    /// writes one per issue straight into its output.
    public static func appendTimestamp(_ date: Date, to bytes: inout [UInt8]) {
        guard let time = UTCTime(date) else { return }
        time.appendDay(to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        UTCTime.append(time.hour, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        UTCTime.append(time.minute, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        UTCTime.append(time.second, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// A date's calendar fields in UTC, computed directly from the seconds since 1970.
    private struct UTCTime {
        var year, month, day, hour, minute, second: Int

        init?(_ date: Date) {
            let interval = date.timeIntervalSince1970.rounded(.down)
            guard interval.isFinite, abs(interval) < 1e15 else { return nil }
            let seconds = Int(interval)
            var days = seconds / 86_400
            var secondOfDay = seconds % 86_400
            if secondOfDay < 0 {
                secondOfDay += 86_400
                days -= 1
            }
            // Civil date from days since 1970 (Howard Hinnant's algorithm).
            let shifted = days + 719_468
            let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
            let dayOfEra = shifted - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthIndex = (5 * dayOfYear + 2) / 153
            day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
            month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
            year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            hour = secondOfDay / 3_600
            minute = secondOfDay / 60 % 60
            second = secondOfDay % 60
        }

        func appendDay(to bytes: inout [UInt8]) {
            Self.append(year, digits: 4, to: &bytes)
            bytes.append(UInt8(ascii: "-"))
            Self.append(month, digits: 2, to: &bytes)
            bytes.append(UInt8(ascii: "-"))
            Self.append(day, digits: 2, to: &bytes)
        }

        /// `value` in decimal with at least `digits` digits.
        static func append(_ value: Int, digits: Int, to bytes: inout [UInt8]) {
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            let magnitude = value.magnitude
            var divisor: UInt = 1
            var count = 1
            while count < digits || magnitude / divisor >= 10 {
                divisor *= 10
                count += 1
            }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
                divisor /= 10
            }
        }
    }
}
