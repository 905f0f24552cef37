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

    /// Names are where the document keeps them: an element's and an attribute's local name is
    /// compared by its bytes, its prefix left out, a name that only begins the same is not it.
    func testNamesAreReadFromTheDocumentWithoutTheirPrefix() throws {
        let xml = """
            <a:feed xmlns:a="urn:a" xmlns:x="urn:x"><a:entry x:id="prefixed" id="plain"/><entryx id="long"/><é lang="fr"/></a:feed>
            """
        let tree = try XMLTree.parse(Data(xml.utf8))
        XCTAssertEqual((0..<tree.elements.count).map(tree.name(of:)), ["feed", "entry", "entryx", "é"])
        XCTAssertTrue(tree.isElement(0, "feed", in: "urn:a"))
        XCTAssertFalse(tree.isElement(0, "feed", in: "urn:x"))
        XCTAssertTrue(tree.isElement(1, "entry", in: nil))
        XCTAssertFalse(tree.isElement(2, "entry", in: nil), "entryx is not entry")
        XCTAssertFalse(tree.isElement(1, "entryx", in: nil), "entry is not entryx")
        XCTAssertTrue(tree.isElement(3, "é", in: nil))
        XCTAssertEqual(tree.attribute("id", of: 1), "plain", "an unprefixed attribute")
        XCTAssertEqual(tree.attribute("id", of: 1, in: "urn:x"), "prefixed")
        XCTAssertEqual(tree.withAttribute("id", of: 2) { $0.map { String(decoding: $0, as: UTF8.self) } }, "long")
        XCTAssertNil(tree.attribute("i", of: 2))
        XCTAssertEqual(try tree.reading { held in (0..<held.elements.count).map(held.name(of:)) }, ["feed", "entry", "entryx", "é"])
    }

    /// Names of up to eight bytes are told by the element's copy of their first bytes; longer
    /// ones by the document. Either way a name that shares a beginning is not the same name.
    func testNamesAreToldByTheirFirstBytesAndLongerOnesByAllOfThem() throws {
        let names = ["a", "ab", "entry", "entrz", "abcdefgh", "abcdefgi", "abcdefghi", "abcdefghj", "p:abcdefgh", "ééééé", "link", "links"]
        let xml = "<root xmlns:p=\"urn:p\">" + names.map { "<\($0)/>" }.joined() + "</root>"
        let tree = try XMLTree.parse(Data(xml.utf8))
        let locals = names.map { $0.hasPrefix("p:") ? String($0.dropFirst(2)) : $0 }
        for (offset, element) in tree.children(of: tree.root).enumerated() {
            let bytes = Array(locals[offset].utf8)
            var head: UInt64 = 0
            for (position, byte) in bytes.prefix(8).enumerated() { head |= UInt64(byte) << (8 * UInt64(position)) }
            XCTAssertEqual(tree.elements[element].nameHead, head, locals[offset])
            for candidate in Set(locals) {
                XCTAssertEqual(tree.isElement(element, candidate, in: nil), candidate == locals[offset], "\(locals[offset]) against \(candidate)")
            }
        }
        let prefixed = try XCTUnwrap(tree.children(of: tree.root).first { tree.namespace(of: $0) == "urn:p" })
        XCTAssertTrue(tree.isElement(prefixed, "abcdefgh", in: "urn:p"))
        XCTAssertFalse(tree.isElement(prefixed, "abcdefgh", in: "urn:q"))
    }
}
