@testable import NewsstandKit
import XCTest

/// `XMLText.decode` copies the text between references and tags a run at a time: each case puts
/// a reference, a tag or a lone `&` at the start, in the middle or at the end of a run.
final class XMLTextDecodingTests: XCTestCase {
    /// Each text decoded, against what it should read.
    private func assertDecoded(_ cases: KeyValuePairs<String, String>, attribute: Bool = false, line: UInt = #line) {
        for (text, expected) in cases {
            XCTAssertEqual(XMLText.decode(ArraySlice(text.utf8), attribute: attribute), expected, "decoding \(text)", line: line)
        }
    }

    func testReferencesAnywhereInTheTextAreDecoded() {
        assertDecoded([
            "Issue number 0 &amp; more": "Issue number 0 & more",
            "&lt;start": "<start",
            "end&gt;": "end>",
            "&quot;&apos;&amp;": "\"'&",
            "a&#38;b&#x26;c&#X26;d": "a&b&c&d",
            "Sm&oslash;rrebr&oslash;d": "Smørrebrød",
            "": "",
            "plain text, nothing to decode": "plain text, nothing to decode",
        ])
    }

    func testNamesThatAreAlmostXMLsOwnAreLeftOrReadAsHTMLs() {
        // Two letters ending in t that are neither lt nor gt, other cases of the five names
        // (HTML has some), and names one letter short or long.
        assertDecoded([
            "&xt; &LT; &Amp; &quo; &apost;": "&xt; < &Amp; &quo; &apost;",
            "&GT;&QUOT;&AMP;": ">\"&",
        ])
    }

    func testAnAmpersandThatStartsNoReferenceStaysAsItIs() {
        assertDecoded([
            "Fish & chips": "Fish & chips",
            "trailing &": "trailing &",
            "&": "&",
            "&nosuch; and &#0; and &#xZZ;": "&nosuch; and &#0; and &#xZZ;",
            "&& &amp;&": "&& &&",
            // A `;` after a space or another `&` ends no reference begun before them.
            "Fish & chips &amp; more": "Fish & chips & more",
            "R&D;&amp;": "R&D;&",
            "&;": "&;",
        ])
    }

    func testTagsCommentsAndCDATABetweenRuns() {
        assertDecoded([
            // A tag that ends a word leaves a space, which the callers trim.
            "<p>One</p><p>Two</p>": "One Two ",
            "<b>Mars</b>. Next": "Mars. Next",
            "a<!-- gone -->b<?pi x?>c": "abc",
            "x<![CDATA[<kept> &amp;]]>y": "x<kept> &amp;y",
            "<a href=\"x>y\">link</a> &amp; text": "link & text",
            "unclosed <tag": "unclosed ",
        ])
    }

    func testAnAttributeKeepsItsAngleBracketsAsText() {
        assertDecoded(["a<b&amp;c>d": "a<b&c>d", "<p>x</p>": "<p>x</p>"], attribute: true)
    }
}
