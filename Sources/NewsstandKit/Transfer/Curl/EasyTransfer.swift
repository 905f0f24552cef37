import Foundation

/// One transfer on its way: the request, the response as it arrives, and the file its body
/// goes to. Confined to the thread of the loop that runs it.
///
/// Redirects are followed here, not by libcurl, so that each hop is decorated for its own
/// origin: a subscription's credentials, headers and query never reach another host.
final class EasyTransfer: CurlEasyDelegate {
    let id: Int
    let request: TransferRequest
    private let handlers: TransferHandlers
    private(set) var easy: CurlEasy!

    private var head = ResponseHead()
    private var response = TransferResponse()
    private var decided = false
    private var sink: FileSink?
    private var wroteBody = false
    private var restarted = false
    private var failure: NewsstandError?
    private var redirectTarget: String?
    /// Body bytes handed to us.
    private var received: Int64 = 0
    private var lastProgress: UInt64 = 0
    /// When the server last sent anything (headers or body).
    private var lastActivity = DispatchTime.now().uptimeNanoseconds

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    init(id: Int, request: TransferRequest, handlers: TransferHandlers) {
        self.id = id
        self.request = request
        self.handlers = handlers
        easy = CurlEasy(delegate: self)
    }

    /// The URL asked for: with the profile's query when it is the profile's origin.
    private var effectiveURL: URL {
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

    private func setOptions() throws(NewsstandError) {
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
        try easy.set(.netrcOptional)
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
            case .basic(let user, let password)?: try easy.set(.basicAuthentication(user: user, password: password))
            case .digest(let user, let password)?: try easy.set(.digestAuthentication(user: user, password: password))
            case .bearer(let token)?: try easy.set(.bearerToken(token))
            case nil: break
            }
        }
        // A header with a line break would smuggle another header in: refused, not dropped.
        if let bad = headers.first(where: { $0.contains("\r") || $0.contains("\n") }) {
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
        guard let sink else { return bytes.count }
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

    private var expectedSize: Int64? {
        if response.statusCode == 206, let total = ContentRange(response.contentRange)?.total { return total }
        if let length = response.contentLength { return (sink?.base ?? 0) + length }
        return nil
    }

    /// Decides, once the final response is known, whether and where its body goes.
    private func decide() {
        decided = true
        response = head.response
        response.url = request.url
        if request.url.isFileURL {
            response.statusCode = 200
        } else if easy.responseCode > 0 {
            response.statusCode = easy.responseCode
        }
        let status = response.statusCode
        if Self.redirectStatuses.contains(status), let target = easy.redirectURL {
            redirectTarget = target
            return
        }
        handlers.response(response)
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
            return
        }
        do throws(NewsstandError) {
            sink = try FileSink(path: request.destination, base: base, expectedLength: response.contentLength)
            wroteBody = true
        } catch {
            failure = error
        }
    }

    // MARK: Completion

    /// Ends the transfer as libcurl reports it; returns the next hop when it was a redirect.
    func complete(_ result: CurlResult) -> EasyTransfer? {
        if !decided && failure == nil { decide() }
        if failure == nil, let target = redirectTarget {
            switch nextHop(target) {
            case .success(let next):
                let transfer = EasyTransfer(id: id, request: next, handlers: handlers)
                if let failure = transfer.configure() {
                    transfer.finish(with: failure)
                    return nil
                }
                return transfer
            case .failure(let error):
                finish(with: error)
                return nil
            }
        }
        if failure == nil { failure = easy.failure(for: result, request: request) }
        finish(with: failure)
        return nil
    }

    /// The request for a redirect's target, or why it may not be followed.
    private func nextHop(_ target: String) -> Result<TransferRequest, NewsstandError> {
        guard request.redirectCount < request.maximumRedirects else {
            return .failure(NewsstandError(.network, "The server redirected too many times."))
        }
        guard let url = URL(string: target), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              request.url.scheme?.lowercased() != "https" || scheme == "https"
        else {
            return .failure(NewsstandError(.unsupportedURL, "Refused a URL or redirect that is not http or https (https may not be redirected to http)."))
        }
        var next = request
        next.url = url
        next.redirectCount += 1
        return .success(next)
    }

    func finish(with failure: NewsstandError?) {
        // Bytes already received are kept, even on a cancel; a failed flush records its own failure.
        var size: Int64 = 0
        if let sink {
            do throws(NewsstandError) {
                size = try sink.close()
            } catch {
                if self.failure == nil { self.failure = error }
            }
            self.sink = nil
            handlers.progress(size, expectedSize)
        }
        handlers.completion(TransferResult(
            response: response, failure: self.failure ?? failure, bytesOnDisk: size, wroteBody: wroteBody, restarted: restarted))
    }
}
