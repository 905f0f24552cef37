import Foundation

/// What a subscription adds to the requests it makes to its own origin: credentials, headers
/// and common query arguments. Requests to any other origin — a CDN, a cover host, the target
/// of a redirect elsewhere — get none of it.
public struct RequestProfile: Sendable, Equatable {
    /// Credentials, resolved (a password read from its command or variable).
    public enum Credentials: Sendable, Equatable {
        /// A user and password, sent in the scheme the server asks for (Basic or Digest), or only
        /// in `pin` when the subscription says so.
        case password(user: String, password: String, pin: AuthScheme?)
        case bearer(token: String)
    }

    /// `scheme://host:port` of the catalog, lowercased, with the port always written.
    public var origin: String
    public var credentials: Credentials?
    /// Extra header lines, `Name: value`, checked for line breaks.
    public var headers: [String]
    /// Query arguments appended to every request to the origin, unless the URL already has them.
    public var query: [(name: String, value: String)]
    /// Secrets inside the catalog's URL itself (an API key in its path): never sent anywhere
    /// the URL does not already go, and masked wherever text is shown.
    public var urlSecrets: [String] = []

    public init(origin: String, credentials: Credentials? = nil, headers: [String] = [], query: [(name: String, value: String)] = []) {
        self.origin = origin
        self.credentials = credentials
        self.headers = headers
        self.query = query
    }

    /// Whether a URL is on the origin this profile belongs to.
    public func applies(to url: URL) -> Bool {
        Self.origin(of: url) == origin
    }

    /// `scheme://host:port`, lowercased, the default port written out; nil for a URL without a host.
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
        return "\(scheme)://\(host):\(port)"
    }

    /// The URL with the query arguments it does not already carry.
    public func decorate(_ url: URL) -> URL {
        guard !query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var items = components.percentEncodedQueryItems ?? []
        let present = Set(items.map(\.name))
        for (name, value) in query where !present.contains(Self.encode(name)) {
            items.append(URLQueryItem(name: Self.encode(name), value: Self.encode(value)))
        }
        components.percentEncodedQueryItems = items
        return components.url ?? url
    }

    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The texts that must never be printed: the password or token, header values, query values.
    public var secrets: [String] {
        var secrets: [String] = urlSecrets
        switch credentials {
        case .password(_, let password, _)?: secrets.append(password)
        case .bearer(let token)?: secrets.append(token)
        case nil: break
        }
        for line in headers {
            if let colon = line.firstIndex(of: ":") { secrets.append(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)) }
        }
        for (_, value) in query {
            secrets.append(value)
            secrets.append(Self.encode(value))
        }
        return secrets
    }

    public static func == (lhs: RequestProfile, rhs: RequestProfile) -> Bool {
        lhs.origin == rhs.origin && lhs.credentials == rhs.credentials && lhs.headers == rhs.headers
            && lhs.query.map(\.name) == rhs.query.map(\.name) && lhs.query.map(\.value) == rhs.query.map(\.value)
    }
}
