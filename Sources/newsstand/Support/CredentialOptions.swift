import ArgumentParser
import Foundation
import NewsstandKit

/// How a command is told a server's credentials: the options of `subscribe`, `browse` and
/// `search`, never the secret itself.
struct CredentialOptions: ParsableArguments {
    @Option(help: "HTTP user (with --password-command or --password-env).")
    var user: String?

    @Option(help: "Send the user and password only as basic or digest (by default, as the server asks).")
    var auth: AuthScheme?

    @Option(help: "A command whose first line of output is the password (run without a shell).")
    var passwordCommand: String?

    @Option(help: "An environment variable that holds the password.")
    var passwordEnv: String?

    @Option(help: "A command whose first line of output is a bearer token.")
    var tokenCommand: String?

    @Option(help: "An environment variable that holds a bearer token.")
    var tokenEnv: String?

    @Flag(help: "Take credentials from ~/.netrc.")
    var netrc = false

    /// Where the credentials come from, or nil for none.
    func source() throws -> Subscription.CredentialSource? {
        let password: Subscription.SecretSource? = passwordCommand.map { .command($0) } ?? passwordEnv.map { .environment($0) }
        let token: Subscription.SecretSource? = tokenCommand.map { .command($0) } ?? tokenEnv.map { .environment($0) }
        if let user {
            guard let password else { throw ValidationError("--user needs --password-command or --password-env (passwords never go in the config).") }
            return .basic(user: user, password: password, pin: auth)
        }
        if auth != nil { throw ValidationError("--auth needs --user.") }
        if let token { return .bearer(token) }
        if password != nil { throw ValidationError("A password needs --user.") }
        return netrc ? .netrc : nil
    }
}

extension AuthScheme: ExpressibleByArgument {}
