import Foundation
@testable import NewsstandKit
import XCTest

/// A tree read with its document's bytes held reads every text and attribute as one that asks
/// the document each time.
final class XMLTreeReadingTests: XCTestCase {
    func testAHeldTreeReadsWhatTheTreeReads() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title type="html">A &amp; B <b>bold</b></title>
            <entry><title>  Plain  </title><link rel="alternate" href="/a?x=1&amp;y=2"/><updated>2026-01-02T03:04:05Z</updated></entry>
            <entry><title><![CDATA[<kept>]]></title><link rel='enclosure' href="b.pdf" length="12"/></entry></feed>
            """
        let tree = try XMLTree.parse(Data(xml.utf8))
        func everything(_ tree: XMLTree) -> [String] {
            (0..<tree.elements.count).flatMap { element -> [String] in
                let attributes = ["rel", "href", "length", "type"].map { name in
                    tree.withAttribute(name, of: element) { $0.map { String(decoding: $0, as: UTF8.self) } ?? "-" }
                }
                return [tree.text(of: element), tree.withText(of: element) { String(decoding: $0, as: UTF8.self) }] + attributes
            }
        }
        let expected = everything(tree)
        XCTAssertTrue(expected.contains("/a?x=1&y=2") && expected.contains("<kept>") && expected.contains("Plain"), "\(expected)")
        let held = try tree.reading { held in (everything(held), held == tree) }
        XCTAssertEqual(held.0, expected)
        XCTAssertTrue(held.1, "holding the bytes changes nothing the tree is")
    }
}
