import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// A store that makes an issue's object only when it is first asked for (the commands' stores):
/// the same issues, counts and changes as a store that makes them all with the catalog, and the
/// same object every time an issue is asked for.
final class IssuesWhenAskedTests: XCTestCase {
    private func day(_ number: Double) -> Date { Date(timeIntervalSince1970: 1_767_225_600 + number * 86_400) }

    private func made(_ store: Store) -> [String] { store.contents.withLock { $0.issues.madeIssues.map(\.id) } }

    private func serve(_ harness: StoreHarness, _ issues: [(id: String, day: Double, title: String?)], etag: String) {
        harness.serveCatalog(issues.map { Fixtures.entry(id: $0.id, title: $0.title, download: "issues/\($0.id).pdf", date: day($0.day)) }, etag: etag)
    }

    func testAnIssueIsMadeWhenFirstAskedForAndIsTheSameObjectAfter() throws {
        let harness = try StoreHarness()
        serve(harness, [("a", 1, nil), ("b", 2, nil), ("c", 3, nil), ("d", 4, nil)], etag: "\"1\"")
        let newsstand = harness.makeNewsstand([Subscription(name: "test", url: harness.server.url("/catalog.plist"))], makesIssuesWhenAsked: true)
        let store = newsstand.stores[0]
        let summary = try store.refreshAndWait().get()
        XCTAssertEqual([summary.totalIssues, summary.newIssues], [4, 4])
        XCTAssertTrue(summary.changed)
        XCTAssertEqual(store.numberOfIssues, 4)
        XCTAssertEqual(made(store), [], "counted without making one")

        let c = try XCTUnwrap(store.issue(withID: "c"))
        XCTAssertEqual(made(store), ["c"])
        XCTAssertNotNil(c.reading, "given the record the reading state had for it")
        XCTAssertTrue(store.issue(at: 2) === c)
        XCTAssertEqual(c.state, .remote)

        // The newest, for `auto_download = "latest"`, without making the others.
        XCTAssertEqual(store.newestIssues(2).map(\.id), ["d", "c"])
        XCTAssertEqual(made(store), ["c", "d"])

        // Every issue: the rest made now, those made before kept.
        let all = store.issues
        XCTAssertEqual(all.map(\.id), ["a", "b", "c", "d"])
        XCTAssertTrue(all[2] === c)
        XCTAssertEqual(made(store), ["a", "b", "c", "d"])
        XCTAssertTrue(all.allSatisfy { $0.reading != nil })
    }

    func testALaterCatalogKeepsTheIssuesMadeAndTellsWhatChangedAsTheEagerStoreDoes() throws {
        for whenAsked in [true, false] {
            let harness = try StoreHarness()
            serve(harness, [("a", 1, nil), ("b", 2, nil), ("c", 3, nil)], etag: "\"1\"")
            let newsstand = harness.makeNewsstand([Subscription(name: "test", url: harness.server.url("/catalog.plist"))], makesIssuesWhenAsked: whenAsked)
            let store = newsstand.stores[0]
            _ = try store.refreshAndWait().get()
            let b = try XCTUnwrap(store.issue(withID: "b"))

            // The same catalog: nothing changed.
            serve(harness, [("a", 1, nil), ("b", 2, nil), ("c", 3, nil)], etag: "\"2\"")
            var summary = try store.refreshAndWait().get()
            XCTAssertFalse(summary.changed, "when asked: \(whenAsked)")
            XCTAssertEqual(summary.newIssues, 0)

            // A title changed on an issue never made: a change all the same.
            serve(harness, [("a", 1, "A renamed"), ("b", 2, nil), ("c", 3, nil)], etag: "\"3\"")
            summary = try store.refreshAndWait().get()
            XCTAssertTrue(summary.changed, "when asked: \(whenAsked)")
            XCTAssertEqual(store.issue(withID: "a")?.title, "A renamed")

            // The made issue's own entry changed, one issue added, the order changed.
            serve(harness, [("b", 2, "B renamed"), ("a", 1, "A renamed"), ("c", 3, nil), ("e", 5, nil)], etag: "\"4\"")
            summary = try store.refreshAndWait().get()
            XCTAssertTrue(summary.changed)
            XCTAssertEqual([summary.newIssues, summary.totalIssues], [1, 4], "when asked: \(whenAsked)")
            XCTAssertTrue(store.issue(withID: "b") === b, "the issue made is kept, with its download")
            XCTAssertEqual(b.title, "B renamed")
            XCTAssertEqual(store.issues.map(\.id), ["b", "a", "c", "e"])

            // Only the order changed.
            serve(harness, [("a", 1, "A renamed"), ("b", 2, "B renamed"), ("c", 3, nil), ("e", 5, nil)], etag: "\"5\"")
            XCTAssertTrue(try store.refreshAndWait().get().changed, "when asked: \(whenAsked)")
        }
    }

    func testASyncOfStoresThatMakeIssuesWhenAskedDownloadsTheNewestAndMakesNoOther() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("new", size: 50_000)
        var entries = (0..<50).map { Fixtures.entry(id: "old\($0)", download: "issues/old\($0).pdf", date: day(Double($0 - 100))) }
        entries.append(entry)
        harness.serveCatalog(entries)
        var subscription = Subscription(name: "test", url: harness.server.url("/catalog.plist"))
        subscription.autoDownload = .latest(1)
        let newsstand = harness.makeNewsstand([subscription], makesIssuesWhenAsked: true)
        let report = try newsstand.sync()
        XCTAssertTrue(report.succeeded)
        XCTAssertEqual(report.outcomes.first?.downloaded, ["new"])
        let store = newsstand.stores[0]
        XCTAssertEqual(made(store), ["new"], "the other 50 were never made")
        let new = try XCTUnwrap(store.issue(withID: "new"))
        XCTAssertTrue(new.state.isDownloaded)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(new.installedPath))), data)
    }
}
