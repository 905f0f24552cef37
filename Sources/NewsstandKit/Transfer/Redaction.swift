import Foundation

/// Takes secrets out of text before it is printed, logged or saved.
public enum Redaction {
    /// What a secret is replaced with.
    public static let mask = "[redacted]"

    /// `text` with every secret of four characters or more replaced (shorter ones would mask
    /// ordinary words and numbers, and guessing them needs no leak).
    public static func redact(_ text: String, secrets: [String]) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 && result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: mask)
        }
        return result
    }
}
