import Foundation

/// Runs the built `newsstand` binary with a controlled environment.
public struct CommandRunner: Sendable {
    /// What a finished command printed and returned.
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
        public var error: String
    }

    public var environment: [String: String]
    private let outputFolder = TemporaryDirectory()

    /// The `newsstand` executable built beside the test bundle (or `$NEWSSTAND_BINARY`).
    public static var executable: String {
        if let path = ProcessInfo.processInfo.environment["NEWSSTAND_BINARY"], !path.isEmpty { return path }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if folder.lastPathComponent == "MacOS" { folder = folder.deletingLastPathComponent().deletingLastPathComponent() }
        return folder.appendingPathComponent("newsstand").path
    }

    /// The repository's `Resources` folder.
    public static var resources: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources").path
    }

    public init(folder: TemporaryDirectory, extra: [String: String] = [:]) {
        var environment = folder.environment
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        environment["LANG"] = "C.UTF-8"
        environment["NEWSSTAND_RESOURCES"] = Self.resources
        environment.merge(extra) { $1 }
        self.environment = environment
    }

    /// Starts the command; the caller waits for it or kills it.
    public func start(_ arguments: [String]) throws -> (Process, outputPath: String, errorPath: String) {
        try Self.launch([Self.executable] + arguments, environment: environment, outputFolder: outputFolder)
    }

    /// Starts `arguments[0]` (an absolute path) with its output and errors written to files of `outputFolder`.
    private static func launch(_ arguments: [String], environment: [String: String]?,
                               outputFolder: TemporaryDirectory) throws -> (Process, outputPath: String, errorPath: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let environment { process.environment = environment }
        let name = UUID().uuidString
        let outputPath = outputFolder.path + "/\(name).out"
        let errorPath = outputFolder.path + "/\(name).err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, outputPath, errorPath)
    }

    /// Waits for a started process and reads back what it wrote.
    private static func finish(_ started: (Process, outputPath: String, errorPath: String)) -> Result {
        started.0.waitUntilExit()
        return Result(
            status: started.0.terminationStatus,
            output: (try? String(contentsOfFile: started.outputPath, encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: started.errorPath, encoding: .utf8)) ?? "")
    }

    /// Runs the command to its end.
    public func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    /// Runs the command to its end.
    public func run(_ arguments: [String]) throws -> Result {
        Self.finish(try start(arguments))
    }

    /// Runs another program (an absolute path, then its arguments) to its end, in this process's
    /// environment, its output read back.
    public static func runProgram(_ arguments: [String]) throws -> Result {
        let folder = TemporaryDirectory()
        return finish(try launch(arguments, environment: nil, outputFolder: folder))
    }
}
