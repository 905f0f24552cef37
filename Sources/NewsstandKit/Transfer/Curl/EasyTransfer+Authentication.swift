import Foundation

extension EasyTransfer {
    // MARK: Authentication

    var origin: String { RequestProfile.origin(of: request.url) ?? "" }

    /// The `Authorization` value this request sends, if any: the answer to a challenge just
    /// received, else what the origin asked for before, else (over https only) Basic. Over http
    /// nothing is sent to a server that has not asked.
    func authorization() -> String? {
        guard let password else { return nil }
        let target = Self.requestTarget(of: effectiveURL)
        func answer(_ challenge: AuthChallenge) -> String {
            nonceCountUsed = challenge.scheme == .digest ? request.authenticator.nextNonceCount(for: challenge, at: origin) : 0
            return HTTPAuthenticator.authorization(
                answering: challenge, user: password.user, password: password.password, uri: target, nonceCount: nonceCountUsed)
        }
        if let challenge = request.answering {
            sent = .answer(challenge)
            return answer(challenge)
        }
        guard !request.withholdsCredentials else { return nil }
        if let known = request.authenticator.known(for: origin), password.pin == nil || password.pin == known.challenge.scheme {
            sent = .remembered(known.challenge)
            return answer(known.challenge)
        }
        if request.url.scheme?.lowercased() == "https" && password.pin != .digest {
            sent = .unasked
            return answer(AuthChallenge(scheme: .basic))
        }
        return nil
    }

    /// The request target as libcurl sends it (path and query, no fragment): what Digest signs.
    static func requestTarget(of url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.path }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }

    /// The same request again, answering the server's challenge, when this response asks for it
    /// and it can still succeed; otherwise nil (a wrong password is not tried again, which
    /// would lock accounts on servers that count failed logins).
    func authenticationFollowUp(status: Int) -> TransferRequest? {
        guard password != nil, request.authenticationRounds < 3 else { return nil }
        var next = request
        next.authenticationRounds += 1
        next.answering = nil
        switch status {
        case 401:
            let offered = AuthChallenge.parse(head.response.authenticate).filter { password?.pin == nil || $0.scheme == password?.pin }
            guard let best = offered.first else { return nil }
            switch sent {
            case .answer where !(best.scheme == .digest && best.stale):
                return nil
            case .remembered(let tried) where best.scheme == .basic && tried.scheme == .basic:
                // The same Basic header again would be the same wrong password: one failed login, not two.
                return nil
            case .unasked where best.scheme == .basic:
                return nil
            default:
                next.answering = best
                return next
            }
        case 400:
            // calibre answers a Basic header it did not ask for with 400: ask again with none.
            let sentBasic: Bool
            switch sent {
            case .unasked: sentBasic = true
            case .remembered(let challenge): sentBasic = challenge.scheme == .basic
            case .none, .answer: sentBasic = false
            }
            guard sentBasic else { return nil }
            request.authenticator.forget(origin)
            next.withholdsCredentials = true
            return next
        default:
            return nil
        }
    }

    /// Remembers what the origin took, so that its next request answers at once.
    func rememberAuthentication(status: Int) {
        guard status != 401 && status != 400 else { return }
        switch sent {
        case .answer(let challenge), .remembered(let challenge):
            request.authenticator.remember(challenge, for: origin, used: nonceCountUsed)
        case .unasked:
            request.authenticator.remember(AuthChallenge(scheme: .basic), for: origin, used: 0)
        case .none:
            break
        }
    }

    /// A `Location` resolved against the request's URL (relative, protocol-relative, with raw
    /// UTF-8 or spaces percent-encoded), without its fragment.
    static func resolve(location: String, against base: URL) -> URL? {
        var encoded = ""
        for byte in location.utf8 {
            switch byte {
            case 0..<0x20, 0x7F: return nil
            case 0x20, 0x80...:
                encoded += String(format: "%%%02X", byte)
            default:
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        if let hash = encoded.firstIndex(of: "#") { encoded = String(encoded[..<hash]) }
        return URL(string: encoded, relativeTo: base)?.absoluteURL
    }
}
