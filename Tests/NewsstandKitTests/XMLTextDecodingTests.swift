@testable import NewsstandKit
import XCTest

/// `XMLText.decode` copies the text between references and tags a run at a time: each case puts
/// a reference, a tag or a lone `&` at the start, in the middle or at the end of a run.
final class XMLTextDecodingTests: XCTestCase {
    private func decoded(_ text: String, attribute: Bool = false) -> String {
        XMLText.decode(ArraySlice(text.utf8), attribute: attribute)
    }

    func testReferencesAnywhereInTheTextAreDecoded() {
        XCTAssertEqual(decoded("Issue number 0 &amp; more"), "Issue number 0 & more")
        XCTAssertEqual(decoded("&lt;start"), "<start")
        XCTAssertEqual(decoded("end&gt;"), "end>")
        XCTAssertEqual(decoded("&quot;&apos;&amp;"), "\"'&")
        XCTAssertEqual(decoded("a&#38;b&#x26;c&#X26;d"), "a&b&c&d")
        XCTAssertEqual(decoded("Sm&oslash;rrebr&oslash;d"), "Smørrebrød")
        XCTAssertEqual(decoded(""), "")
        XCTAssertEqual(decoded("plain text, nothing to decode"), "plain text, nothing to decode")
    }

    func testNamesThatAreAlmostXMLsOwnAreLeftOrReadAsHTMLs() {
        // Two letters ending in t that are neither lt nor gt, and the names' other cases.
        XCTAssertEqual(decoded("&xt; &LT; &Amp; &quo; &apost;"), "&xt; < &Amp; &quo; &apost;")
        XCTAssertEqual(decoded("&GT;&QUOT;&AMP;"), ">\"&")
    }

    func testAnAmpersandThatStartsNoReferenceStaysAsItIs() {
        XCTAssertEqual(decoded("Fish & chips"), "Fish & chips")
        XCTAssertEqual(decoded("trailing &"), "trailing &")
        XCTAssertEqual(decoded("&"), "&")
        XCTAssertEqual(decoded("&nosuch; and &#0; and &#xZZ;"), "&nosuch; and &#0; and &#xZZ;")
        XCTAssertEqual(decoded("&& &amp;&"), "&& &&")
        // A `;` after a space or another `&` ends no reference begun before them.
        XCTAssertEqual(decoded("Fish & chips &amp; more"), "Fish & chips & more")
        XCTAssertEqual(decoded("R&D;&amp;"), "R&D;&")
        XCTAssertEqual(decoded("&;"), "&;")
    }

    func testTagsCommentsAndCDATABetweenRuns() {
        // A tag that ends a word leaves a space, which the callers trim.
        XCTAssertEqual(decoded("<p>One</p><p>Two</p>"), "One Two ")
        XCTAssertEqual(decoded("<b>Mars</b>. Next"), "Mars. Next")
        XCTAssertEqual(decoded("a<!-- gone -->b<?pi x?>c"), "abc")
        XCTAssertEqual(decoded("x<![CDATA[<kept> &amp;]]>y"), "x<kept> &amp;y")
        XCTAssertEqual(decoded("<a href=\"x>y\">link</a> &amp; text"), "link & text")
        XCTAssertEqual(decoded("unclosed <tag"), "unclosed ")
    }

    func testAnAttributeKeepsItsAngleBracketsAsText() {
        XCTAssertEqual(decoded("a<b&amp;c>d", attribute: true), "a<b&c>d")
        XCTAssertEqual(decoded("<p>x</p>", attribute: true), "<p>x</p>")
    }
}
