import Foundation

/// Makes a subscription's ``RequestProfile`` when it is first needed — running the password
/// command or reading the variable once per process — and keeps it.
public final class RequestProfileSource: Sendable {
    private let subscription: Subscription
    /// The variables secrets are read from and commands run with; nil for the process's own,
    /// read only when a secret needs them (a sync makes a source for every subscription, and
    /// copying the environment into a dictionary for each was a tenth of its start).
    private let givenEnvironment: [String: String]?
    private let resolved = Locked<Result<RequestProfile?, NewsstandError>?>(nil)

    public init(subscription: Subscription, environment: [String: String]? = nil) {
        self.subscription = subscription
        givenEnvironment = environment
    }

    private var environment: [String: String] { givenEnvironment ?? ProcessInfo.processInfo.environment }

    /// The profile; nil for a subscription that adds nothing (or a catalog on this machine).
    public func profile() throws(NewsstandError) -> RequestProfile? {
        if let known = resolved.withLock({ $0 }) { return try known.get() }
        let result = Result { () throws(NewsstandError) in try make() }
        resolved.withLock { $0 = result }
        return try result.get()
    }

    private func make() throws(NewsstandError) -> RequestProfile? {
        guard let origin = RequestProfile.origin(of: subscription.url), !subscription.url.isFileURL else { return nil }
        var credentials: RequestProfile.Credentials?
        switch subscription.credentials {
        case .basic(let user, let source, let pin)?:
            credentials = .password(user: user, password: try secret(source, what: "password"), pin: pin)
        case .bearer(let source)?:
            credentials = .bearer(token: try secret(source, what: "token"))
        case .netrc?, nil:
            break
        }
        let urlSecrets = URLSecrets.secrets(in: subscription.url)
        if credentials == nil && subscription.headers.isEmpty && subscription.query.isEmpty && urlSecrets.isEmpty { return nil }
        var profile = RequestProfile(origin: origin, credentials: credentials, headers: subscription.headers.map(\.line), query: subscription.query)
        profile.urlSecrets = urlSecrets
        return profile
    }

    private func secret(_ source: Subscription.SecretSource, what: String) throws(NewsstandError) -> String {
        let name = subscription.name
        switch source {
        case .environment(let variable):
            guard let value = environment[variable], !value.isEmpty else {
                throw NewsstandError(.unauthorized, "The \(what) of \(name) comes from $\(TextSanitizer.inert(variable)), which is not set.")
            }
            return value
        case .command(let command):
            let words = CommandLineWords.split(command)
            guard !words.isEmpty else { throw NewsstandError(.configuration, "The \(what) command of \(name) is empty.") }
            let outcome = (try? Subprocess.run(words, environment: environment, capturingOutput: true).get()) ?? .init(status: 127, output: "")
            let (status, output) = (outcome.status, outcome.output)
            guard status == 0 else {
                throw NewsstandError(.unauthorized, "The \(what) command of \(name) (\(TextSanitizer.inert(words[0]))) failed with exit status \(status).")
            }
            // Like git's credential helpers: the first line is the secret.
            let line = output.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !line.isEmpty else { throw NewsstandError(.unauthorized, "The \(what) command of \(name) printed nothing.") }
            return line.hasSuffix("\r") ? String(line.dropLast()) : line
        }
    }
}
