@testable import NewsstandKit
import Foundation
import XCTest

/// What a response's head says before its body: where a redirect points, how long to wait.
final class ResponseHeadTests: XCTestCase {
    func testALocationIsResolvedAsRFC3986SaysWithRawTextEncodedAndNoFragment() {
        let base = URL(string: "http://news.example:8080/opds/feeds/new?page=2#top")!
        let cases: [(String, String)] = [
            ("/catalog.plist", "http://news.example:8080/catalog.plist"),
            ("../catalog.plist", "http://news.example:8080/opds/catalog.plist"),
            ("next?page=3", "http://news.example:8080/opds/feeds/next?page=3"),
            ("//cdn.example/a.pdf", "http://cdn.example/a.pdf"),
            ("https://secure.example/a.pdf#page=2", "https://secure.example/a.pdf"),
            ("/Ausgabe März 2026.pdf", "http://news.example:8080/Ausgabe%20M%C3%A4rz%202026.pdf"),
            ("/already%20encoded.pdf?x=1&y=%C3%A4", "http://news.example:8080/already%20encoded.pdf?x=1&y=%C3%A4"),
        ]
        for (location, expected) in cases {
            XCTAssertEqual(EasyTransfer.resolve(location: location, against: base)?.absoluteString, expected, location)
        }
        XCTAssertNil(EasyTransfer.resolve(location: "/a\r\nSet-Cookie: x", against: base), "a control character is refused")
    }

    func testRetryAfterInSecondsOrAsAnHTTPDate() {
        XCTAssertEqual(ResponseHead.parseRetryAfter("59"), 59)
        XCTAssertEqual(ResponseHead.parseRetryAfter("-3"), 0)
        let later = ResponseHead.parseRetryAfter("Wed, 21 Oct 2099 07:28:00 GMT") ?? 0
        XCTAssertGreaterThan(later, 365 * 24 * 3600)
        XCTAssertEqual(ResponseHead.parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT"), 0, "a date passed: no wait")
        XCTAssertNil(ResponseHead.parseRetryAfter("soon"))
    }
}
