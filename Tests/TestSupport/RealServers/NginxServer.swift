import Foundation

/// Debian's nginx on 127.0.0.1, serving a folder, with the server block's extra lines a test
/// gives (redirects, auth_basic, limit_rate). Its access log records, for each request, the
/// target, status, Range, and whether credentials came.
public final class NginxServer {
    public let root: String
    public let server: RealServer
    public var port: Int { server.port }
    private let accessLog: String

    /// One request as nginx logged it.
    public struct Logged: Equatable, CustomStringConvertible {
        public var target: String
        public var status: Int
        public var range: String
        public var authorization: String
        public var host: String
        /// `-` when the body went uncompressed.
        public var gzipRatio: String
        public var description: String { "\(host) \(target) \(status) range=\(range) auth=\(authorization)" }
    }

    /// Whether it speaks TLS, with the test authority's certificate for 127.0.0.1 (``HTTPSServer/authority``).
    public let isTLS: Bool

    /// `locations(port, root)` goes inside the server block, after `root`; with `tls`, the server
    /// speaks https only.
    public init(locations: (_ port: Int, _ root: String) -> String = { _, _ in "" }, tls: Bool = false,
                folder: TemporaryDirectory = TemporaryDirectory()) throws {
        isTLS = tls
        let nginx = try RealServer.program("nginx", installedBy: "run `make test-servers` (Debian's nginx-light), or `make test`, whose set-up installs it")
        root = folder.path + "/root"
        accessLog = folder.path + "/access.log"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // Run as root, nginx serves as nobody: its folder must be open to read.
        chmod(folder.path, 0o755)
        let port = RealServer.freePort()
        let config = """
            worker_processes 1;
            daemon off;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/error.log warn;
            events { worker_connections 64; }
            http {
                log_format probe '$host|$request_uri|$status|$http_range|$http_authorization|$gzip_ratio';
                access_log \(accessLog) probe;
                client_body_temp_path \(folder.path)/body;
                proxy_temp_path \(folder.path)/proxy;
                fastcgi_temp_path \(folder.path)/fastcgi;
                uwsgi_temp_path \(folder.path)/uwsgi;
                scgi_temp_path \(folder.path)/scgi;
                types {
                    application/pdf pdf;
                    application/x-plist plist;
                    application/atom+xml atom;
                    application/rss+xml rss;
                    image/png png;
                    text/html html;
                }
                default_type application/octet-stream;
                gzip on;
                gzip_min_length 64;
                gzip_types application/x-plist application/atom+xml application/rss+xml;
                server {
                    listen 127.0.0.1:\(port)\(tls ? " ssl" : "");
                    \(tls ? "ssl_certificate \(HTTPSServer.certificate); ssl_certificate_key \(HTTPSServer.key);" : "")
                    server_name 127.0.0.1 localhost;
                    location ~ /\\.ht { deny all; }
                    root \(root);
                    \(locations(port, root))
                }
            }
            """
        try config.write(toFile: folder.path + "/nginx.conf", atomically: true, encoding: .utf8)
        server = try RealServer(name: "nginx", arguments: [nginx, "-p", folder.path, "-c", folder.path + "/nginx.conf"],
                                port: port, folder: folder, startTimeout: 20)
    }

    public func url(_ path: String, host: String = "127.0.0.1") -> URL {
        let plain = server.url(path, host: host)
        return isTLS ? URL(string: "https" + plain.absoluteString.dropFirst(4))! : plain
    }

    /// Writes a file under the root.
    public func put(_ path: String, _ data: Data) throws {
        let full = root + "/" + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: full))
    }

    /// Every request logged so far (nginx writes a line when a response ends).
    public var requests: [Logged] {
        let text = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 6, let status = Int(fields[2]) else { return nil }
            return Logged(target: fields[1], status: status, range: fields[3], authorization: fields[4], host: fields[0], gzipRatio: fields[5])
        }
    }

    public func requests(for target: String) -> [Logged] { requests.filter { $0.target == target } }
}
