import Foundation

/// A server nobody here wrote (nginx, calibre's content server, calibre-web), started by a test
/// on 127.0.0.1 with a folder of its own, and stopped when the test ends.
///
/// When its program is missing the test fails with the sentence that says how to get it: a real
/// server is never silently skipped.
public final class RealServer {
    /// Why a server could not be started.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public let name: String
    public let port: Int
    /// The server's own folder (configuration, logs, data).
    public let folder: TemporaryDirectory
    private let process: Process
    private let logPath: String

    /// Starts `arguments` and waits until it accepts connections on `port`.
    public init(name: String, arguments: [String], port: Int, folder: TemporaryDirectory, environment: [String: String]? = nil,
                startTimeout: TimeInterval = 60) throws {
        self.name = name
        self.port = port
        self.folder = folder
        logPath = folder.path + "/\(name).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let environment { process.environment = environment }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(startTimeout)
        while !Self.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw Unavailable(description: "\(name) did not start on 127.0.0.1:\(port); its log says: \(self.log.suffix(2000))")
            }
            usleep(50_000)
        }
    }

    deinit {
        stop()
    }

    /// What the server printed so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    public func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "http://\(host):\(port)\(path)")!
    }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// The path of `program`, or why a test cannot have it.
    public static func program(_ program: String, candidates: [String] = [], installedBy hint: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin"]
        for candidate in candidates + folders.map({ $0 + "/" + program }) where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        throw Unavailable(description: "\(program) is not installed, so this real-server test cannot run: \(hint).")
    }

    /// A port nothing listens on now.
    public static func freePort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Runs a helper program (calibredb, ebook-convert) to its end; throws with its output on failure.
    @discardableResult
    public static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let environment { process.environment = environment }
        let output = TemporaryDirectory()
        let path = output.path + "/out"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw Unavailable(description: "\(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text.suffix(2000))")
        }
        return text
    }
}
