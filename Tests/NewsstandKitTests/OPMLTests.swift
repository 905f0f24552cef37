import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// OPML read from the files other readers write, and written for them.
final class OPMLTests: XCTestCase {
    func testFeedsAtAnyDepthWithTheirFoldersAndTitles() throws {
        let outlines = try OPML.read(Data(Fixtures.opml("antennapod.opml").utf8))
        XCTAssertEqual(outlines.map(\.address), ["https://ocean.example/opds/root.xml", "https://planet.example/feed.xml", "https://byte.example/feed.json"])
        XCTAssertEqual(outlines.map(\.title), ["Ocean Quarterly & Friends", "Red Planet", "Byte Review"], "title, else text")
        XCTAssertEqual(outlines.map(\.folders), [["Magazines"], ["Magazines", "Comics"], []])
        let newsboat = try OPML.read(Data(Fixtures.opml("newsboat.opml").utf8))
        XCTAssertEqual(newsboat.count, 4)
        XCTAssertNil(newsboat[1].title, "an empty title is none")
    }

    func testWhatIsNotOPMLOrIsHostileIsRefusedInWords() {
        func refusal(_ text: String) -> String {
            do {
                _ = try OPML.read(Data(text.utf8))
                return "read"
            } catch {
                return error.message
            }
        }
        XCTAssertEqual(refusal("<rss/>"), "It is XML with a <rss> root, not OPML.")
        XCTAssertEqual(refusal("<opml version=\"2.0\"><head/></opml>"), "It is OPML without a <body>.")
        XCTAssertTrue(refusal("<!DOCTYPE opml [<!ENTITY x \"y\">]><opml><body/></opml>").hasPrefix("It is not well-formed XML"), "entities are never expanded")
        XCTAssertTrue(refusal("<opml><body><outline").hasPrefix("It is not well-formed XML"))
    }

    func testWrittenOPMLReadsBackWithoutCredentialsAndWithItsMarkupEscaped() throws {
        let text = OPML.write([
            (name: "club", title: "Club \"News\" & <Views>", address: URL(string: "https://ann:secret@club.example/feed.xml?page=1&x=2")!),
            (name: "weekly", title: "Weekly", address: URL(string: "http://127.0.0.1:8080/catalog.plist")!),
        ], created: Date(timeIntervalSince1970: 1_767_225_600))
        XCTAssertFalse(text.contains("secret") || text.contains("ann@"), text)
        XCTAssertTrue(text.contains("<dateCreated>Thu, 01 Jan 2026 00:00:00 GMT</dateCreated>"), text)
        let outlines = try OPML.read(Data(text.utf8))
        XCTAssertEqual(outlines.map(\.address), ["https://club.example/feed.xml?page=1&x=2", "http://127.0.0.1:8080/catalog.plist"])
        XCTAssertEqual(outlines.map(\.title), ["Club \"News\" & <Views>", "Weekly"])
        XCTAssertEqual(outlines.map(\.name), ["club", "weekly"])
    }
}
