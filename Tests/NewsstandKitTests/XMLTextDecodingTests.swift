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

    /// Through the readers: HTML text is decoded twice (the XML, then the HTML in it), and a lone
    /// `&` after the first is where a later reference was left undecoded.
    func testAFeedsHTMLKeepsItsReferencesAfterALoneAmpersand() throws {
        let base = URL(string: "http://example.org/feed")!
        let rss = """
            <rss version="2.0"><channel><title>t</title><item><title>x</title>
            <description>&lt;p&gt;Fish &amp; chips &amp;amp; more&lt;/p&gt;</description>
            <enclosure url="http://example.org/1.pdf" type="application/pdf"/></item></channel></rss>
            """
        let rssPage = try CatalogReader().page(Data(rss.utf8), url: base, contentType: "application/rss+xml")
        XCTAssertEqual(rssPage.entries.first?.summary, "Fish & chips & more")
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><id>1</id>
            <title type="html">Fish &amp; chips &amp;amp; more</title>
            <link rel="enclosure" type="application/pdf" href="http://example.org/1.pdf"/></entry></feed>
            """
        let atomPage = try CatalogReader().page(Data(atom.utf8), url: base, contentType: "application/atom+xml")
        XCTAssertEqual(atomPage.entries.first?.title, "Fish & chips & more")
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
