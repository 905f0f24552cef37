import Foundation

/// Debian's calibre content server in its default authentication (`--enable-auth`: Digest over
/// http), on a library made by `calibredb` from the files a test gives.
public final class CalibreServer {
    public let server: RealServer
    public let library: String
    public let accessLog: String
    public var port: Int { server.port }

    /// A book to add: a file, its title and author, and a cover picture.
    public struct Book {
        public var path: String
        public var title: String
        public var author: String
        public var cover: String?
        public init(path: String, title: String, author: String, cover: String? = nil) {
            self.path = path
            self.title = title
            self.author = author
            self.cover = cover
        }
    }

    public init(books: [Book], user: String, password: String, folder: TemporaryDirectory = TemporaryDirectory()) throws {
        let calibreServer = try RealServer.program("calibre-server", installedBy: Self.hint)
        library = folder.path + "/library"
        accessLog = folder.path + "/access.log"
        let environment = Self.environment(folder)
        try Self.makeLibrary(books, at: library, folder: folder)
        let users = folder.path + "/users.sqlite"
        try RealServer.run([calibreServer, "--userdb", users, "--manage-users", "--", "add", user, password], environment: environment)
        let port = RealServer.freePort()
        server = try RealServer(
            name: "calibre-server",
            arguments: [calibreServer, "--port", "\(port)", "--listen-on", "127.0.0.1", "--enable-auth", "--userdb", users,
                        "--access-log", accessLog, library],
            port: port, folder: folder, environment: environment)
    }

    public func url(_ path: String) -> URL { server.url(path) }

    static let hint = "run `make test-servers` (Debian's calibre), or `make test`, whose set-up installs it"

    /// calibre writes its settings under HOME: a folder of its own keeps the machine's untouched.
    static func environment(_ folder: TemporaryDirectory) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder.path + "/home"
        environment["XDG_RUNTIME_DIR"] = folder.path
        environment["CALIBRE_CONFIG_DIRECTORY"] = folder.path + "/config"
        return environment
    }

    /// A calibre library made by `calibredb add`, as a reader's own is.
    public static func makeLibrary(_ books: [Book], at library: String, folder: TemporaryDirectory) throws {
        let calibredb = try RealServer.program("calibredb", installedBy: hint)
        for book in books {
            var arguments = [calibredb, "add", book.path, "--title", book.title, "--authors", book.author, "--library-path", library]
            if let cover = book.cover { arguments += ["--cover", cover] }
            try RealServer.run(arguments, environment: environment(folder))
        }
    }

    /// An EPUB made by calibre's own converter from a text.
    public static func makeEPUB(title: String, text: String, at path: String, folder: TemporaryDirectory) throws {
        let convert = try RealServer.program("ebook-convert", installedBy: hint)
        let source = folder.path + "/\(UUID().uuidString).txt"
        try text.write(toFile: source, atomically: true, encoding: .utf8)
        try RealServer.run([convert, source, path, "--title", title], environment: environment(folder))
    }

    /// Each request calibre logged: its target, the user it authenticated (`-` for none), its status.
    public var requests: [(target: String, user: String, status: Int)] {
        let text = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            // 127.0.0.1 port-42604 reader 24/Nov/2026:18:31:49 +0000 "GET /opds HTTP/1.1" 200 2117
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 9, let quote = words.firstIndex(where: { $0.hasPrefix("\"") }), quote + 3 < words.count,
                  let status = Int(words[quote + 3]) else { return nil }
            return (words[quote + 1], words[2], status)
        }
    }
}
