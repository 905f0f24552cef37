import Foundation

/// A program running in a detached tmux session of its own, driven by keys and read as text.
public final class TmuxSession {
    public let socket = "newsstand-test-\(getpid())-\(UUID().uuidString.prefix(8))"

    /// Starts `arguments` in a `width` × `height` terminal; the pane then prints `EXIT=<status>`.
    /// `tellsTmux`: the program gets `TMUX` (which `env -i` would drop), naming this session's
    /// server, as tmux gives it to the programs in its panes.
    public init(_ arguments: [String], environment: [String: String], width: Int = 100, height: Int = 30, options: [String] = [],
                tellsTmux: Bool = false) throws {
        var environment = environment
        if tellsTmux { environment["TMUX"] = "\(ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp")/tmux-\(getuid())/\(socket),1,0" }
        let assignments = environment.sorted { $0.key < $1.key }.map { Self.quote("\($0.key)=\($0.value)") }
        // Only the given environment: the test runner's own (NO_COLOR, say) must not leak in.
        let command = "env -i " + assignments.joined(separator: " ") + " " + arguments.map(Self.quote).joined(separator: " ")
            + "; echo EXIT=$?; sleep 600"
        // The tmux server starts here and would inherit a pipe: give it no output to hold open.
        // Options (`set -g allow-passthrough on`) from a configuration file, in place before the program starts.
        let configuration = NSTemporaryDirectory() + "tmux-\(socket).conf"
        try (options.joined(separator: "\n") + "\n").write(toFile: configuration, atomically: true, encoding: .utf8)
        defer { unlink(configuration) }
        try tmux(["-f", configuration, "new-session", "-d", "-x", "\(width)", "-y", "\(height)", command], captureOutput: false)
    }

    deinit {
        _ = try? tmux(["kill-server"])
    }

    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs tmux and returns what it printed. Spawned directly and reaped with waitpid: the tmux
    /// server forks from the first client and inherits its descriptors, which confuses
    /// Foundation's Process into waiting for ever.
    @discardableResult
    public func tmux(_ arguments: [String], captureOutput: Bool = true) throws -> String {
        let outputPath = NSTemporaryDirectory() + "tmux-\(socket)-\(UUID().uuidString).out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, captureOutput ? outputPath : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = (["tmux", "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, "tmux", &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return captureOutput ? ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "") : ""
    }

    /// Types keys, as tmux names them (`Enter`, `Escape`, `PageDown`, or literal text with `literal`).
    public func send(_ keys: String..., literal: Bool = false) throws {
        try tmux(["send-keys", "-t", "0"] + (literal ? ["-l"] : []) + keys)
    }

    public func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "0", "-x", "\(width)", "-y", "\(height)"])
    }

    /// The screen as text; with `escapes`, with colour and attribute sequences.
    public func screen(escapes: Bool = false) -> String {
        (try? tmux(["capture-pane", "-p", "-t", "0"] + (escapes ? ["-e"] : []))) ?? ""
    }

    /// The process id of the program (the child of the pane's shell).
    public func programPID() throws -> pid_t? {
        let shell = try tmux(["list-panes", "-t", "0", "-F", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    /// Waits until the screen satisfies `condition`, re-reading it as it changes.
    @discardableResult
    public func waitForScreen(timeout: TimeInterval = 15, escapes: Bool = false, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(screen(escapes: escapes)) { return true }
            usleep(50_000)
        }
        return condition(screen(escapes: escapes))
    }

    /// The distinct colours in `escapes` of one kind: `48;5;` (256-colour backgrounds),
    /// `38;2;` (24-bit foregrounds), ...
    public static func colors(_ prefix: String, in escapes: String) -> Set<String> {
        var found: Set<String> = []
        var rest = Substring(escapes)
        while let range = rest.range(of: prefix) {
            rest = rest[range.upperBound...]
            let parts = rest.prefix { $0.isNumber || $0 == ";" }.split(separator: ";", omittingEmptySubsequences: false)
            found.insert(parts.prefix(prefix.hasSuffix("2;") ? 3 : 1).joined(separator: ";"))
        }
        return found
    }

    /// Waits until the screen shows `text`.
    @discardableResult
    public func waitFor(_ text: String, timeout: TimeInterval = 15) -> Bool {
        waitForScreen(timeout: timeout) { $0.contains(text) }
    }
}
