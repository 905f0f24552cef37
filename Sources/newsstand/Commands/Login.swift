import ArgumentParser
import Foundation
import NewsstandKit

extension NewsstandCommand {
    /// Sets (or clears) how a subscription authenticates, then fetches its catalog to check.
    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Set a subscription's credentials in the config file (never the secret itself), then check them.")

        @Argument(help: "The subscription's name.")
        var name: String

        @OptionGroup var credentials: CredentialOptions

        @Flag(help: "Remove the subscription's credentials.")
        var clear = false

        func run() throws {
            try reportingFailures {
                let path = NewsstandOptions.configPath
                guard let current = try NewsstandOptions.loadConfig()?.subscription(named: name) else {
                    throw CommandFailure.noSuchSubscription(name)
                }
                let source: Subscription.CredentialSource?
                if credentials.user == nil, credentials.passwordEnv == nil, credentials.passwordCommand == nil, let auth = credentials.auth,
                   case .basic(let user, let password, _)? = current.credentials {
                    // `--auth digest` alone pins how the user and password already set are sent.
                    source = .basic(user: user, password: password, pin: auth)
                } else {
                    source = try credentials.source()
                }
                if source == nil && !clear {
                    throw ValidationError("Give --user with --password-env or --password-command, a token, --netrc, or --clear.")
                }
                if source != nil && clear { throw ValidationError("--clear takes no credentials.") }
                try ConfigEditor(path: path).setCredentials(source, of: name)
                guard let saved = try NewsstandConfig.load(path: path)?.subscription(named: name) else {
                    throw CommandFailure("The credentials were written but cannot be read back from \(path).")
                }
                Output.line("\(name): " + (Subscriptions.credentials(saved).map { "credentials set (\($0))" } ?? "no credentials") + " in \(path).")
                let newsstand = try Newsstand(configuration: Newsstand.Configuration(), subscriptions: [saved])
                let store = newsstand.stores[0]
                switch store.refreshAndWait() {
                case .success(let summary):
                    Output.line("\(name): \(TextSanitizer.inert(store.displayTitle)), \(Formatting.count(summary.totalIssues, "issue")).")
                case .failure(let error):
                    throw CommandFailure(error: error, store: store)
                }
            }
        }
    }
}
