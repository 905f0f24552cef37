import Foundation

/// Secrets a server puts inside its URLs: Kavita's API key as a path segment
/// (`/api/opds/{key}/…`, and `apiKey=` on its cover links), a password in the user-info part,
/// and query arguments named like keys or tokens.
///
/// Whoever has such a URL has the account, so it is redacted wherever a URL is shown: messages,
/// logs, `--json` output, and the names made from it.
public enum URLSecrets {
    /// Query argument names whose values are secrets.
    static let secretQueryNames: Set<String> = ["apikey", "api_key", "api-key", "key", "token", "access_token", "auth", "password", "passwd"]

    /// The secrets inside `url`, longest first (so that no secret is left half-masked).
    public static func secrets(in url: URL) -> [String] {
        var secrets: [String] = []
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return [] }
        if let password = components.password, !password.isEmpty { secrets.append(password) }
        let segments = components.percentEncodedPath.split(separator: "/").map(String.init)
        for index in segments.indices.dropFirst(1) where segments[index - 1].lowercased() == "opds" && index >= 2
            && segments[index - 2].lowercased() == "api" {
            secrets.append(segments[index])
            if let decoded = segments[index].removingPercentEncoding, decoded != segments[index] { secrets.append(decoded) }
        }
        for item in components.percentEncodedQueryItems ?? [] where secretQueryNames.contains(item.name.lowercased()) {
            if let value = item.value, !value.isEmpty {
                secrets.append(value)
                if let decoded = value.removingPercentEncoding, decoded != value { secrets.append(decoded) }
            }
        }
        return secrets.sorted { $0.count > $1.count }
    }

    /// The URL as text, with its secrets masked.
    public static func redacted(_ url: URL) -> String {
        Redaction.redact(url.absoluteString, secrets: secrets(in: url))
    }
}

extension Subscription {
    /// The catalog's URL as it may be shown: secrets inside it masked.
    public var displayAddress: String { URLSecrets.redacted(url) }
}
