import Foundation

/// Runs a program from an argument vector, never through a shell: a password or token command,
/// the PDF opener. The pipe it reads is close-on-exec, so that another program started at the
/// same moment (the opener, while a refresh runs a password command) cannot inherit it and
/// keep it open.
public enum Subprocess {
    /// How a run ended.
    struct Outcome {
        /// The exit status; 128 + N for a signal.
        var status: Int32
        /// Standard output, when asked for (at most about 1 MiB).
        var output: String
    }

    /// Why a program could not be started: the errno of the spawn.
    struct StartFailure: Error {
        let code: Int32
    }

    /// Whether a program of this name is on PATH and can be run.
    static func isOnPath(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains { folder in
            access(String(folder) + "/" + program, X_OK) == 0
        }
    }

    /// What a short query program prints (`tmux display -p …`), its errors discarded; nil when it
    /// cannot start or fails.
    public static func output(of arguments: [String]) -> String? {
        guard case .success(let outcome) = run(arguments, environment: nil, capturingOutput: true, quiet: true), outcome.status == 0 else {
            return nil
        }
        return outcome.output
    }

    /// Runs `arguments[0]` (looked up on PATH) with standard input from /dev/null and, with
    /// `capturingOutput`, standard output read back; otherwise it shares this process's
    /// terminal. Returns the errno of a failed start instead of an outcome.
    static func run(_ arguments: [String], environment: [String: String]?, capturingOutput: Bool, quiet: Bool = false) -> Result<Outcome, StartFailure> {
        var pipe: [Int32] = [-1, -1]
        if capturingOutput {
            guard let made = FileOps.closeOnExecPipe() else { return .failure(StartFailure(code: errno)) }
            pipe = [made.read, made.write]
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if capturingOutput {
            // dup2 leaves the child's standard output open across exec; the originals close with it.
            posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        }
        if quiet { posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0) }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned: Int32
        if var envp {
            spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, &envp)
        } else {
            spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        }
        if capturingOutput { close(pipe[1]) }
        guard spawned == 0 else {
            if capturingOutput { close(pipe[0]) }
            return .failure(StartFailure(code: spawned))
        }
        var output = [UInt8]()
        if capturingOutput {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(pipe[0], &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 || output.count > 1 << 20 { break }
                output += buffer[0..<count]
            }
            close(pipe[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .success(Outcome(status: -1, output: "")) }
        }
        // WIFEXITED / WEXITSTATUS are macros.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return .success(Outcome(status: exit, output: String(decoding: output, as: UTF8.self)))
    }

    /// What `arguments[0]` prints, read until it ends or `seconds` pass (then it is killed with
    /// its process group): nil when it could not start, failed, was killed, or printed more
    /// than `limit` bytes.
    static func output(of arguments: [String], seconds: Double, limit: Int = 1 << 20) -> String? {
        guard let made = FileOps.closeOnExecPipe() else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, made.write, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        close(made.write)
        defer { close(made.read) }
        guard spawned == 0 else { return nil }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var killed = false
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline || output.count > limit {
                kill(-pid, SIGKILL)
                killed = true
                break
            }
            var descriptor = pollfd(fd: made.read, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, (deadline - now) / 1_000_000)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = read(made.read, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard !killed, status & 0x7F == 0, (status >> 8) & 0xFF == 0 else { return nil }
        return String(decoding: output, as: UTF8.self)
    }
}
