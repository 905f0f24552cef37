import Foundation

/// What a person is told when a server refuses a request for want of credentials: the one
/// place that decides it, for every command and the shelf, from what the server said and what
/// the subscription sends.
public struct AuthenticationAdvice: Sendable {
    /// What the requests carry.
    public enum Sent: Sendable {
        case nothing
        case password(pin: AuthScheme?)
        case token
        case netrc
    }

    /// The subscription's name; nil for a URL given on the command line, not subscribed yet.
    public var subscriptionName: String?
    public var sent: Sent

    public init(subscriptionName: String?, sent: Sent) {
        self.subscriptionName = subscriptionName
        self.sent = sent
    }

    /// The advice for a subscription, by its settings.
    public init(subscription: Subscription?) {
        subscriptionName = subscription?.name
        switch subscription?.credentials {
        case .basic(_, _, let pin)?: sent = .password(pin: pin)
        case .bearer?: sent = .token
        case .netrc?: sent = .netrc
        case nil: sent = .nothing
        }
    }

    /// Whether a response says the server has locked the login after failed attempts: a 429
    /// that asks for credentials (calibre-web's limiter).
    public static func isLockout(_ response: TransferResponse) -> Bool {
        response.statusCode == 429 && response.authenticate != nil
    }

    /// The sentence after the cause: what to run.
    public func nextStep(for response: TransferResponse) -> String {
        let asked = AuthChallenge.parse(response.authenticate).first?.scheme
        let document = response.authenticationDocument
        let userWord = document?.loginLabel.map { "\"<\($0)>\"" } ?? "USER"
        let passwordWord = document?.passwordLabel.map { " (the \($0))" } ?? ""
        guard let name = subscriptionName else {
            return "give them: --user \(userWord) --password-env VARIABLE\(passwordWord) (or --password-command, or ~/.netrc)"
        }
        let login = "newsstand login \(name) --user \(userWord) --password-env VARIABLE\(passwordWord)"
        if case .password(let pin?) = sent, let asked, asked != pin {
            return "\(name) sends its password only as \(pin.rawValue), but the server asks for \(asked.rawValue): newsstand login \(name) --auth \(asked.rawValue)"
        }
        switch sent {
        case .password where response.sentCredentials:
            return "check the user and password of \(name), or change them: \(login)"
        case .token:
            return "check the token of \(name), or change it: newsstand login \(name) --token-env VARIABLE"
        case .netrc where response.sentCredentials, .nothing where response.sentCredentials:
            // Credentials went, and the subscription has none of its own: ~/.netrc gave them.
            return "check the entry for its host in ~/.netrc, or give \(name) its own: \(login)"
        default:
            return "add them: \(login) (or --password-command, or ~/.netrc)"
        }
    }

    /// The error for a refused request (401, 403, or a lockout).
    func error(for response: TransferResponse, subject: HTTPFailure.Subject) -> NewsstandError {
        let status = response.statusCode
        if Self.isLockout(response) {
            let wait = response.retryAfter.map { "wait " + Formatting.wait($0) } ?? "wait a while"
            let name = subscriptionName.map { " of \($0)" } ?? ""
            return NewsstandError(
                .accountLocked, "The server has locked the login\(name) after failed attempts (HTTP 429): \(wait) before trying again; \(nextStep(for: response)).")
        }
        let server = response.authenticationDocument?.title.map { TextSanitizer.inert($0) }
        let who = server ?? "The server"
        let cause: String
        switch subject {
        case .issue(isFree: false) where !response.sentCredentials:
            cause = "This issue is not free: \(server ?? "the server") wants a subscription (HTTP \(status))"
        case .catalog where !response.sentCredentials:
            cause = "\(server ?? "The catalog server") refused access (HTTP \(status)): it needs credentials"
        case _ where response.sentCredentials && status == 403:
            cause = "\(who) knows the user but refuses access (HTTP 403)"
        case _ where response.sentCredentials:
            cause = "\(who) refused the credentials (HTTP \(status))"
        default:
            cause = "\(who) refused access (HTTP \(status))"
        }
        return NewsstandError(.unauthorized, "\(cause); \(nextStep(for: response)).")
    }
}
