import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

extension XCTestCase {
    /// A store of the harness whose catalog, served and read, has one issue, `a`, of `size`
    /// bytes; with that issue and its bytes.
    func storeWithIssueA(_ harness: StoreHarness, size: Int) throws -> (store: Store, issue: Issue, data: Data) {
        let (data, entry) = harness.serveIssue("a", size: size)
        let store = try loadedStore(harness, [entry])
        return (store, try XCTUnwrap(store.issue(withID: "a")), data)
    }

    /// Downloads issue `a` of `size` bytes (``storeWithIssueA(_:size:)``) in one attempt, with
    /// `fault` in its transfer; the store, and the failure the download ended with.
    func downloadOnceFailing(_ harness: StoreHarness, size: Int, _ fault: TestServer.Fault) throws -> (store: Store, failure: NewsstandError) {
        harness.policy.maximumAttempts = 1
        let (store, issue, _) = try storeWithIssueA(harness, size: size)
        harness.server.inject(fault, into: "/issues/a.pdf")
        harness.newsstand.download(issue)
        return (store, try XCTUnwrap(harness.waitUntilFinished(issue).failure))
    }

    /// A store of the harness whose catalog of `entries` is served and read.
    func loadedStore(_ harness: StoreHarness, _ entries: [[String: Any]]) throws -> Store {
        harness.serveCatalog(entries)
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        return store
    }

    /// Leaves a partial download of `id` as an earlier run would have: its bytes and its record.
    func plantPart(_ store: Store, id: String, bytes: Data, url: URL, validator: String) throws {
        try store.library.prepareFolder(for: id)
        try bytes.write(to: URL(fileURLWithPath: store.library.partPath(for: id, as: .pdf)))
        store.library.writePartInfo(PartInfo(url: url.absoluteString, validator: validator), key: id, type: .pdf)
        store.issue(withID: id)?.resetStateFromDisk()
    }

    /// Issue "a" of `size` bytes served (etag "v1") and its first `kept` bytes left on disk as a
    /// partial download from that server.
    func partlyDownloaded(_ harness: StoreHarness, size: Int, kept: Int) throws -> (Store, Issue, Data) {
        let (data, entry) = harness.serveIssue("a", size: size)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        try plantPart(store, id: "a", bytes: data.prefix(kept), url: harness.server.url("/issues/a.pdf"), validator: "\"v1\"")
        return (store, issue, data)
    }
}
