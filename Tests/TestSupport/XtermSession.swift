import Foundation

/// A program in a real xterm on a virtual X display (Xvfb), typed at through the X server
/// (xdotool): the key sequences are xterm's own, not tmux's translation of them. What the program
/// writes is read from xterm's log; the window's pixels from `xwd`.
public final class XtermSession {
    /// `:N`, the display Xvfb chose.
    public let display: String
    /// Everything the program wrote to the terminal, escapes and all.
    public let logPath: String
    private let folder: String
    private var xvfb: pid_t = 0
    private var xterm: pid_t = 0
    private var window = ""

    /// Starts `arguments` in a `columns` × `rows` xterm with only `environment` (and the
    /// terminal's own `TERM` unless given); `xtermOptions` go to xterm (`-ti vt340`, say).
    public init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30,
                xtermOptions: [String] = []) throws {
        folder = NSTemporaryDirectory() + "xterm-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        logPath = folder + "/xterm.log"
        // Xvfb picks a free display and writes its number to descriptor 3.
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EMFILE) }
        xvfb = try Self.spawn(["Xvfb", "-displayfd", "3", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                              environment: ProcessInfo.processInfo.environment, passing: pipeEnds[1])
        close(pipeEnds[1])
        var number = ""
        var byte: UInt8 = 0
        while read(pipeEnds[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { number.append(Character(UnicodeScalar(byte))) }
        close(pipeEnds[0])
        guard !number.isEmpty else { throw XtermError("Xvfb did not start (is it installed? make test installs it)") }
        display = ":" + number
        let program = ["env", "-i"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + arguments
        xterm = try Self.spawn(["xterm", "-geometry", "\(columns)x\(rows)", "-l", "-lf", logPath] + xtermOptions + ["-e"] + program,
                               environment: ["DISPLAY": display, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        window = try xdotool(["search", "--sync", "--pid", "\(xterm)"]).split(separator: "\n").first.map(String.init) ?? ""
        guard !window.isEmpty else { throw XtermError("xterm's window did not appear") }
        try xdotool(["windowfocus", "--sync", window])
    }

    deinit {
        for pid in [xterm, xvfb] where pid > 0 {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Types keys by their X names (`End`, `Home`, `Next`, `Prior`, `Return`, `q`).
    public func key(_ names: String...) throws {
        try xdotool(["key", "--delay", "30"] + names)
    }

    /// What the program has written so far.
    public var output: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? String(decoding: (FileManager.default.contents(atPath: logPath) ?? Data()), as: UTF8.self)
    }

    /// Waits until the program's output after `offset` (a count of bytes) contains `text`;
    /// returns the offset after it, nil on timeout.
    public func waitForOutput(_ text: String, after offset: Int = 0, timeout: TimeInterval = 15) -> Int? {
        let deadline = Date().addingTimeInterval(timeout)
        let needle = Data(text.utf8)
        while Date() < deadline {
            let data = FileManager.default.contents(atPath: logPath) ?? Data()
            if data.count > offset, let range = data[offset...].firstRange(of: needle) { return range.upperBound }
            usleep(50_000)
        }
        return nil
    }

    /// Waits until xterm has closed (its program ended); says whether it did.
    public func waitForExit(timeout: TimeInterval = 15) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(xterm, &status, WNOHANG) == xterm {
                xterm = 0
                return true
            }
            usleep(50_000)
        }
        return false
    }

    @discardableResult
    private func xdotool(_ arguments: [String]) throws -> String {
        let outputPath = folder + "/xdotool-\(UUID().uuidString).out"
        defer { unlink(outputPath) }
        let pid = try Self.spawn(["xdotool"] + arguments, environment: ["DISPLAY": display, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                                 output: outputPath)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw XtermError("xdotool \(arguments.joined(separator: " ")) failed (\(status))") }
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// Spawns `argv` with an argument vector (no shell), its output to `output` or /dev/null,
    /// and `passing` as its descriptor 3.
    private static func spawn(_ argv: [String], environment: [String: String], output: String? = nil, passing: Int32? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        if let passing { posix_spawn_file_actions_adddup2(&actions, passing, 3) }
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { variables.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, argv[0], &actions, nil, arguments, variables)
        guard spawned == 0 else { throw XtermError("\(argv[0]) could not start: \(String(cString: strerror(spawned))) (make test installs it)") }
        return pid
    }
}

/// Why the xterm session could not go on.
public struct XtermError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
