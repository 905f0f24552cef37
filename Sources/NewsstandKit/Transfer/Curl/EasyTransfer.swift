import Foundation

/// One transfer on its way: the request, the response as it arrives, and the file its body
/// goes to. Confined to the thread of the loop that runs it.
///
/// Redirects are followed here, not by libcurl, so that each hop is decorated for its own
/// origin: a subscription's credentials, headers and query never reach another host. The
/// target is the response's own `Location`, known from the head: libcurl fills its redirect
/// URL only once a body (which most servers send with a redirect) has been read.
///
/// Authentication is answered here too, as the server asks (``HTTPAuthenticator``): a 401's
/// challenge is answered in the next request, Basic or Digest, and remembered per origin so that
/// the next request answers it at once.
final class EasyTransfer: CurlEasyDelegate {
    let id: Int
    let request: TransferRequest
    let handlers: TransferHandlers
    var easy: CurlEasy!

    var head = ResponseHead()
    var response = TransferResponse()
    var decided = false
    var sink: FileSink?
    var wroteBody = false
    var restarted = false
    var failure: NewsstandError?
    /// The request to make instead of finishing: a redirect's target, or the same URL answering
    /// an authentication challenge.
    var followUp: TransferRequest?
    /// The user and password this hop may send, and what was sent.
    var password: (user: String, password: String, pin: AuthScheme?)?
    var sent = SentAuthorization.none
    var nonceCountUsed: UInt32 = 0
    /// The body of a 401 that carries an authentication document.
    var challengeBody: Data?
    /// Body bytes handed to us.
    var received: Int64 = 0
    var lastProgress: UInt64 = 0
    /// When the server last sent anything (headers or body).
    var lastActivity = DispatchTime.now().uptimeNanoseconds

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// What the request said about credentials.
    enum SentAuthorization {
        case none
        /// Basic, before any challenge, over https.
        case unasked
        /// What the origin asked for before.
        case remembered(AuthChallenge)
        /// This response's request answered a challenge the server had just sent.
        case answer(AuthChallenge)

        var isNone: Bool {
            if case .none = self { return true }
            return false
        }
    }

    init(id: Int, request: TransferRequest, handlers: TransferHandlers) {
        self.id = id
        self.request = request
        self.handlers = handlers
        easy = CurlEasy(delegate: self)
    }

    /// The URL asked for: with the profile's query when it is the profile's origin.
    var effectiveURL: URL {
        guard let profile = request.profile, profile.applies(to: request.url) else { return request.url }
        return profile.decorate(request.url)
    }

    /// Sets every option; returns why the request cannot be made, if it cannot.
    func configure() -> NewsstandError? {
        do throws(NewsstandError) {
            try setOptions()
            return nil
        } catch {
            return error
        }
    }

    func setOptions() throws(NewsstandError) {
        let scheme = request.url.scheme?.lowercased() ?? ""
        let protocols: String
        switch scheme {
        case "http", "https":
            protocols = "http,https"
        case "file" where request.allowsFileURLs:
            protocols = "file"
        default:
            throw NewsstandError(.unsupportedURL, "Only http and https URLs can be fetched, not \(TextSanitizer.inert(request.url.absoluteString)).")
        }
        let ownOrigin = request.profile.map { $0.applies(to: request.url) } ?? false
        try easy.set(.url(effectiveURL.absoluteString))
        try easy.set(.protocols(protocols))
        try easy.set(.followLocation(false))
        try easy.set(.noSignal)
        try easy.set(.bufferSize(512 * 1024))
        try easy.set(.connectTimeout(request.connectTimeout))
        try easy.set(.tcpKeepAlive)
        try easy.set(.userAgent("newsstand/1.0"))
        // Verification (CURLOPT_SSL_VERIFYPEER / VERIFYHOST) is libcurl's default and is never turned off.
        if let path = request.certificateAuthorities { try easy.set(.certificateAuthorities(path)) }
        if let maximum = request.maximumBytes { try easy.set(.maximumFileSize(maximum)) }
        if let speed = request.maximumBytesPerSecond { try easy.set(.maximumReceiveSpeed(speed)) }

        var headers: [String] = []
        if request.resumeOffset > 0 && scheme != "file" {
            try easy.set(.range("\(request.resumeOffset)-"))
            if let validator = request.ifRange { headers.append("If-Range: \(validator)") }
        }
        if let etag = request.ifNoneMatch { headers.append("If-None-Match: \(etag)") }
        if let accept = request.accept { headers.append("Accept: \(accept)") }
        // Catalogs only: libcurl decodes what it names in Accept-Encoding; a download stays as
        // served, so that Range and sizes mean the file's bytes.
        if request.acceptsCompression && scheme != "file" { try easy.set(.acceptEncoding) }
        if let date = request.ifModifiedSince { headers.append("If-Modified-Since: \(date)") }
        if ownOrigin, let profile = request.profile {
            headers += profile.headers
            switch profile.credentials {
            case .password(let user, let password, let pin)?: self.password = (user, password, pin)
            case .bearer(let token)?: try easy.set(.bearerToken(token))
            case nil: break
            }
        }
        // ~/.netrc, for a host the subscription gives no credentials for (as curl reads it).
        if scheme != "file", !(ownOrigin && request.profile?.credentials != nil), let host = request.url.host,
           let entry = request.netrc?.credentials(for: host) {
            password = (entry.user, entry.password, nil)
        }
        if let authorization = authorization() { headers.append("Authorization: \(authorization)") }
        // A header with a line break would smuggle another header in: refused, not dropped.
        // By bytes: `contains` of a string went through Foundation's search, 20 µs a transfer.
        if let bad = headers.first(where: { $0.utf8.contains { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") } }) {
            let name = bad.split(separator: ":", maxSplits: 1).first.map(String.init) ?? "a header"
            throw NewsstandError(.configuration, "The header \(TextSanitizer.inert(name)) contains a line break; nothing was fetched.")
        }
        if !headers.isEmpty { try easy.set(.headers(headers)) }
        try easy.connectCallbacks()
    }

    // MARK: Response

    func isStalled(now: UInt64) -> Bool {
        now > lastActivity && now - lastActivity > UInt64(request.stallTimeout) * 1_000_000_000
    }

    var stallFailure: NewsstandError {
        NewsstandError(.timedOut, "The server sent nothing for \(request.stallTimeout) s; try again later.", retryable: true)
    }

    func curlDidReceiveHeader(_ line: UnsafeRawBufferPointer) {
        lastActivity = DispatchTime.now().uptimeNanoseconds
        head.take(line)
    }

    func curlDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if !decided { decide() }
        if failure != nil { return 0 }
        guard let sink else {
            if challengeBody != nil, challengeBody!.count + bytes.count <= AuthenticationDocument.maximumSize {
                challengeBody!.append(contentsOf: bytes)
            }
            return bytes.count
        }
        let count = Int64(bytes.count)
        if let maximum = request.maximumBytes, sink.base + received + count > maximum {
            failure = NewsstandError(.tooLarge, "The server sent more than the \(maximum) bytes expected; the download was stopped.")
            return 0
        }
        do throws(NewsstandError) {
            try sink.write(bytes)
        } catch {
            failure = error
            return 0
        }
        received += count
        let now = DispatchTime.now().uptimeNanoseconds
        lastActivity = now
        if now - lastProgress >= 50_000_000 {
            lastProgress = now
            handlers.progress(sink.base + received, expectedSize)
        }
        return bytes.count
    }

    var expectedSize: Int64? {
        if response.statusCode == 206, let total = ContentRange(response.contentRange)?.total { return total }
        if let length = response.contentLength { return (sink?.base ?? 0) + length }
        return nil
    }

    /// Decides, once the final response is known, whether and where its body goes.
    func decide() {
        decided = true
        response = head.response
        response.url = request.url
        if request.url.isFileURL {
            response.statusCode = 200
        } else if easy.responseCode > 0 {
            response.statusCode = easy.responseCode
        }
        let status = response.statusCode
        response.sentCredentials = !(sent.isNone)
        if let next = authenticationFollowUp(status: status) {
            followUp = next
            return
        }
        rememberAuthentication(status: status)
        if Self.redirectStatuses.contains(status) {
            switch nextHop(response.location) {
            case .success(let next): followUp = next
            case .failure(let error): failure = error
            }
            return
        }
        if status == 401, AuthenticationDocument.isDocumentType(response.contentType) { challengeBody = Data() }
        let resumable = request.resumeOffset > 0 && !request.url.isFileURL
        var base: Int64 = 0
        switch status {
        case 206:
            guard resumable, let range = ContentRange(response.contentRange), range.first == request.resumeOffset else {
                failure = NewsstandError(
                    .rangeMismatch,
                    "The server sent bytes \(TextSanitizer.inert(response.contentRange ?? "(no Content-Range)")) but bytes \(request.resumeOffset)- were asked for; nothing was written.",
                    retryable: true)
                return
            }
            if let maximum = request.maximumBytes, let total = range.total, total > maximum {
                failure = NewsstandError(.tooLarge, "The file is \(total) bytes, more than the \(maximum) expected.")
                return
            }
            base = range.first
        case 200..<300:
            restarted = resumable
            if let maximum = request.maximumBytes, let length = response.contentLength, length > maximum {
                failure = NewsstandError(.tooLarge, "The file is \(length) bytes, more than the \(maximum) expected.")
                return
            }
        default:
            handlers.response(response)
            return
        }
        do throws(NewsstandError) {
            sink = try FileSink(path: request.destination, in: request.memoryDestination, base: base, expectedLength: response.contentLength,
                                hashing: request.hashesBody)
            wroteBody = true
        } catch {
            failure = error
            return
        }
        // Reported once the destination is open and cut to where this body starts, and never for
        // an answer refused above or a destination that cannot be opened: what the caller records
        // of the response (a part's validator) then describes the bytes on disk, and the part it
        // records it on exists.
        handlers.response(response)
    }

    // MARK: Completion

    /// Ends the transfer as libcurl reports it; returns the next hop when it was a redirect.
    func complete(_ result: CurlResult) -> EasyTransfer? {
        if !decided && failure == nil { decide() }
        if failure == nil, let next = followUp {
            let transfer = EasyTransfer(id: id, request: next, handlers: handlers)
            if let failure = transfer.configure() {
                transfer.finish(with: failure)
                return nil
            }
            return transfer
        }
        if let body = challengeBody { response.authenticationDocument = AuthenticationDocument(body) }
        if failure == nil { failure = easy.failure(for: result, request: request) }
        finish(with: failure)
        return nil
    }

    /// The request for a redirect's target, or why it may not be followed.
    func nextHop(_ location: String?) -> Result<TransferRequest, NewsstandError> {
        guard let location, !location.isEmpty else {
            return .failure(NewsstandError(.httpStatus, "The server answered a redirect (HTTP \(response.statusCode)) without saying where to."))
        }
        guard request.redirectCount < request.maximumRedirects else {
            return .failure(NewsstandError(.network, "The server redirected more than \(request.maximumRedirects) times; stopped there."))
        }
        guard let url = Self.resolve(location: location, against: request.url), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              request.url.scheme?.lowercased() != "https" || scheme == "https"
        else {
            return .failure(NewsstandError(.unsupportedURL, "Refused a URL or redirect that is not http or https (https may not be redirected to http)."))
        }
        var next = request
        next.url = url
        next.redirectCount += 1
        // A new place asks afresh; the Range and If-Range of a resumed download go with it.
        next.answering = nil
        next.withholdsCredentials = false
        next.authenticationRounds = 0
        return .success(next)
    }

    func finish(with failure: NewsstandError?) {
        // Bytes already received are kept, even on a cancel; a failed flush records its own failure.
        var size: Int64 = 0
        let digest = sink?.digest
        if let sink {
            do throws(NewsstandError) {
                size = try sink.close()
            } catch {
                if self.failure == nil { self.failure = error }
            }
            self.sink = nil
            handlers.progress(size, expectedSize)
        }
        var result = TransferResult(response: response, failure: self.failure ?? failure, bytesOnDisk: size, wroteBody: wroteBody, restarted: restarted)
        if let host = result.failure?.unreachableHost {
            HostReachability.shared.failed(host)
        } else if response.statusCode > 0, !request.url.isFileURL {
            HostReachability.shared.reached(request.url)
        }
        result.bodyDigest = digest
        handlers.completion(result)
    }
}
