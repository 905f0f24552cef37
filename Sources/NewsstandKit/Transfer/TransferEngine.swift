import CCurl
import Foundation

/// Runs HTTP(S) transfers on libcurl multi handles, each on a thread of its own.
///
/// Requests may be started and cancelled from any thread. Everything that touches libcurl
/// happens on the engine's threads, which also run every ``TransferHandlers`` callback (all
/// of one transfer's callbacks on the same thread). A transfer goes to the thread with the
/// fewest: at full speed a download is the kernel copying bytes, about 1 GB/s for one thread,
/// so several downloads at once need more than one core.
/// This is the only file that imports libcurl.
public final class TransferEngine: Sendable {
    /// The engine shared by the whole process.
    public static let shared = TransferEngine()

    /// One per core, at most four.
    public static var defaultThreadCount: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    private let loops: [TransferLoop]
    private let nextID = Locked(1)
    /// A PEM file of certificate authorities trusted instead of the system's, or nil for the system's.
    public let certificateAuthorities: String?

    /// An engine; `certificateAuthorities` names a PEM file to trust instead of the system's
    /// (a publisher's private authority). Certificates are verified either way.
    public init(certificateAuthorities: String? = nil, threadCount: Int = TransferEngine.defaultThreadCount) {
        _ = Self.globalInit
        self.certificateAuthorities = certificateAuthorities
        loops = (0..<max(1, threadCount)).map { _ in TransferLoop(certificateAuthorities: certificateAuthorities) }
    }

    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_ALL))
    }()

    /// Starts a transfer; its handlers run on the thread of the engine that runs it.
    @discardableResult
    public func start(_ request: TransferRequest, handlers: TransferHandlers) -> TransferID {
        let id = nextID.withLock { next -> Int in
            defer { next += 1 }
            return next
        }
        var chosen = loops[0]
        var lowest = chosen.load
        for loop in loops.dropFirst() where lowest > 0 {
            let load = loop.load
            if load < lowest { (chosen, lowest) = (loop, load) }
        }
        chosen.start(TransferLoop.Pending(id: id, request: request, handlers: handlers))
        return TransferID(rawValue: id)
    }

    /// Stops a transfer; its completion reports ``NewsstandError/Code/cancelled`` and the bytes
    /// received so far stay in the file. Does nothing for a finished transfer.
    public func cancel(_ id: TransferID) {
        // Every thread is told; the one running it stops it, the others have nothing to stop.
        for loop in loops { loop.cancel(id.rawValue) }
    }
}

/// One multi handle and the thread that runs it.
private final class TransferLoop: Sendable {
    struct Pending: Sendable {
        let id: Int
        let request: TransferRequest
        let handlers: TransferHandlers
    }

    private struct Queue: Sendable {
        var pending: [Pending] = []
        var cancelled: Set<Int> = []
        var running = false
        /// How many transfers the thread had at its last turn.
        var active = 0
    }

    private let queue = Locked(Queue())
    private let multi = MultiHandle()
    private let certificateAuthorities: String?

    init(certificateAuthorities: String?) {
        self.certificateAuthorities = certificateAuthorities
    }

    /// Transfers waiting or running here.
    var load: Int { queue.withLock { $0.pending.count + $0.active } }

    func start(_ pending: Pending) {
        let startThread = queue.withLock { queue -> Bool in
            queue.pending.append(pending)
            defer { queue.running = true }
            return !queue.running
        }
        if startThread {
            let thread = Thread { [self] in self.run() }
            thread.name = "newsstand.transfers"
            thread.start()
        } else {
            multi.wakeUp()
        }
    }

    func cancel(_ id: Int) {
        // A thread not started yet has nothing to cancel.
        let running = queue.withLock { queue -> Bool in
            if queue.running { queue.cancelled.insert(id) }
            return queue.running
        }
        if running { multi.wakeUp() }
    }

    /// The thread's loop. Never returns: the thread lives as long as the process.
    private func run() {
        var active: [Int: EasyTransfer] = [:]
        var byHandle: [UnsafeMutableRawPointer: EasyTransfer] = [:]
        while true {
            let (incoming, cancelled) = queue.withLock { queue -> ([Pending], Set<Int>) in
                defer {
                    queue.active += queue.pending.count
                    queue.pending.removeAll()
                    queue.cancelled.removeAll()
                }
                return (queue.pending, queue.cancelled)
            }
            for pending in incoming {
                let transfer = EasyTransfer(id: pending.id, request: pending.request, handlers: pending.handlers,
                                            certificateAuthorities: certificateAuthorities)
                if cancelled.contains(pending.id) {
                    transfer.finish(with: NewsstandError(.cancelled, "Cancelled."))
                    continue
                }
                if let failure = transfer.configure() {
                    transfer.finish(with: failure)
                    continue
                }
                active[pending.id] = transfer
                byHandle[transfer.handle] = transfer
                curl_multi_add_handle(multi.pointer, transfer.handle)
            }
            for id in cancelled {
                guard let transfer = active.removeValue(forKey: id) else { continue }
                byHandle.removeValue(forKey: transfer.handle)
                curl_multi_remove_handle(multi.pointer, transfer.handle)
                transfer.finish(with: NewsstandError(.cancelled, "Cancelled."))
            }
            // libcurl's own low-speed check averages over a window of seconds; a silent server
            // is noticed sooner and exactly by watching for the last byte.
            let now = DispatchTime.now().uptimeNanoseconds
            for transfer in active.values where transfer.isStalled(now: now) {
                active.removeValue(forKey: transfer.id)
                byHandle.removeValue(forKey: transfer.handle)
                curl_multi_remove_handle(multi.pointer, transfer.handle)
                transfer.finish(with: transfer.stallFailure)
            }

            var running: Int32 = 0
            curl_multi_perform(multi.pointer, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi.pointer, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                      let transfer = byHandle.removeValue(forKey: handle)
                else { continue }
                let code = ccurl_message_result(message)
                active.removeValue(forKey: transfer.id)
                curl_multi_remove_handle(multi.pointer, handle)
                transfer.finish(curlCode: code)
            }
            let count = active.count
            queue.withLock { $0.active = count }
            // With nothing to do the wait is long: start() and cancel() wake the poll up.
            curl_multi_poll(multi.pointer, nil, 0, active.isEmpty ? 60_000 : 500, nil)
        }
    }
}

/// The multi handle. Only `curl_multi_wakeup`, which libcurl documents as safe from any
/// thread, is called outside its loop's thread.
private final class MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init() {
        pointer = curl_multi_init()
        ccurl_multi_setopt_long(pointer, CURLMOPT_MAX_HOST_CONNECTIONS, 0)
    }

    func wakeUp() {
        curl_multi_wakeup(pointer)
    }

    deinit {
        curl_multi_cleanup(pointer)
    }
}

/// One easy handle and the file its body goes to. Confined to its loop's thread.
private final class EasyTransfer {
    let id: Int
    let handle: UnsafeMutableRawPointer
    private let request: TransferRequest
    private let handlers: TransferHandlers
    private let certificateAuthorities: String?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    private var response = TransferResponse()
    private var decided = false
    private var writing = false
    private var restarted = false
    private var failure: NewsstandError?
    private var fileDescriptor: Int32 = -1
    /// Where the body's first byte goes in the file.
    private var base: Int64 = 0
    /// Body bytes handed to us, buffered or written.
    private var received: Int64 = 0
    private var lastProgress: UInt64 = 0
    /// When the server last sent anything (headers or body).
    private var lastActivity = DispatchTime.now().uptimeNanoseconds

    /// Writes go to disk in pieces this large: far fewer system calls than libcurl's own chunks.
    private static let bufferSize = 1 << 20
    /// Chunks at least this large are written without going through the buffer.
    private static let directWriteSize = 256 << 10
    /// Allocated with the first body bytes, no larger than the body: a cover of 100 KB needs no
    /// megabyte (whose mapping and unmapping cost more than fetching it).
    private var buffer: UnsafeMutableRawPointer?
    private var bufferCapacity = 0
    private var buffered = 0
    /// Bytes of the body written to the file so far.
    private var written: Int64 = 0
    /// Where in the body the kernel has not been asked to start writing to the disk yet.
    private var writebackFrom: Int64 = 0
    /// Writeback is started every this many bytes: the disk works while the network does, and
    /// the sync before the issue is installed has only the tail left to wait for.
    private static let writebackStep: Int64 = 8 << 20
    private var lastFlush = DispatchTime.now().uptimeNanoseconds

    init(id: Int, request: TransferRequest, handlers: TransferHandlers, certificateAuthorities: String?) {
        self.id = id
        self.request = request
        self.handlers = handlers
        self.certificateAuthorities = certificateAuthorities
        self.handle = curl_easy_init()
        errorBuffer[0] = 0
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        if fileDescriptor >= 0 { close(fileDescriptor) }
        errorBuffer.deallocate()
        buffer?.deallocate()
    }

    /// Sets every option; returns why the request cannot be made, if it cannot.
    func configure() -> NewsstandError? {
        let scheme = request.url.scheme?.lowercased() ?? ""
        let protocols: String
        switch scheme {
        case "http", "https":
            protocols = "http,https"
        case "file" where request.allowsFileURLs:
            protocols = "file"
        default:
            return NewsstandError(.unsupportedURL, "Only http and https URLs can be fetched, not \(TextSanitizer.inert(request.url.absoluteString)).")
        }
        // A secure request may only be redirected to another secure URL.
        let redirectProtocols = scheme == "https" ? "https" : "http,https"
        let userdata = Unmanaged.passUnretained(self).toOpaque()

        ccurl_easy_setopt_string(handle, CURLOPT_URL, request.url.absoluteString)
        ccurl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, protocols)
        ccurl_easy_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, redirectProtocols)
        ccurl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        ccurl_easy_setopt_long(handle, CURLOPT_MAXREDIRS, 5)
        ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        ccurl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, 512 * 1024)
        ccurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, request.connectTimeout)
        ccurl_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        ccurl_easy_setopt_long(handle, CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
        ccurl_easy_setopt_string(handle, CURLOPT_USERAGENT, "newsstand/1.0")
        ccurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        // Verification (CURLOPT_SSL_VERIFYPEER / VERIFYHOST) is libcurl's default and is never turned off.
        if let certificateAuthorities { ccurl_easy_setopt_string(handle, CURLOPT_CAINFO, certificateAuthorities) }
        if let maximum = request.maximumBytes {
            ccurl_easy_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximum))
        }

        var headers: [String] = []
        if request.resumeOffset > 0 && scheme != "file" {
            ccurl_easy_setopt_string(handle, CURLOPT_RANGE, "\(request.resumeOffset)-")
            if let validator = request.ifRange { headers.append("If-Range: \(validator)") }
        }
        if let etag = request.ifNoneMatch { headers.append("If-None-Match: \(etag)") }
        if let date = request.ifModifiedSince { headers.append("If-Modified-Since: \(date)") }
        for header in headers where !header.contains("\r") && !header.contains("\n") {
            headerList = curl_slist_append(headerList, header)
        }
        if let headerList { ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList) }

        ccurl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, userdata)
        ccurl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, userdata in
            let transfer = Unmanaged<EasyTransfer>.fromOpaque(userdata!).takeUnretainedValue()
            transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        ccurl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, userdata)
        ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, userdata in
            let transfer = Unmanaged<EasyTransfer>.fromOpaque(userdata!).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        return nil
    }

    // MARK: Response

    func isStalled(now: UInt64) -> Bool {
        now > lastActivity && now - lastActivity > UInt64(request.stallTimeout) * 1_000_000_000
    }

    var stallFailure: NewsstandError {
        NewsstandError(.timedOut, "The server sent nothing for \(request.stallTimeout) s; try again later.", retryable: true)
    }

    private func receiveHeader(_ bytes: UnsafeRawBufferPointer) {
        lastActivity = DispatchTime.now().uptimeNanoseconds
        let line = Self.trimmed(String(decoding: bytes, as: UTF8.self))
        if line.hasPrefix("HTTP/") {
            // A new response (after a redirect or a 100 Continue): forget the previous one's headers.
            response = TransferResponse()
            let parts = line.split(separator: " ", maxSplits: 2)
            if parts.count >= 2, let status = Int(parts[1]) { response.statusCode = status }
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = Self.trimmed(line[line.index(after: colon)...])
        switch name {
        case "content-length": response.contentLength = Int64(value)
        case "content-range": response.contentRange = value
        case "content-type": response.contentType = value
        case "etag": response.etag = value
        case "last-modified": response.lastModified = value
        case "retry-after": response.retryAfter = Self.parseRetryAfter(value)
        default: break
        }
    }

    /// Without spaces, tabs and line ends around it (Foundation's trimming cost a tenth of a cover's fetch).
    static func trimmed(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    static func parseRetryAfter(_ value: String) -> TimeInterval? {
        if let seconds = Int(value) { return TimeInterval(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }

    /// Decides, once the final response is known, whether and where its body goes.
    private func decide() {
        decided = true
        if request.url.isFileURL {
            response.statusCode = 200
        } else {
            var code = 0
            ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
            if code > 0 { response.statusCode = code }
        }
        handlers.response(response)
        let status = response.statusCode
        let resumable = request.resumeOffset > 0 && !request.url.isFileURL
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
            base = 0
            restarted = resumable
            if let maximum = request.maximumBytes, let length = response.contentLength, length > maximum {
                failure = NewsstandError(.tooLarge, "The file is \(length) bytes, more than the \(maximum) expected.")
                return
            }
        default:
            return
        }
        let descriptor = open(request.destination, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            failure = FileOps.error(errno, "open", request.destination)
            return
        }
        fileDescriptor = descriptor
        // Truncating a file to nothing makes ext4 start writing it back when it is closed
        // (its guard for rename-over-truncate): only truncate when there is something to cut.
        var information = stat()
        let size = fstat(descriptor, &information) == 0 ? Int64(information.st_size) : -1
        if (size != base && ftruncate(descriptor, off_t(base)) != 0) || lseek(descriptor, off_t(base), SEEK_SET) < 0 {
            failure = FileOps.error(errno, "prepare", request.destination)
            return
        }
        writing = true
    }

    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if !decided { decide() }
        if failure != nil { return 0 }
        guard writing else { return bytes.count }
        let count = Int64(bytes.count)
        if let maximum = request.maximumBytes, base + received + count > maximum {
            failure = NewsstandError(.tooLarge, "The server sent more than the \(maximum) bytes expected; the download was stopped.")
            return 0
        }
        if buffer == nil {
            let body = response.contentLength.map { Int(min($0, Int64(Self.bufferSize))) } ?? Self.bufferSize
            bufferCapacity = max(16 << 10, (body + 4095) / 4096 * 4096)
            buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferCapacity, alignment: 4096)
        }
        if buffered + bytes.count > bufferCapacity {
            guard flush() else { return 0 }
        }
        // At full speed libcurl hands over its whole 512 KiB buffer: write that straight from
        // libcurl's memory rather than copy it into ours first.
        if bytes.count >= bufferCapacity || (buffered == 0 && bytes.count >= Self.directWriteSize) {
            guard writeAll(bytes) else { return 0 }
        } else if let source = bytes.baseAddress, let buffer {
            (buffer + buffered).copyMemory(from: source, byteCount: bytes.count)
            buffered += bytes.count
        }
        received += count
        let now = DispatchTime.now().uptimeNanoseconds
        lastActivity = now
        // A slow transfer should not keep seconds of data only in memory, where a crash loses it.
        if buffered > 0 && now - lastFlush >= 500_000_000 {
            guard flush() else { return 0 }
        }
        if now - lastProgress >= 50_000_000 {
            lastProgress = now
            handlers.progress(base + received, expectedSize)
        }
        return bytes.count
    }

    private var expectedSize: Int64? {
        if response.statusCode == 206, let total = ContentRange(response.contentRange)?.total { return total }
        if let length = response.contentLength { return base + length }
        return nil
    }

    private func flush() -> Bool {
        lastFlush = DispatchTime.now().uptimeNanoseconds
        guard buffered > 0 else { return true }
        let ok = writeAll(UnsafeRawBufferPointer(start: buffer, count: buffered))
        buffered = 0
        return ok
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                failure = FileOps.error(errno, "write", request.destination)
                return false
            }
            offset += count
        }
        written += Int64(bytes.count)
        if written - writebackFrom >= Self.writebackStep {
            FileOps.startWriteback(fileDescriptor, offset: base + writebackFrom, length: written - writebackFrom)
            writebackFrom = written
        }
        return true
    }

    // MARK: Completion

    func finish(curlCode: CURLcode) {
        if !decided && failure == nil { decide() }
        if curlCode != CURLE_OK && failure == nil {
            failure = describe(curlCode)
        }
        finish(with: failure)
    }

    func finish(with failure: NewsstandError?) {
        // Bytes already received are kept, even on a cancel; a failed flush records its own failure.
        if writing { _ = flush() }
        var size: Int64 = 0
        if fileDescriptor >= 0 {
            var info = stat()
            if fstat(fileDescriptor, &info) == 0 { size = Int64(info.st_size) }
            close(fileDescriptor)
            fileDescriptor = -1
        }
        if writing { handlers.progress(size, expectedSize) }
        let result = TransferResult(
            response: response, failure: self.failure ?? failure, bytesOnDisk: size, wroteBody: writing, restarted: restarted)
        handlers.completion(result)
    }

    private func describe(_ code: CURLcode) -> NewsstandError {
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        let detailText = TextSanitizer.inert(detail)
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return NewsstandError(.timedOut, "The server stopped sending data (\(detailText)); try again later.", retryable: true)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return NewsstandError(.unsupportedURL, "Refused a URL or redirect that is not http or https (https may not be redirected to http).")
        case CURLE_TOO_MANY_REDIRECTS:
            return NewsstandError(.network, "The server redirected too many times.")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            return NewsstandError(.insecure, "The secure connection failed (\(detailText)): the server's certificate could not be verified, so nothing was fetched.")
        case CURLE_FILE_COULDNT_READ_FILE:
            return NewsstandError(.notFound, "The file \(TextSanitizer.inert(request.url.path)) does not exist.")
        case CURLE_FILESIZE_EXCEEDED:
            return NewsstandError(.tooLarge, "The server sent more than the \(request.maximumBytes ?? 0) bytes expected; the download was stopped.")
        case CURLE_PARTIAL_FILE:
            return NewsstandError(.network, "The connection closed before the whole file arrived; it will resume from where it stopped.", retryable: true)
        default:
            return NewsstandError(.network, "Network error: \(detailText).", retryable: true)
        }
    }
}

/// A parsed `Content-Range: bytes first-last/total` header.
struct ContentRange {
    let first: Int64
    let last: Int64
    let total: Int64?

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
        self.first = first
        self.last = last
        self.total = halves[1] == "*" ? nil : Int64(halves[1])
        if let total, last >= total { return nil }
    }
}
