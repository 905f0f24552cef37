import Foundation
@testable import NewsstandKit
import XCTest

/// The guess at a feed's next page from its head, which starts that page's fetch while the page
/// is read: taken only from a `rel="next"` link before the first entry or item.
final class NextPageHintTests: XCTestCase {
    let page = URL(string: "https://example.com/opds/new?page=1")!

    private func hint(_ xml: String, format: any CatalogFormat = AtomFeedFormat()) -> String? {
        format.nextPageHint(Data(xml.utf8), url: page)
    }

    func testAnAtomHeadsNextLinkIsResolvedAgainstThePage() {
        let feed = """
            <?xml version="1.0"?><!-- <link rel="next" href="/in-a-comment"/> -->
            <feed xmlns="http://www.w3.org/2005/Atom"><id>f</id>
            <link rel="self" href="/opds/new?page=1"/><link rel="next" href="new?page=2&amp;sort=date"/>
            <entry><id>1</id></entry></feed>
            """
        XCTAssertEqual(hint(feed), "https://example.com/opds/new?page=2&sort=date")
        // The same feed read in full says the same.
        XCTAssertEqual(try AtomFeedFormat().read(Data(feed.utf8), url: page, limits: CatalogLimits()).next, hint(feed))
    }

    func testAnRSSChannelsAtomLinkIsTaken() {
        let feed = """
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>T</title>
            <atom:link rel="next" href="https://example.com/feed?page=2"/><item><title>1</title></item></channel></rss>
            """
        XCTAssertEqual(hint(feed, format: RSSFeedFormat()), "https://example.com/feed?page=2")
    }

    func testNoGuessFromLinksAfterTheFirstEntryInsideEntriesOrUnderAnXMLBase() {
        // After the first entry: the head is over.
        XCTAssertNil(hint("<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>1</id></entry><link rel=\"next\" href=\"/2\"/></feed>"))
        // An entry's own link is not the feed's.
        XCTAssertNil(hint("<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><link rel=\"next\" href=\"/e\"/></entry></feed>"))
        // A base changes what the address means: no guess rather than a wrong one.
        XCTAssertNil(hint("<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"https://other.example/\"><link rel=\"next\" href=\"2\"/><entry/></feed>"))
        // Not a feed at all, or broken before its head ends.
        XCTAssertNil(hint("{\"links\": [{\"rel\": \"next\", \"href\": \"/2\"}]}"))
        XCTAssertNil(hint("<feed xmlns=\"http://www.w3.org/2005/Atom\"><link rel=\"next\" href=\"/2\"</feed>"))
        // A scheme newsstand does not fetch.
        XCTAssertNil(hint("<feed xmlns=\"http://www.w3.org/2005/Atom\"><link rel=\"next\" href=\"ftp://example.com/2\"/><entry/></feed>"))
        // Formats that cannot tell cheaply do not guess.
        XCTAssertNil(OPDS2Format().nextPageHint(Data("{\"links\": [{\"rel\": \"next\", \"href\": \"/2\"}]}".utf8), url: page))
    }
}
