import Foundation

/// calibre-web (PyPI's `calibreweb`, in the virtual environment `make test-servers` makes) on a
/// calibre library, with its admin's password set and its default login limiter on.
public final class CalibreWebServer {
    public let server: RealServer
    public var port: Int { server.port }

    /// Where `make test-servers` puts calibre-web's `cps`.
    public static var program: String {
        if let path = ProcessInfo.processInfo.environment["NEWSSTAND_CPS"], !path.isEmpty { return path }
        return CommandRunner.resources + "/../.build-servers/calibre-web/bin/cps"
    }

    public init(library: String, user: String = "admin", password: String, folder: TemporaryDirectory = TemporaryDirectory()) throws {
        let cps = try RealServer.program("cps", candidates: [Self.program],
                                         installedBy: "run `make test-servers` (calibre-web from PyPI, in .build-servers/), or `make test`, whose set-up makes it")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder.path + "/home"
        let settings = folder.path + "/app.db"
        // Creates the settings database with the admin's password, then exits.
        try RealServer.run([cps, "-p", settings, "-s", "\(user):\(password)"], environment: environment)
        let port = RealServer.freePort()
        try RealServer.run(["/usr/bin/python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("update settings set config_calibre_dir = ?, config_port = ?", (sys.argv[2], int(sys.argv[3])))
            db.commit()
            """, settings, library, "\(port)"], environment: environment)
        server = try RealServer(name: "calibre-web", arguments: [cps, "-p", settings, "-i", "127.0.0.1"], port: port, folder: folder,
                                environment: environment)
    }

    public func url(_ path: String) -> URL { server.url(path) }
}
