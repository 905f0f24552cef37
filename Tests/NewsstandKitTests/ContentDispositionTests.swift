import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Server file names as servers write them.
final class ContentDispositionTests: XCTestCase {
    func testEveryEncodingServersUse() {
        let headers: [(header: String, name: String?)] = [
            ("attachment; filename=\"Retro Gamer 251.pdf\"", "Retro Gamer 251.pdf"),
            ("attachment; filename*=UTF-8''Caf%C3%A9%20Monthly.pdf", "Café Monthly.pdf"),
            ("attachment; filename=\"fallback.pdf\"; filename*=UTF-8''pr%C3%A9f%C3%A9r%C3%A9.pdf", "préféré.pdf"),
            ("attachment; filename=\"=?UTF-8?Q?Space_Comics_=C3=A9t=C3=A9.cbz?=\"", "Space Comics été.cbz"),
            ("attachment; filename=\"=?UTF-8?B?w6l0w6kuY2J6?=\"", "été.cbz"),
            ("attachment; filename=\"../../.bashrc\"", ".bashrc"),  // only the last component
            ("attachment; filename=plain.epub", "plain.epub"),
            ("attachment; filename=\"..\"", nil),
            ("inline", nil),
        ]
        for (header, name) in headers {
            XCTAssertEqual(ContentDisposition.fileName(header), name, header)
        }
    }
}
