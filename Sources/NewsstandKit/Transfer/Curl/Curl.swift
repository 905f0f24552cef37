import CCurl
import Foundation

// The only file that imports libcurl: everything else sees the Swift types below.

/// libcurl's entry points, looked up the first time a transfer needs them (see CCurl's shim for
/// why it is opened rather than linked). Never closed: it lives as long as the process.
struct CurlLibrary: @unchecked Sendable {
    fileprivate let entryPoints: UnsafePointer<ccurl_library>

    /// The soname of Debian's (and most distributions') libcurl 7.16 and later.
    static let soname = "libcurl.so.4"

    /// The process's libcurl, or why it could not be opened: every transfer fails with that reason.
    static let shared = open(soname)

    /// Opens `name` and initialises it; the error names the library and the package to install.
    static func open(_ name: String) -> Result<CurlLibrary, NewsstandError> {
        let library: UnsafePointer<ccurl_library>
        switch EntryPointTable.load(name, empty: ccurl_library(), { ccurl_library_open($0, $1) }) {
        case .success(let table): library = table
        case .failure(let failure):
            return .failure(NewsstandError(
                .libcurl, "Could not load libcurl (\(name)): \(failure.reason). Nothing can be fetched until it is installed (on Debian: apt install libcurl4)."))
        }
        let code = ccurl_global_init(library, Int(CURL_GLOBAL_ALL))
        guard code == CURLE_OK else {
            dlclose(library.pointee.handle)
            library.deallocate()
            return .failure(NewsstandError(.libcurl, "libcurl (\(name)) failed to start (CURLcode \(code.rawValue)); nothing can be fetched."))
        }
        return .success(CurlLibrary(entryPoints: library))
    }

    /// The process's libcurl; only called once ``TransferEngine`` has checked ``shared`` opened.
    fileprivate static var loaded: UnsafePointer<ccurl_library> {
        switch shared {
        case .success(let library): return library.entryPoints
        case .failure(let error): preconditionFailure("a libcurl handle made although libcurl is missing: \(error.message)")
        }
    }
}

/// An option newsstand sets on a transfer, as a Swift value.
enum CurlOption {
    case url(String)
    case protocols(String)
    case followLocation(Bool)
    case noSignal
    case bufferSize(Int)
    case connectTimeout(Int)
    case tcpKeepAlive
    case userAgent(String)
    case certificateAuthorities(String)
    case maximumFileSize(Int64)
    case range(String)
    case headers([String])
    case bearerToken(String)
    case maximumReceiveSpeed(Int64)
    case acceptEncoding

    /// libcurl's name for it, for an error message.
    var name: String {
        switch self {
        case .url: return "CURLOPT_URL"
        case .protocols: return "CURLOPT_PROTOCOLS_STR"
        case .followLocation: return "CURLOPT_FOLLOWLOCATION"
        case .noSignal: return "CURLOPT_NOSIGNAL"
        case .bufferSize: return "CURLOPT_BUFFERSIZE"
        case .connectTimeout: return "CURLOPT_CONNECTTIMEOUT"
        case .tcpKeepAlive: return "CURLOPT_TCP_KEEPALIVE"
        case .userAgent: return "CURLOPT_USERAGENT"
        case .certificateAuthorities: return "CURLOPT_CAINFO"
        case .maximumFileSize: return "CURLOPT_MAXFILESIZE_LARGE"
        case .range: return "CURLOPT_RANGE"
        case .headers: return "CURLOPT_HTTPHEADER"
        case .bearerToken: return "CURLOPT_HTTPAUTH (bearer)"
        case .acceptEncoding: return "CURLOPT_ACCEPT_ENCODING"
        case .maximumReceiveSpeed: return "CURLOPT_MAX_RECV_SPEED_LARGE"
        }
    }
}

/// What a transfer's callbacks go to. Called on the thread that runs the transfer.
protocol CurlEasyDelegate: AnyObject {
    /// One header line, with its line end.
    func curlDidReceiveHeader(_ line: UnsafeRawBufferPointer)
    /// Body bytes; returns how many were taken (fewer stops the transfer).
    func curlDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> Int
}

/// How libcurl ended a transfer.
struct CurlResult {
    fileprivate let code: CURLcode
    var isSuccess: Bool { code == CURLE_OK }
}

/// One easy handle, freed in `deinit`. Confined to the thread of the loop that runs it.
final class CurlEasy {
    /// libcurl's handle, used as a key by the multi handle.
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private weak var delegate: (any CurlEasyDelegate)?
    private let curl = CurlLibrary.loaded

    init(delegate: any CurlEasyDelegate) {
        handle = ccurl_easy_init(curl)
        self.delegate = delegate
        errorBuffer[0] = 0
    }

    deinit {
        ccurl_easy_cleanup(curl, handle)
        ccurl_slist_free_all(curl, headerList)
        errorBuffer.deallocate()
    }

    /// Sets an option; a libcurl that refuses it (too old, built without a feature) fails the
    /// transfer with a clear error rather than silently dropping a rule.
    func set(_ option: CurlOption) throws(NewsstandError) {
        let code: CURLcode
        switch option {
        case .url(let value): code = ccurl_easy_setopt_string(curl, handle, CURLOPT_URL, value)
        case .protocols(let value): code = ccurl_easy_setopt_string(curl, handle, CURLOPT_PROTOCOLS_STR, value)
        case .followLocation(let value): code = ccurl_easy_setopt_long(curl, handle, CURLOPT_FOLLOWLOCATION, value ? 1 : 0)
        case .noSignal: code = ccurl_easy_setopt_long(curl, handle, CURLOPT_NOSIGNAL, 1)
        case .bufferSize(let value): code = ccurl_easy_setopt_long(curl, handle, CURLOPT_BUFFERSIZE, value)
        case .connectTimeout(let value): code = ccurl_easy_setopt_long(curl, handle, CURLOPT_CONNECTTIMEOUT, value)
        case .tcpKeepAlive: code = ccurl_easy_setopt_long(curl, handle, CURLOPT_TCP_KEEPALIVE, 1)
        case .userAgent(let value): code = ccurl_easy_setopt_string(curl, handle, CURLOPT_USERAGENT, value)
        case .certificateAuthorities(let path): code = ccurl_easy_setopt_string(curl, handle, CURLOPT_CAINFO, path)
        case .maximumFileSize(let value): code = ccurl_easy_setopt_offset(curl, handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(value))
        case .range(let value): code = ccurl_easy_setopt_string(curl, handle, CURLOPT_RANGE, value)
        case .headers(let lines):
            for line in lines { headerList = ccurl_slist_append(curl, headerList, line) }
            code = ccurl_easy_setopt_slist(curl, handle, CURLOPT_HTTPHEADER, headerList)
        case .acceptEncoding:
            // The empty string: every encoding this libcurl was built to decode.
            code = ccurl_easy_setopt_string(curl, handle, CURLOPT_ACCEPT_ENCODING, "")
        case .bearerToken(let token):
            var result = ccurl_easy_setopt_long(curl, handle, CURLOPT_HTTPAUTH, Int(bitPattern: UInt(ccurl_auth_bearer())))
            if result == CURLE_OK { result = ccurl_easy_setopt_string(curl, handle, CURLOPT_XOAUTH2_BEARER, token) }
            code = result
        case .maximumReceiveSpeed(let value):
            code = ccurl_easy_setopt_offset(curl, handle, CURLOPT_MAX_RECV_SPEED_LARGE, curl_off_t(value))
        }
        guard code == CURLE_OK else {
            throw NewsstandError(
                .libcurl, "This libcurl refused \(option.name) (\(String(cString: ccurl_easy_strerror(curl, code)))), so nothing was fetched; install a current libcurl.")
        }
    }

    /// Routes header and body bytes to the delegate.
    func connectCallbacks() throws(NewsstandError) {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        var code = ccurl_easy_setopt_pointer(curl, handle, CURLOPT_ERRORBUFFER, errorBuffer)
        if code == CURLE_OK { code = ccurl_easy_setopt_pointer(curl, handle, CURLOPT_HEADERDATA, userdata) }
        if code == CURLE_OK {
            code = ccurl_easy_setopt_data_callback(curl, handle, CURLOPT_HEADERFUNCTION) { data, size, count, userdata in
                let easy = Unmanaged<CurlEasy>.fromOpaque(userdata!).takeUnretainedValue()
                easy.delegate?.curlDidReceiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            }
        }
        if code == CURLE_OK { code = ccurl_easy_setopt_pointer(curl, handle, CURLOPT_WRITEDATA, userdata) }
        if code == CURLE_OK {
            code = ccurl_easy_setopt_data_callback(curl, handle, CURLOPT_WRITEFUNCTION) { data, size, count, userdata in
                let easy = Unmanaged<CurlEasy>.fromOpaque(userdata!).takeUnretainedValue()
                return easy.delegate?.curlDidReceiveBody(UnsafeRawBufferPointer(start: data, count: size * count)) ?? 0
            }
        }
        guard code == CURLE_OK else {
            throw NewsstandError(.libcurl, "This libcurl refused a callback (\(String(cString: ccurl_easy_strerror(curl, code)))), so nothing was fetched.")
        }
    }

    /// The last response's status, 0 when none arrived.
    var responseCode: Int {
        var code = 0
        ccurl_easy_getinfo_long(curl, handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// Why libcurl stopped a transfer, as an error a person can act on; nil for success.
    func failure(for result: CurlResult, request: TransferRequest) -> NewsstandError? {
        let code = result.code
        guard code != CURLE_OK else { return nil }
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: ccurl_easy_strerror(curl, code))
        let kind: TransferFailure
        switch code {
        case CURLE_OPERATION_TIMEDOUT: kind = .stalled
        case CURLE_UNSUPPORTED_PROTOCOL: kind = .unsupportedProtocol
        case CURLE_TOO_MANY_REDIRECTS: kind = .tooManyRedirects
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE: kind = .insecure
        case CURLE_FILE_COULDNT_READ_FILE: kind = .noSuchFile
        case CURLE_FILESIZE_EXCEEDED: kind = .tooLarge
        case CURLE_PARTIAL_FILE: kind = .cutShort
        case CURLE_COULDNT_RESOLVE_HOST: kind = .hostNotFound
        case CURLE_COULDNT_RESOLVE_PROXY: kind = .proxyNotFound
        case CURLE_COULDNT_CONNECT: kind = .refused
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR: kind = .broken
        default: kind = .other
        }
        return kind.error(detail: detail, request: request)
    }
}

/// One multi handle, freed in `deinit`. Only ``wakeUp()``, which libcurl documents as safe from
/// any thread, is called outside its loop's thread.
final class CurlMulti: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer
    private let curl = CurlLibrary.loaded

    init() {
        pointer = ccurl_multi_init(curl)
        ccurl_multi_setopt_long(curl, pointer, CURLMOPT_MAX_HOST_CONNECTIONS, 0)
    }

    deinit {
        ccurl_multi_cleanup(curl, pointer)
    }

    func add(_ easy: CurlEasy) {
        ccurl_multi_add_handle(curl, pointer, easy.handle)
    }

    func remove(_ easy: CurlEasy) {
        ccurl_multi_remove_handle(curl, pointer, easy.handle)
    }

    /// Moves every transfer along; returns the handles that finished, with how.
    func perform() -> [(handle: UnsafeMutableRawPointer, result: CurlResult)] {
        var running: Int32 = 0
        ccurl_multi_perform(curl, pointer, &running)
        var finished: [(UnsafeMutableRawPointer, CurlResult)] = []
        var remaining: Int32 = 0
        while let message = ccurl_multi_info_read(curl, pointer, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            finished.append((handle, CurlResult(code: ccurl_message_result(message))))
        }
        return finished
    }

    /// Waits for activity on any transfer, at most `milliseconds`, or until ``wakeUp()``.
    func poll(milliseconds: Int32) {
        ccurl_multi_poll(curl, pointer, milliseconds)
    }

    func wakeUp() {
        ccurl_multi_wakeup(curl, pointer)
    }
}
