import Foundation

/// What an Authentication for OPDS 1.0 document (`application/opds-authentication+json`) sent
/// with a 401 says about its basic flow: the server's name and the words for the two fields, so
/// that the advice speaks the server's language ("Library card" and "PIN").
public struct AuthenticationDocument: Sendable, Equatable {
    public var title: String?
    public var loginLabel: String?
    public var passwordLabel: String?

    /// The largest document read.
    static let maximumSize = 64 * 1024

    /// Whether a response of this type is such a document.
    static func isDocumentType(_ contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        return type.contains("opds-authentication+json") || type.contains("vnd.opds.authentication.v1.0+json")
    }

    /// Reads the document; nil when it is not one.
    init?(_ data: Data) {
        guard data.count <= Self.maximumSize,
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        func clean(_ value: Any?) -> String? {
            guard let text = value as? String else { return nil }
            let inert = TextSanitizer.inert(text).trimmingCharacters(in: .whitespaces)
            return inert.isEmpty ? nil : String(inert.prefix(80))
        }
        title = clean(object["title"])
        let flows = object["authentication"] as? [[String: Any]] ?? []
        let basic = flows.first { ($0["type"] as? String) == "http://opds-spec.org/auth/basic" }
        let labels = basic?["labels"] as? [String: Any]
        loginLabel = clean(labels?["login"])
        passwordLabel = clean(labels?["password"])
        guard title != nil || !flows.isEmpty else { return nil }
    }
}
