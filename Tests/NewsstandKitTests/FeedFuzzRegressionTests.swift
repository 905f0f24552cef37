import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Inputs `make fuzz` found, kept so that they stay fixed.
final class FeedFuzzRegressionTests: XCTestCase {
    func testARootNameEndingInAColonIsSniffedWithoutACrash() throws {
        // `<feed…:` with no local name after the colon: the sniffer indexed past the split.
        let data = Fixtures.feed("fuzz-crash-sniff-colon.xml")
        XCTAssertThrowsError(try CatalogReader().page(data, url: URL(string: "http://127.0.0.1/f")!, contentType: nil))
        XCTAssertEqual(DocumentSniff(Data("<x: a='1'/>".utf8)).shape, .xml(root: "", namespace: nil))
    }
}

extension FeedFuzzRegressionTests {
    func testAQuotedFileNameEndingInABackslashIsReadWithoutACrash() {
        // Found by `make fuzz`: the index stepped past the end after a final backslash.
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"abc\\"), "abc")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"a\\\"b.pdf\""), "a\"b.pdf")
    }
}
