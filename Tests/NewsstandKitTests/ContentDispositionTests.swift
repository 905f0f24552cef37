import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Server file names as servers write them.
final class ContentDispositionTests: XCTestCase {
    func testEveryEncodingServersUse() {
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"Retro Gamer 251.pdf\""), "Retro Gamer 251.pdf")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename*=UTF-8''Caf%C3%A9%20Monthly.pdf"), "Café Monthly.pdf")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"fallback.pdf\"; filename*=UTF-8''pr%C3%A9f%C3%A9r%C3%A9.pdf"), "préféré.pdf")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"=?UTF-8?Q?Space_Comics_=C3=A9t=C3=A9.cbz?=\""), "Space Comics été.cbz")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"=?UTF-8?B?w6l0w6kuY2J6?=\""), "été.cbz")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=\"../../.bashrc\""), ".bashrc", "only the last component")
        XCTAssertEqual(ContentDisposition.fileName("attachment; filename=plain.epub"), "plain.epub")
        XCTAssertNil(ContentDisposition.fileName("attachment; filename=\"..\""))
        XCTAssertNil(ContentDisposition.fileName("inline"))
    }
}
