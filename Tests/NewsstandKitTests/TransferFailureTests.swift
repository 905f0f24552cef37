import Foundation
import NewsstandKit
import XCTest

/// Every way libcurl can stop a transfer reads as one cause and one next step, names the server
/// by host and port only, and never carries a secret. The failures the loopback server can cause
/// (refused, stalled, cut short, certificate, redirects) are also met end to end elsewhere; a host
/// that does not resolve cannot be, since tests never leave 127.0.0.1.
final class TransferFailureTests: XCTestCase {
    func testEveryFailureIsOneSentenceWithANextStep() {
        var request = TransferRequest(url: URL(string: "https://news.example:8443/kavita/api/SECRETKEY/catalog?apiKey=SECRETKEY")!, destination: "/tmp/x")
        request.profile = RequestProfile(origin: "https://news.example:8443", credentials: .password(user: "reader", password: "SECRETKEY", pin: nil))
        request.maximumBytes = 1000
        for failure in TransferFailure.allCases where failure != .noSuchFile {
            let message = failure.error(detail: "libcurl said SECRETKEY\u{1b}[31m", request: request).message
            XCTAssertFalse(message.contains("SECRETKEY"), "\(failure): \(message)")
            XCTAssertFalse(message.contains("\u{1b}"), "\(failure): \(message)")
            XCTAssertFalse(message.contains("/kavita/api"), "\(failure): the path stays out: \(message)")
            XCTAssertTrue(message.hasSuffix("."), "\(failure): \(message)")
            XCTAssertFalse(message.contains(".."), "\(failure): \(message)")
            XCTAssertTrue(message.contains(": ") || message.contains("; "), "\(failure): no next step: \(message)")
        }
        XCTAssertEqual(TransferFailure.hostNotFound.error(detail: "Could not resolve host: news.example", request: request).message,
                       "Cannot find the server news.example: check the address, or your connection.")
        XCTAssertEqual(TransferFailure.refused.error(detail: "Failed to connect", request: request).message,
                       "Cannot connect to news.example port 8443: nothing answers there; check the address, or try again later.")
        let refused = TransferFailure.refused.error(detail: "", request: TransferRequest(url: URL(string: "https://news.example/c")!, destination: "/tmp/x"))
        XCTAssertTrue(refused.message.contains("news.example port 443"), refused.message)
        XCTAssertTrue(TransferFailure.refused.error(detail: "", request: request).isRetryable)
        XCTAssertEqual(TransferFailure.noSuchFile.error(detail: "", request: TransferRequest(url: URL(fileURLWithPath: "/srv/catalog.plist"), destination: "/tmp/x")).message,
                       "The file /srv/catalog.plist does not exist: check the path.")
        XCTAssertFalse(TransferFailure.insecure.error(detail: "", request: request).isRetryable, "a bad certificate is not retried")
    }
}
