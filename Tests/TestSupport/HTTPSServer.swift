import Foundation
import NewsstandKit

/// Python's HTTPS server on 127.0.0.1 (TLS/https_server.py), serving a temporary folder, with a
/// certificate for 127.0.0.1 from the test authority in TLS/.
public final class HTTPSServer {
    /// The folder it serves.
    public let root: String
    public let port: Int
    private let process: Process
    private let folder = TemporaryDirectory()

    /// The test authority's certificate, to trust with `--ca-file` or `TransferEngine(certificateAuthorities:)`.
    public static let authority = fixtures + "/authority.pem"
    /// The server's certificate (for 127.0.0.1) and key, signed by ``authority``.
    public static let certificate = fixtures + "/server.pem"
    public static let key = fixtures + "/server.key"
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("TLS").path

    /// Starts the server; `plainPort` is where `/to-http/PATH` redirects (http://127.0.0.1:plainPort/PATH).
    public init(plainPort: Int) throws {
        let fixtures = Self.fixtures
        root = folder.path + "/www"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", fixtures + "/https_server.py", root, fixtures + "/server.pem", fixtures + "/server.key", String(plainPort)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw NewsstandError(.network, "python3 could not start the HTTPS test server")
        }
        self.port = port
    }

    public func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!
    }

    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
