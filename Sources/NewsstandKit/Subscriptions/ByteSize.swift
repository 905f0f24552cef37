import Foundation

/// Sizes as people write them: `2 GiB`, `500 MB`, `750k`, `1048576`.
public enum ByteSize {
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(number), value >= 0 else { return nil }
        let unit = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces).lowercased()
        let factor: Double
        switch unit {
        case "", "b": factor = 1
        case "k", "kb": factor = 1e3
        case "kib": factor = 1024
        case "m", "mb": factor = 1e6
        case "mib": factor = Double(1 << 20)
        case "g", "gb": factor = 1e9
        case "gib": factor = Double(1 << 30)
        case "t", "tb": factor = 1e12
        case "tib": factor = Double(1 << 40)
        default: return nil
        }
        let bytes = value * factor
        guard bytes < 9e18 else { return nil }
        return Int64(bytes)
    }
}
