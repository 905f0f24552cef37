import Foundation
@testable import NewsstandKit
import XCTest

/// The order `auto_download = "latest"` and the storage budget go by: newest release first, the
/// catalog's order between equal dates, undated issues last in the catalog's order.
final class NewestFirstTests: XCTestCase {
    private let directories = Directories(data: "/nonexistent/data", cache: "/nonexistent/cache", state: "/nonexistent/state")

    private func issue(_ id: String, _ day: Double?) -> Issue {
        let entry = CatalogEntry(id: id, title: id, releaseDate: day.map { Date(timeIntervalSince1970: $0 * 86_400) },
                                 downloadURL: URL(string: "http://127.0.0.1/\(id).pdf")!)
        let home = Issue.Home(subscription: "s", library: Library(directories: directories, subscriptionName: "s"), center: NotificationCenter())
        return Issue(entry: entry, home: home, hasFolder: false)
    }

    func testNewestFirstThenCatalogOrderThenUndated() {
        let issues = [issue("u1", nil), issue("old", 1), issue("twinA", 5), issue("new", 9), issue("u2", nil), issue("twinB", 5)]
        XCTAssertEqual(Newsstand.newestFirst(issues).map(\.id), ["new", "twinA", "twinB", "old", "u1", "u2"])
        XCTAssertEqual(Newsstand.newestFirst([]).map(\.id), [])
        // A thousand issues in reverse: the sort is over their dates, each read once.
        let many = (0..<1_000).map { issue("i\($0)", Double(1_000 - $0)) }
        XCTAssertEqual(Newsstand.newestFirst(many.reversed()).map(\.id), many.map(\.id))
    }

    func testTheFirstFewAreThePrefixOfTheWholeOrder() {
        // Dates repeat and some are missing, so ties and undated issues meet the limit.
        let issues = (0..<300).map { (n: Int) -> Issue in
            let day: Double? = n % 7 == 0 ? nil : Double((n * 37) % 50)
            return issue("i\(n)", day)
        }
        let whole = Newsstand.newestFirst(issues).map(\.id)
        for limit in [0, 1, 2, 3, 10, 64, 65, 299, 300, 1_000] {
            XCTAssertEqual(Newsstand.newestFirst(issues, first: limit).map(\.id), Array(whole.prefix(limit)), "first \(limit)")
        }
        let undated = [issue("u1", nil), issue("u2", nil), issue("u3", nil)]
        XCTAssertEqual(Newsstand.newestFirst(undated, first: 2).map(\.id), ["u1", "u2"])
    }
}
