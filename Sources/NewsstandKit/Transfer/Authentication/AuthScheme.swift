/// How a user and password are sent: the scheme a server asks for, or the one a subscription pins.
public enum AuthScheme: String, Sendable, Codable, CaseIterable {
    case basic
    case digest
}
