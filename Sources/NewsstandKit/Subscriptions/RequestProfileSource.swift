import Foundation

/// Makes a subscription's ``RequestProfile`` when it is first needed — running the password
/// command or reading the variable once per process — and keeps it.
public final class RequestProfileSource: Sendable {
    private let subscription: Subscription
    private let environment: [String: String]
    private let resolved = Locked<Result<RequestProfile?, NewsstandError>?>(nil)

    public init(subscription: Subscription, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.subscription = subscription
        self.environment = environment
    }

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
        var profile = RequestProfile(origin: origin, credentials: credentials, headers: subscription.headers, query: subscription.query)
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
            let (status, output) = Subprocess.run(words, environment: environment)
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

/// Splits a command line into words the way a shell would for plain words and quotes, with no
/// expansion at all: the command runs from an argument vector, never through a shell.
enum CommandLineWords {
    static func split(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quote != "'" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}

/// Runs a program from an argument vector and collects what it prints.
enum Subprocess {
    /// Runs `arguments[0]` (looked up on PATH) and returns its exit status and standard output.
    static func run(_ arguments: [String], environment: [String: String]) -> (status: Int32, output: String) {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return (-1, "") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            return (127, "")
        }
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || output.count > 1 << 20 { break }
            output += buffer[0..<count]
        }
        close(pipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exit, String(decoding: output, as: UTF8.self))
    }
}
