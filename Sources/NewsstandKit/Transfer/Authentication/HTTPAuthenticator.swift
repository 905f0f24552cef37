import Foundation

/// What this process knows of each origin's authentication: the scheme it asked for and, for
/// Digest, its last nonce and how many times it was used, so that a known origin is answered in
/// the first request instead of after a 401.
///
/// Shared by every transfer; a store seeds it from its cache's info and saves it back, so that
/// the next process starts knowing too. Thread-safe.
public final class HTTPAuthenticator: Sendable {
    /// The one every transfer uses.
    public static let shared = HTTPAuthenticator()

    /// What is remembered of one origin.
    public struct Known: Sendable, Equatable, Codable {
        /// The challenge last answered successfully.
        public var challenge: AuthChallenge
        /// Requests made with `challenge.nonce` so far (Digest's `nc`).
        public var nonceCount: UInt32 = 0

        public init(challenge: AuthChallenge, nonceCount: UInt32 = 0) {
            self.challenge = challenge
            self.nonceCount = nonceCount
        }
    }

    private let known = Locked<[String: Known]>([:])

    public init() {}

    /// What is known of `origin` (`scheme://host:port`).
    public func known(for origin: String) -> Known? {
        known.withLock { $0[origin] }
    }

    /// Seeds what an earlier process learned, unless this one knows better already.
    public func seed(_ entry: Known, for origin: String) {
        known.withLock { known in
            if known[origin] == nil { known[origin] = entry }
        }
    }

    /// Remembers the challenge a request answered; a new nonce starts counting again.
    func remember(_ challenge: AuthChallenge, for origin: String, used nonceCount: UInt32) {
        known.withLock { known in
            if let existing = known[origin], existing.challenge.nonce == challenge.nonce, existing.challenge.scheme == challenge.scheme {
                known[origin]?.nonceCount = max(existing.nonceCount, nonceCount)
            } else {
                var remembered = challenge
                remembered.stale = false
                known[origin] = Known(challenge: remembered, nonceCount: nonceCount)
            }
        }
    }

    /// Forgets an origin whose server no longer takes what was remembered.
    func forget(_ origin: String) {
        known.withLock { _ = $0.removeValue(forKey: origin) }
    }

    /// The next nonce count for `challenge` at `origin`: one more than any request has used.
    func nextNonceCount(for challenge: AuthChallenge, at origin: String) -> UInt32 {
        known.withLock { known in
            guard var entry = known[origin], entry.challenge.nonce == challenge.nonce else { return 1 }
            entry.nonceCount &+= 1
            known[origin] = entry
            return entry.nonceCount
        }
    }

    /// The `Authorization` value answering `challenge` for a GET of `uri` (the request target:
    /// path and query as sent).
    static func authorization(
        answering challenge: AuthChallenge, user: String, password: String, uri: String, nonceCount: UInt32,
        cnonce: String = HTTPAuthenticator.makeClientNonce()
    ) -> String {
        switch challenge.scheme {
        case .basic:
            return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case .digest:
            let sha256 = challenge.hashFunction == .sha256
            func hash(_ text: String) -> String { sha256 ? sha256Hex(text) : md5Hex(text) }
            let realm = challenge.realm ?? ""
            let nonce = challenge.nonce ?? ""
            var ha1 = hash("\(user):\(realm):\(password)")
            if challenge.isSession { ha1 = hash("\(ha1):\(nonce):\(cnonce)") }
            let ha2 = hash("GET:\(uri)")
            let nc = String(format: "%08x", nonceCount)
            var fields = [
                "username=\(quoted(user))", "realm=\(quoted(realm))", "nonce=\(quoted(nonce))", "uri=\(quoted(uri))",
            ]
            if challenge.qop.contains("auth") {
                let response = hash("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
                fields += ["qop=auth", "nc=\(nc)", "cnonce=\(quoted(cnonce))", "response=\(quoted(response))"]
            } else {
                fields.append("response=\(quoted(hash("\(ha1):\(nonce):\(ha2)")))")
            }
            if let algorithm = challenge.algorithm { fields.append("algorithm=\(algorithm)") }
            if let opaque = challenge.opaque { fields.append("opaque=\(quoted(opaque))") }
            return "Digest " + fields.joined(separator: ", ")
        }
    }

    static func makeClientNonce() -> String {
        Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) })
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func md5Hex(_ text: String) -> String {
        Digest.md5Hex(text)
    }

    static func sha256Hex(_ text: String) -> String {
        Hex.string(Digest.sha256(text))
    }
}
