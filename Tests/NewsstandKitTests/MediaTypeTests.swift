import Foundation
import NewsstandKit
import XCTest

final class MediaTypeTests: XCTestCase {
    func testMediaTypesAreReadWithTheirParametersCaseAndSpacesIgnored() {
        XCTAssertEqual(MediaType(mimeType: "application/pdf"), .pdf)
        XCTAssertEqual(MediaType(mimeType: " Application/PDF ; name=x.pdf"), .pdf)
        XCTAssertEqual(MediaType(mimeType: "\tapplication/epub+zip;charset=utf-8"), .epub)
        XCTAssertEqual(MediaType(mimeType: "APPLICATION/VND.COMICBOOK+ZIP"), .cbz)
        XCTAssertEqual(MediaType(mimeType: "application/x-cbz"), .cbz)
        XCTAssertEqual(MediaType(mimeType: "application/hpub+zip"), .hpub)
        XCTAssertEqual(MediaType(mimeType: "application/zip"), .hpub)
        for other in ["", ";", "text/html", "application/pdfx", "application/pd", "application/epub+zi", "ápplication/pdf"] {
            XCTAssertNil(MediaType(mimeType: other), other)
        }
    }
}
