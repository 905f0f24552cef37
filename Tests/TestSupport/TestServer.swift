import Foundation
import NewsstandKit

/// A small HTTP/1.1 server on 127.0.0.1 for tests, with byte ranges, validators, throttling
/// and injected faults.
///
/// Each connection runs on a thread of its own and is closed after one response, so a test can
/// count connections exactly. Everything it serves and every request it saw are behind one lock.
/// Its threads keep it alive until ``stop()``.
public final class TestServer: Sendable {
    /// A file the server holds.
    public struct Resource: Sendable {
        public var body: Data
        public var contentType: String
        public var etag: String?
        public var lastModified: String?
        /// Bytes per second, or nil for full speed.
        public var throttle: Int?
        /// More header lines for every answer with a body, such as `Content-Disposition: …`.
        public var extraHeaders: [String]

        public init(body: Data, contentType: String = "application/pdf", etag: String? = nil,
                    lastModified: String? = nil, throttle: Int? = nil, extraHeaders: [String] = []) {
            self.body = body
            self.contentType = contentType
            self.etag = etag
            self.lastModified = lastModified
            self.throttle = throttle
            self.extraHeaders = extraHeaders
        }
    }

    /// A misbehaviour applied to one request.
    public enum Fault: Sendable, Equatable {
        /// Send the headers (with the full Content-Length) and this many body bytes, then close.
        case cutAfter(Int)
        /// Answer a Range request with 200 and the whole file.
        case ignoreRange
        /// Answer a Range request with a 206 that starts at this offset instead.
        case wrongRange(start: Int)
        /// Answer 200 with an HTML page.
        case htmlPage
        /// Send this many body bytes, then nothing until the client gives up.
        case stallAfter(Int)
        /// Answer with this status and no body.
        case status(Int, retryAfter: Int? = nil)
        /// Send the body without a Content-Length, closing the connection at its end.
        case noContentLength
        /// Send this many extra bytes after the body, without a Content-Length.
        case extraBytes(Int)
    }

    /// A request as the server saw it.
    public struct Request: Sendable {
        public var method: String
        /// The path, without the query.
        public var path: String
        /// The path and the query, as asked for.
        public var target: String
        /// Header names in lower case.
        public var headers: [String: String]
        /// When the request was read, as uptime in nanoseconds.
        public var receivedAt: UInt64
    }

    struct State: Sendable {
        var resources: [String: Resource] = [:]
        var faults: [String: [Fault]] = [:]
        /// Faults for the next requests whatever their path, before any path's own.
        var anyPathFaults: [Fault] = []
        var redirects: [String: String] = [:]
        /// The Authorization header every request must carry, when set.
        var requiredAuthorization: String?
        /// The user and password every request must prove with HTTP Digest, when set.
        var requiredDigest: (user: String, password: String)?
        /// The nonce the Digest challenge gives now; answers with an older one get `stale=true`.
        var digestNonce = TestServer.digestNonce
        var staleNonces: Set<String> = []
        /// Sent (as `application/opds-authentication+json`) with every Basic 401.
        var authenticationDocument: Data?
        var requests: [Request] = []
        var bodyBytesSent: [String: Int] = [:]
        var activeTransfers = 0
        /// Bodies being sent, and the most at once, by the first segment of the path (`/a/1.pdf` → `/a`).
        var activeByFolder: [String: Int] = [:]
        var maximumByFolder: [String: Int] = [:]
        var maximumActiveTransfers = 0
        var connections: Set<Int32> = []
        /// Connections the client may still hold: one leaves this set when its last byte is written.
        var countedConnections: Set<Int32> = []
        var maximumOpenConnections = 0
        var stopped = false
    }

    let state = Locked(State())
    let changed = NSCondition()
    let listener: Int32
    /// The port on 127.0.0.1.
    public let port: Int

    /// Listens on `port` of 127.0.0.1, or on a free one.
    public init(port requested: Int = 0) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(requested).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "TestServer.accept"
        thread.start()
    }

    deinit {
        stop()
        close(listener)
    }

    /// The URL of a path on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    public func stop() {
        let connections = state.withLock { state -> Set<Int32> in
            guard !state.stopped else { return [] }
            state.stopped = true
            return state.connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        signalChange()
    }

    // MARK: Configuration

    public func serve(_ path: String, _ resource: Resource) {
        state.withLock { $0.resources[path] = resource }
    }

    /// Answers `path` with a 302 to `location`.
    /// Answers 401 to every request without exactly this Authorization header (nil: none needed).
    public func requireAuthorization(_ value: String?) {
        state.withLock { $0.requiredAuthorization = value }
    }

    /// Answers 401 with a Digest challenge (as calibre's content server does) to every request
    /// that does not prove this user and password with RFC 7616 Digest (MD5, qop=auth).
    public func requireDigest(user: String, password: String) {
        state.withLock { $0.requiredDigest = (user, password) }
    }

    static let digestRealm = "calibre"
    static let digestNonce = "5f1c9a7e3b2d4c68"

    /// Gives the Digest challenge a new nonce: an answer with the old one gets 401 with `stale=true`.
    public func expireDigestNonce() {
        state.withLock { state in
            state.staleNonces.insert(state.digestNonce)
            state.digestNonce = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        }
    }

    /// Sends an Authentication for OPDS document with every Basic 401.
    public func sendAuthenticationDocument(_ document: Data) {
        state.withLock { $0.authenticationDocument = document }
    }

    /// Whether an Authorization header is a valid Digest answer for `method` and the credentials.
    static func verifyDigest(_ header: String?, method: String, user: String, password: String, nonce digestNonce: String = digestNonce) -> Bool {
        guard let header, header.hasPrefix("Digest ") else { return false }
        var fields: [String: String] = [:]
        let pattern = try! NSRegularExpression(pattern: #"(\w+)=(?:"([^"]*)"|([^,\s]*))"#)
        let text = String(header.dropFirst(7))
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let name = String(text[Range(match.range(at: 1), in: text)!])
            let value = Range(match.range(at: 2), in: text).map { String(text[$0]) } ?? Range(match.range(at: 3), in: text).map { String(text[$0]) } ?? ""
            fields[name] = value
        }
        // By md5sum: a server that hashed with the client's own code would agree with it by construction.
        func md5(_ text: String) -> String { ReferenceDigest.md5(text) }
        guard fields["username"] == user, fields["realm"] == digestRealm, fields["nonce"] == digestNonce, let uri = fields["uri"],
              let response = fields["response"] else { return false }
        let ha1 = md5("\(user):\(digestRealm):\(password)")
        let ha2 = md5("\(method):\(uri)")
        let expected: String
        if let qop = fields["qop"], let nc = fields["nc"], let cnonce = fields["cnonce"] {
            expected = md5("\(ha1):\(digestNonce):\(nc):\(cnonce):\(qop):\(ha2)")
        } else {
            expected = md5("\(ha1):\(digestNonce):\(ha2)")
        }
        return response == expected
    }

    /// The Basic Authorization header for a user and password.
    public static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    public func redirect(_ path: String, to location: String) {
        state.withLock { $0.redirects[path] = location }
    }

    /// Queues faults for the next requests of `path`, one per request.
    public func inject(_ faults: Fault..., into path: String) {
        state.withLock { $0.faults[path, default: []].append(contentsOf: faults) }
    }

    /// Queues faults for the next requests, whichever path they ask for.
    public func injectIntoNextRequests(_ faults: Fault...) {
        state.withLock { $0.anyPathFaults.append(contentsOf: faults) }
    }

    // MARK: Observation

    /// The most connections that were open at once (one request each: every answer closes its
    /// connection), each counted until the last byte of its answer's body is written.
    public var maximumOpenConnections: Int { state.withLock { $0.maximumOpenConnections } }

    public var requests: [Request] { state.withLock { $0.requests } }
    public func requests(for path: String) -> [Request] { requests.filter { $0.path == path } }
    /// The most transfers that were sending a body at the same time.
    public var maximumActiveTransfers: Int { state.withLock { $0.maximumActiveTransfers } }
    /// The most bodies sent at once under one top folder (`/a` for `/a/1.pdf`).
    public func maximumActiveTransfers(under folder: String) -> Int { state.withLock { $0.maximumByFolder[folder] ?? 0 } }
    public func bodyBytesSent(for path: String) -> Int { state.withLock { $0.bodyBytesSent[path] ?? 0 } }

    /// Waits until `condition` holds, re-checking whenever the server's state changes.
    @discardableResult
    public func wait(timeout: TimeInterval = 20, until condition: (TestServer) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        changed.lock()
        defer { changed.unlock() }
        while !condition(self) {
            if !changed.wait(until: min(deadline, Date().addingTimeInterval(0.5))) && Date() >= deadline {
                return condition(self)
            }
        }
        return true
    }

    func signalChange() {
        changed.lock()
        changed.broadcast()
        changed.unlock()
    }
}
