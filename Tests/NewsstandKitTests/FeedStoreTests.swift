import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// A feed through the store: fetched, cached, and read back from the cache offline.
final class FeedStoreTests: XCTestCase {
    func testANavigationFeedsSectionsAndSearchComeBackFromTheCache() throws {
        let harness = try StoreHarness()
        harness.server.serve("/opds", .init(body: Fixtures.feed("calibre-root.xml"), contentType: "application/atom+xml", etag: "\"root\""))
        let store = harness.makeStore(url: harness.server.url("/opds"))
        guard case .success(let summary) = store.refreshAndWait() else { return XCTFail("\(store.status)") }
        XCTAssertEqual(summary.totalIssues, 0)
        XCTAssertEqual(store.format, .opds1)
        XCTAssertEqual(store.navigation.count, 3)

        harness.server.stop()
        let offline = harness.makeStore(url: store.subscription.url)
        XCTAssertTrue(offline.loadCache())
        XCTAssertEqual(offline.format, .opds1)
        XCTAssertEqual(offline.navigation.map(\.title), ["By Newest", "By Title", "By Author"])
        XCTAssertEqual(offline.search, .template(harness.server.url("/opds").absoluteString + "/search/{searchTerms}"))
    }
}
