@testable import NewsstandKit
import Foundation
import TestSupport
import XCTest

/// Documents in the encodings feeds are written in: the byte order mark, the HTTP charset, the
/// XML declaration; UTF-16 with and without a mark; legacy encodings through iconv; HTML's entities.
final class EncodingTests: XCTestCase {
    private let base = URL(string: "http://example.org/feed")!

    private func channelTitle(_ fixture: String, contentType: String? = "application/rss+xml") throws -> (String?, String?) {
        let page = try CatalogReader().page(Fixtures.feed("encodings/" + fixture), url: base, contentType: contentType)
        return (page.title, page.entries.first?.title)
    }

    func testLegacyEncodingsAreReadThroughIconv() throws {
        let expected = [
            "koi8-r": "Журнал Гавани", "euc-kr": "항구 잡지", "big5": "港口雜誌", "euc-jp": "港の雑誌",
            "shift_jis": "港の雑誌", "gb2312": "港口杂志", "windows-1255": "מגזין הנמל", "tis-620": "นิตยสารท่าเรือ",
        ]
        for (encoding, title) in expected {
            let (channel, item) = try channelTitle("rss-\(encoding).xml")
            XCTAssertEqual(channel, title, encoding)
            XCTAssertEqual(item, title + " 1", encoding)
        }
    }

    func testUTF16WithAndWithoutAByteOrderMark() throws {
        XCTAssertEqual(try channelTitle("rss-utf16-bom.xml").0, "Revista do Porto")
        XCTAssertEqual(try channelTitle("rss-utf16be-nobom.xml").0, "Revista do Porto")
        let catalog = try CatalogReader().catalog(Fixtures.feed("encodings/plist-utf16-bom.plist"), url: base)
        XCTAssertEqual(catalog.title, "Hafenblatt")
        XCTAssertEqual(catalog.entries.first?.title, "Januar – Überfahrt")
    }

    func testTheHTTPCharsetWinsOverTheDeclaration() throws {
        XCTAssertEqual(try channelTitle("rss-declared-latin1-served-cp1252.xml", contentType: "application/rss+xml; charset=windows-1252").0,
                       "Preis 5 € – Hafen")
        XCTAssertNotEqual(try channelTitle("rss-declared-latin1-served-cp1252.xml").0, "Preis 5 € – Hafen",
                          "without the charset the declaration is believed")
    }

    func testAnEncodingIconvDoesNotKnowIsRefusedInASentence() {
        XCTAssertThrowsError(try channelTitle("rss-unknown-encoding.xml")) { error in
            let message = (error as? NewsstandError)?.message ?? ""
            XCTAssertTrue(message.contains("x-klingon-1") && message.contains("cannot read"), message)
        }
        XCTAssertThrowsError(try DocumentEncoding.utf8(Data("<?xml version=\"1.0\" encoding=\"a;rm -rf\"?><x/>".utf8)))
    }

    func testAConvertedDocumentSaysUTF8SoAlreadyConvertedTextIsNotConvertedTwice() throws {
        let once = try DocumentEncoding.utf8(Fixtures.feed("encodings/rss-koi8-r.xml"))
        XCTAssertTrue(String(decoding: once.prefix(60), as: UTF8.self).contains("encoding=\"UTF-8\""))
        XCTAssertEqual(try DocumentEncoding.utf8(once), once)
        let plain = Data("<?xml version=\"1.0\"?><rss/>".utf8)
        XCTAssertEqual(try DocumentEncoding.utf8(plain), plain)
    }

    func testEveryNamedEntityOfHTMLIsOneCharacterAndUnknownOnesStayText() throws {
        let feed = """
            <rss version="2.0"><channel><title>Sm&oslash;rrebr&oslash;d &amp; more &frac12; &hearts; &Ouml;l &aring;r &NotEqualTilde; &CounterClockwiseContourIntegral; &nosuch; &copy</title>
            <item><title>x</title><enclosure url="http://example.org/1.pdf" type="application/pdf"/></item></channel></rss>
            """
        let page = try CatalogReader().page(Data(feed.utf8), url: base, contentType: "application/rss+xml")
        XCTAssertEqual(page.title, "Smørrebrød & more ½ ♥ Öl år \u{2242}\u{338} ∳ &nosuch; &copy")
        XCTAssertGreaterThan(HTMLEntities.value(of: "zwnj")?.unicodeScalars.first?.value ?? 0, 0)
    }
}
