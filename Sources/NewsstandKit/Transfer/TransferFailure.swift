import Foundation

/// Why a transfer stopped below HTTP, and what the user reads about it: the one place libcurl's
/// results become errors (``HTTPFailure`` does the same for statuses). Each message names one
/// cause and one next step.
public enum TransferFailure: Sendable, CaseIterable {
    /// No data for longer than the stall timeout.
    case stalled
    /// A URL or redirect with a scheme other than http or https, or https to http.
    case unsupportedProtocol
    case tooManyRedirects
    /// The certificate could not be verified, or the TLS handshake failed.
    case insecure
    /// A `file:` URL that names nothing.
    case noSuchFile
    /// More bytes than declared or allowed.
    case tooLarge
    /// The connection closed before the declared length arrived.
    case cutShort
    /// The host name does not resolve.
    case hostNotFound
    case proxyNotFound
    /// Nothing listens at the address.
    case refused
    /// The connection broke or closed without an answer.
    case broken
    case other

    /// The error for this failure of `request`; `detail` is libcurl's own words, kept short and
    /// inert, with the request's secrets removed.
    public func error(detail: String, request: TransferRequest) -> NewsstandError {
        let detail = Redaction.redact(TextSanitizer.inert(detail), secrets: request.profile?.secrets ?? [])
        let server = Self.server(of: request.url)
        switch self {
        case .stalled:
            return NewsstandError(.timedOut, "The server at \(server) stopped sending data (\(detail)); try again later.", retryable: true)
        case .unsupportedProtocol:
            return NewsstandError(.unsupportedURL, "Refused a URL or redirect that is not http or https (https may not be redirected to http): ask the publisher for an https address.")
        case .tooManyRedirects:
            return NewsstandError(.network, "The server at \(server) redirected too many times: check the address.")
        case .insecure:
            return NewsstandError(.insecure, "The secure connection to \(server) failed: the certificate could not be verified (\(detail)), so nothing was fetched; if the publisher uses a private authority, give it with --ca-file.")
        case .noSuchFile:
            return NewsstandError(.notFound, "The file \(TextSanitizer.inert(request.url.path)) does not exist: check the path.")
        case .tooLarge:
            return NewsstandError(.tooLarge, "The server sent more than the \(request.maximumBytes ?? 0) bytes expected, so the download was stopped: tell the publisher.")
        case .cutShort:
            return NewsstandError(.network, "The connection closed before the whole file arrived; it will resume from where it stopped.", retryable: true)
        case .hostNotFound:
            var error = NewsstandError(.network, "Cannot find the server \(Self.host(of: request.url)): check the address, or your connection.", retryable: true)
            error.unreachableHost = HostReachability.key(of: request.url)
            return error
        case .proxyNotFound:
            return NewsstandError(.network, "Cannot find the proxy (\(detail)): check http_proxy and https_proxy.", retryable: true)
        case .refused:
            var error = NewsstandError(.network, "Cannot connect to \(server): nothing answers there; check the address, or try again later.", retryable: true)
            error.unreachableHost = HostReachability.key(of: request.url)
            return error
        case .broken:
            return NewsstandError(.network, "The connection to \(server) broke (\(detail)); try again later.", retryable: true)
        case .other:
            return NewsstandError(.network, "The transfer from \(server) failed (\(detail)); try again later.", retryable: true)
        }
    }

    /// "host port N": never the path or query, where a secret may be.
    private static func server(of url: URL) -> String {
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host(of: url)) port \(port)"
    }

    private static func host(of url: URL) -> String {
        TextSanitizer.inert(url.host ?? "the server")
    }
}
