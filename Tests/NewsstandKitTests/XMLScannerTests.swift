import Foundation
@testable import NewsstandKit
import XCTest

/// A start tag's attributes are read with the tag in one pass when it is well formed; anything
/// else is read again the careful way, which words the failure as it always has.
final class XMLScannerTests: XCTestCase {
    private func parse(_ text: String) throws(XMLTree.Failure) -> XMLTree {
        try XMLTree.parse(Data(text.utf8))
    }

    private func failure(_ text: String) -> XMLTree.Failure? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    func testWellFormedTagsGiveTheirAttributesValuesAndEnds() throws {
        let tree = try parse("""
            <root><a b="1" c = '2>3' d="x&amp;y" e=""/><f   ><g h="it's"/></f><i
             j="k"
            /></root>
            """)
        let a = try XCTUnwrap(tree.child(of: tree.root, "a", in: nil))
        XCTAssertEqual(tree.attribute("b", of: a), "1")
        XCTAssertEqual(tree.attribute("c", of: a), "2>3", "a `>` inside quotes does not end the tag")
        XCTAssertEqual(tree.attribute("d", of: a), "x&y")
        XCTAssertEqual(tree.attribute("e", of: a), "")
        XCTAssertEqual(tree.childCount(of: a), 0, "self-closing")
        let f = try XCTUnwrap(tree.child(of: tree.root, "f", in: nil))
        let g = try XCTUnwrap(tree.child(of: f, "g", in: nil))
        XCTAssertEqual(tree.attribute("h", of: g), "it's")
        let i = try XCTUnwrap(tree.child(of: tree.root, "i", in: nil))
        XCTAssertEqual(tree.attribute("j", of: i), "k")
        XCTAssertEqual(tree.childCount(of: tree.root), 3)
    }

    func testMalformedTagsFailWithTheWordsAndLinesOfTheCarefulReading() {
        let cases: [(String, String, Int)] = [
            ("<root>\n<a b=c></a></root>", "an attribute value without quotes", 2),
            ("<root>\n<a b></a></root>", "a malformed attribute", 2),
            ("<root>\n<a / ></a></root>", "a malformed attribute", 2),
            ("<root>\n<a b=\"c\" <d></root>", "a start tag is not closed", 2),
            ("<root>\n<a b=\"c></root>", "the document ends inside a tag", 2),
            ("<root><a\nb=\"c\"\nd></a></root>", "a malformed attribute", 3),
        ]
        for (text, reason, line) in cases {
            let failure = self.failure(text)
            XCTAssertEqual(failure?.kind, .malformed(reason), text)
            XCTAssertEqual(failure?.line, line, text)
        }
    }

    /// Every byte is a name's or not as the rule says, and a name ends at the first that is not.
    func testNameBytesAreLettersDigitsFourMarksAndNonASCII() throws {
        let marks = Set(":_-.".utf8)
        for byte in UInt8.min...UInt8.max {
            let scalar = Unicode.Scalar(byte)
            let expected = byte >= 0x80 || marks.contains(byte) || ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            XCTAssertEqual(XMLText.isNameByte(byte), expected, "byte \(byte)")
        }
        let tree = try parse("<a:b-c.d_e9 xmlns:a=\"urn:a\" x.y-z_1=\"v\"/>")
        XCTAssertEqual(tree.name(of: 0), "b-c.d_e9")
        XCTAssertEqual(tree.attribute("x.y-z_1", of: 0), "v")
    }
}
