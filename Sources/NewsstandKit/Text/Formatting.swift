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
    /// so it formats the fields itself instead of building a DateFormatter each time.
    public static func day(_ date: Date?) -> String {
        guard let date else { return "" }
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return "" }
        return String(format: "%04d-%02d-%02d", Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday))
    }
}
