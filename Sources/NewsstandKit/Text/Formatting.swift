import Foundation

/// Sizes, speeds and durations as people read them.
public enum Formatting {
    /// `1.5 MB`, `820 KB`, `12 B` (decimal units, as download tools show them).
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
        guard let date, let fields = utcFields(date) else { return "" }
        var text = ""
        text.reserveCapacity(10)
        appendDigits(&text, Int(fields.tm_year) + 1900, count: 4)
        text.append("-")
        appendDigits(&text, Int(fields.tm_mon) + 1, count: 2)
        text.append("-")
        appendDigits(&text, Int(fields.tm_mday), count: 2)
        return text
    }

    /// `2026-01-05T08:30:00Z`, as JSON readers expect dates.
    public static func timestamp(_ date: Date) -> String {
        guard let fields = utcFields(date) else { return "" }
        var text = day(date)
        text.append("T")
        appendDigits(&text, Int(fields.tm_hour), count: 2)
        text.append(":")
        appendDigits(&text, Int(fields.tm_min), count: 2)
        text.append(":")
        appendDigits(&text, Int(fields.tm_sec), count: 2)
        text.append("Z")
        return text
    }

    private static func utcFields(_ date: Date) -> tm? {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard interval.isFinite, abs(interval) < 1e15 else { return nil }
        var seconds = time_t(interval)
        var fields = tm()
        return gmtime_r(&seconds, &fields) != nil ? fields : nil
    }

    private static func appendDigits(_ text: inout String, _ value: Int, count: Int) {
        if value < 0 { text.append("-") }
        let digits = String(abs(value))
        if digits.count < count { text.append(String(repeating: "0", count: count - digits.count)) }
        text.append(digits)
    }
}
