import Foundation
@testable import NewsstandKit
import XCTest

/// The validator over many pages at once: pieces cut across pages, and each page's entries
/// numbered on from the last entry of the page before.
final class ValidatorPagesTests: XCTestCase {
    private func page(_ count: Int, from first: Int, skippingIndexes skipped: Int = 0, broken: Set<Int> = []) -> FeedPage {
        var page = FeedPage(format: .atom, url: URL(string: "http://127.0.0.1/feed?page=\(first)")!)
        for position in 0..<count {
            // Items without a download before these entries took the first indexes of the document.
            var entry = FeedEntry(index: position + skipped)
            entry.id = broken.contains(first + position) ? "" : "issue-\(first + position)"
            entry.acquisitions = [FeedAcquisition(address: "/\(first + position).pdf", mediaType: "application/pdf")]
            page.entries.append(entry)
        }
        return page
    }

    func testEntriesOfManyPagesKeepTheirOrderAndWarningsTheirPlaceInTheWholeFeed() {
        // 1,500 + 0 + 2,500 entries: more than one piece, with a piece boundary inside a page and
        // an empty page between two.
        let pages = [page(1_500, from: 0, skippingIndexes: 3, broken: [7]), page(0, from: 1_500), page(2_500, from: 1_500, broken: [3_999])]
        let catalog = CatalogValidator().catalog(from: pages)
        XCTAssertEqual(catalog.entries.map(\.id), (0..<4_000).filter { $0 != 7 && $0 != 3_999 }.map { "issue-\($0)" })
        XCTAssertEqual(catalog.entries.last?.downloadAddress, "http://127.0.0.1/3998.pdf")
        // Page one's last index is 1,502 (three skipped): page three counts on from 1,503.
        XCTAssertEqual(catalog.warnings.map(\.index), [10, 1_503 + 2_499])
    }
}
