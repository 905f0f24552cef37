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
    /// The terminal emulator to start.
    public enum Emulator: Sendable {
        /// Debian's xterm, with options (`-ti vt340` for sixel).
        case xterm([String])
        /// Debian's kitty, drawn with Mesa's software OpenGL, with no configuration of the user's.
        case kitty
    }

    private let emulator: Emulator

    public convenience init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30,
                            xtermOptions: [String] = []) throws {
        try self.init(arguments, environment: environment, columns: columns, rows: rows, emulator: .xterm(xtermOptions))
    }

    public init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30, emulator: Emulator) throws {
        self.emulator = emulator
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
        // The program starts once the window is up (a gate it waits at), so that its questions to
        // the terminal reach a terminal that is ready to answer them: a kitty still starting on
        // a cold machine answered after the shelf's deadline.
        let gate = folder + "/start"
        guard mkfifo(gate, 0o600) == 0 else { throw XtermError("no gate: \(String(cString: strerror(errno)))") }
        let waitAtGate = "import os, sys; open(sys.argv[1], 'rb').read(1); os.execvp(sys.argv[2], sys.argv[2:])"
        let program = ["python3", "-c", waitAtGate, gate, "env", "-i"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + arguments
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        switch emulator {
        case .xterm(let options):
            // In UTF-8, as a reader's xterm is: without it, xterm shows the shelf's lines as Latin-1.
            xterm = try Self.spawn(["xterm", "-u8", "-geometry", "\(columns)x\(rows)", "-l", "-lf", logPath] + options + ["-e"] + program,
                                   environment: ["DISPLAY": display, "PATH": path, "LANG": "C.UTF-8"])
        case .kitty:
            let options = ["initial_window_width=\(columns)c", "initial_window_height=\(rows)c", "remember_window_size=no",
                           "window_padding_width=0", "placement_strategy=top-left", "enable_audio_bell=no"]
            xterm = try Self.spawn(["kitty", "--config", "NONE"] + options.flatMap { ["-o", $0] } + program,
                                   environment: ["DISPLAY": display, "PATH": path, "HOME": folder, "LIBGL_ALWAYS_SOFTWARE": "1"])
        }
        // Only a mapped window can take the focus.
        window = try xdotool(["search", "--sync", "--onlyvisible", "--pid", "\(xterm)"]).split(separator: "\n").first.map(String.init) ?? ""
        guard !window.isEmpty else { throw XtermError("xterm's window did not appear") }
        try xdotool(["windowfocus", "--sync", window])
        try Self.open(gate)
    }

    /// Lets the program waiting at `gate` go on (within 15 s of its start).
    private static func open(_ gate: String) throws {
        let deadline = Date().addingTimeInterval(15)
        while true {
            let descriptor = Glibc.open(gate, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                guard write(descriptor, "go", 1) == 1 else { throw XtermError("the program's gate could not be opened") }
                return
            }
            // ENXIO: the program is not at the gate yet.
            guard errno == ENXIO, Date() < deadline else { throw XtermError("the program never reached its gate: \(String(cString: strerror(errno)))") }
            usleep(20_000)
        }
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

    /// The display's pixels now (xterm's window sits at its top-left corner), read with `xwd`.
    public func screenshot() throws -> Screenshot {
        let path = folder + "/screen.xwd"
        try xdotool(["sync"], allowFailure: true)
        let pid = try Self.spawn(["xwd", "-root", "-silent"], environment: ["DISPLAY": display, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                                 output: path)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0, let data = FileManager.default.contents(atPath: path) else { throw XtermError("xwd failed (\(status))") }
        return try Screenshot(xwd: data)
    }

    /// The size of one cell in pixels and where the first one starts, from the window's size.
    public func cellGeometry(columns: Int, rows: Int) throws -> (width: Int, height: Int, border: Int) {
        let geometry = try xdotool(["getwindowgeometry", window])
        guard let line = geometry.split(separator: "\n").first(where: { $0.contains("Geometry:") }),
              let size = line.split(separator: " ").last?.split(separator: "x").compactMap({ Int($0) }), size.count == 2
        else { throw XtermError("no geometry in \(geometry)") }
        // xterm's internal border is 2 pixels by default; kitty's padding is set to none.
        let border = if case .xterm = emulator { 2 } else { 0 }
        return ((size[0] - 2 * border) / columns, (size[1] - 2 * border) / rows, border)
    }

    /// Resizes the window to `columns` × `rows` cells of `cell`'s size (the program gets SIGWINCH).
    public func resize(columns: Int, rows: Int, cell: (width: Int, height: Int, border: Int)) throws {
        try xdotool(["windowsize", "--sync", window, "\(columns * cell.width + 2 * cell.border)", "\(rows * cell.height + 2 * cell.border)"],
                    allowFailure: true)
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
    private func xdotool(_ arguments: [String], allowFailure: Bool = false) throws -> String {
        let outputPath = folder + "/xdotool-\(UUID().uuidString).out"
        defer { unlink(outputPath) }
        let pid = try Self.spawn(["xdotool"] + arguments, environment: ["DISPLAY": display, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                                 output: outputPath)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 || allowFailure else { throw XtermError("xdotool \(arguments.joined(separator: " ")) failed (\(status))") }
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

/// A screenshot: RGB pixels, row by row.
public struct Screenshot {
    public let width: Int
    public let height: Int
    public let rgb: [UInt8]

    /// Reads an XWD file of 24-bit ZPixmap pixels in 32 bits (what Xvfb's root window gives).
    init(xwd data: Data) throws {
        let bytes = [UInt8](data)
        func field(_ index: Int) -> Int {
            let at = index * 4
            return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        guard bytes.count > 100, field(1) == 7, field(2) == 2 else { throw XtermError("not an XWD of ZPixmap pixels") }
        let headerSize = field(0), width = field(4), height = field(5), leastFirst = field(7) == 0, bytesPerLine = field(12)
        // 32 bits a pixel; or 24 (once a GL program has run on Xvfb), in 3 bytes with the rows
        // still padded to 4 bytes a pixel.
        let pixelBytes = field(11) / 8
        guard width > 0, pixelBytes == 3 || pixelBytes == 4, bytesPerLine >= width * pixelBytes else { throw XtermError("an XWD of \(field(11))-bit pixels") }
        let colors = field(19)
        let start = headerSize + colors * 12
        guard bytes.count >= start + bytesPerLine * height else { throw XtermError("a short XWD") }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let at = start + y * bytesPerLine + x * pixelBytes
                let skip = pixelBytes - 3
                let (red, green, blue) = leastFirst ? (bytes[at + 2], bytes[at + 1], bytes[at]) : (bytes[at + skip], bytes[at + skip + 1], bytes[at + skip + 2])
                let out = (y * width + x) * 3
                rgb[out] = red
                rgb[out + 1] = green
                rgb[out + 2] = blue
            }
        }
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// Writes the top-left `width` × `height` pixels as a binary PPM (a picture any viewer opens).
    public func writePPM(_ path: String, width cropWidth: Int, height cropHeight: Int) throws {
        let (w, h) = (min(width, cropWidth), min(height, cropHeight))
        var data = Data("P6\n\(w) \(h)\n255\n".utf8)
        for y in 0..<h { data.append(contentsOf: rgb[(y * width * 3)..<(y * width * 3 + w * 3)]) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The pixel at `x`, `y`.
    public func pixel(_ x: Int, _ y: Int) -> (red: Int, green: Int, blue: Int) {
        let at = (y * width + x) * 3
        return (Int(rgb[at]), Int(rgb[at + 1]), Int(rgb[at + 2]))
    }

    /// The mean difference per channel (0–255) between a region and `expected` RGBA pixels of
    /// the same size, transparent pixels left out.
    public func difference(x: Int, y: Int, width regionWidth: Int, height regionHeight: Int, from expected: [UInt8]) -> Double {
        var total = 0, count = 0
        for row in 0..<regionHeight {
            for column in 0..<regionWidth {
                let at = (row * regionWidth + column) * 4
                guard expected[at + 3] > 0 else { continue }
                let pixel = self.pixel(x + column, y + row)
                total += abs(pixel.red - Int(expected[at])) + abs(pixel.green - Int(expected[at + 1])) + abs(pixel.blue - Int(expected[at + 2]))
                count += 3
            }
        }
        return count == 0 ? .infinity : Double(total) / Double(count)
    }

    /// How many distinct colours a region has.
    public func colorCount(x: Int, y: Int, width regionWidth: Int, height regionHeight: Int) -> Int {
        var colors: Set<Int> = []
        for row in y..<(y + regionHeight) {
            for column in x..<(x + regionWidth) {
                let pixel = self.pixel(column, row)
                colors.insert(pixel.red << 16 | pixel.green << 8 | pixel.blue)
            }
        }
        return colors.count
    }
}
