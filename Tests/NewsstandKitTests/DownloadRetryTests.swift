import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Failures a download survives and those it does not: cut connections, busy and stalled
/// servers, refusals, and the bound on attempts.
final class DownloadRetryTests: XCTestCase {
    /// The shelf's policy: a server that does not answer is waited for, not retried to death;
    /// the download goes on by itself once a refresh reaches the server again.
    func testADownloadWhoseServerIsAwayWaitsForItAndGoesOnWhenARefreshReachesIt() throws {
        let harness = try StoreHarness()
        harness.policy.waitsForNetwork = true
        harness.policy.maximumAttempts = 1
        let (data, entry) = harness.serveIssue("a", size: 200_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        let port = harness.server.port
        harness.server.stop()

        harness.newsstand.download(issue)
        let waiting = harness.wait(for: issue) { if case .waitingForNetwork = $0 { return true } else { return false } }
        guard case .waitingForNetwork(let error) = waiting else { return XCTFail("state \(waiting)") }
        XCTAssertTrue(error.message.hasPrefix("Cannot connect to 127.0.0.1 port \(port)"), error.message)
        XCTAssertTrue(HostReachability.shared.isUnreachable("127.0.0.1:\(port)"))
        XCTAssertTrue(issue.state.isActive, "one attempt allowed, and still not failed: waiting spends none")

        let back = try TestServer(port: port)
        defer { back.stop() }
        back.serve("/catalog.plist", .init(body: Fixtures.catalog([entry]), contentType: "application/xml", etag: "\"c1\""))
        back.serve("/issues/a.pdf", .init(body: data, etag: "\"v1\""))
        _ = try store.refreshAndWait().get()
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(back.requests(for: "/issues/a.pdf").count, 1)
        XCTAssertFalse(HostReachability.shared.isUnreachable("127.0.0.1:\(port)"))
    }

    /// A command ends: without the shelf's policy, an unreachable server fails the download
    /// after its attempts, as before.
    func testACommandDoesNotWaitForAServerThatIsAway() throws {
        let harness = try StoreHarness()
        harness.policy.maximumAttempts = 2
        let (_, issue, _) = try storeWithIssueA(harness, size: 50_000)
        harness.server.stop()
        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertTrue(failure.message.contains("Gave up after 2 attempts"), failure.message)
    }

    func testACutConnectionIsRetriedAndResumed() throws {
        let harness = try StoreHarness()
        let (store, issue, data) = try storeWithIssueA(harness, size: 1_000_000)
        harness.server.inject(.cutAfter(300_000), into: "/issues/a.pdf")

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        let requests = harness.server.requests(for: "/issues/a.pdf")
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[1].headers["range"], "bytes=300000-")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testBusyServerIsRetriedHonouringRetryAfter() throws {
        let harness = try StoreHarness()
        let (_, issue, _) = try storeWithIssueA(harness, size: 50_000)
        harness.server.inject(.status(503, retryAfter: 1), .status(429), into: "/issues/a.pdf")
        let delays = Locked<[TimeInterval]>([])
        let observer = harness.center.addObserver(forName: Issue.stateDidChangeNotification, object: issue, queue: nil) { _ in
            if case .retrying(_, _, let delay) = issue.state { delays.withLock { $0.append(delay) } }
        }
        defer { harness.center.removeObserver(observer) }

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").count, 3)
        XCTAssertEqual(delays.withLock { $0.first }, 1, "Retry-After honoured")
    }

    func testACancelWhileWaitingToRetryFreesTheLockSoTheIssueCanBeDownloadedAgain() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("a", size: 50_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.server.inject(.status(503, retryAfter: 30), into: "/issues/a.pdf")
        harness.newsstand.download(issue)
        harness.wait(for: issue) { if case .retrying = $0 { return true } else { return false } }
        harness.newsstand.cancelDownload(issue)
        harness.wait(for: issue) { !$0.isActive }
        harness.newsstand.download(issue)
        let final = harness.waitUntilFinished(issue)
        XCTAssertTrue(final.isDownloaded, "the same process may download it again: \(final)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    /// A store whose catalog has a free issue `free` and a paid one, `paid`, both served;
    /// with the free one's bytes.
    private func freeAndPaid(_ harness: StoreHarness, free: String) throws -> (store: Store, data: Data) {
        let (data, entry) = harness.serveIssue(free, size: 50_000)
        var paid = harness.serveIssue("paid", size: 50_000).entry
        paid["Free"] = false
        return (try loadedStore(harness, [entry, paid]), data)
    }

    func testNotFoundAndUnauthorizedAreNotRetried() throws {
        let harness = try StoreHarness()
        let store = try freeAndPaid(harness, free: "gone").store
        harness.server.inject(.status(404), into: "/issues/gone.pdf")
        harness.server.inject(.status(401), into: "/issues/paid.pdf")
        let gone = try XCTUnwrap(store.issue(withID: "gone"))
        let locked = try XCTUnwrap(store.issue(withID: "paid"))

        harness.newsstand.download(gone)
        harness.newsstand.download(locked)
        XCTAssertEqual(harness.waitUntilFinished(gone).failure?.code, .notFound)
        let failure = try XCTUnwrap(harness.waitUntilFinished(locked).failure)
        XCTAssertEqual(failure.code, .unauthorized)
        XCTAssertTrue(failure.message.contains("not free"), failure.message)
        XCTAssertEqual(harness.server.requests(for: "/issues/gone.pdf").count, 1)
        XCTAssertEqual(harness.server.requests(for: "/issues/paid.pdf").count, 1)
    }

    func testTimeoutsAndServerErrorsAreRetriedButForbiddenIsNot() throws {
        let harness = try StoreHarness()
        let (store, data) = try freeAndPaid(harness, free: "a")
        harness.server.inject(.status(408), .status(500), .status(502), into: "/issues/a.pdf")
        harness.server.inject(.status(403), into: "/issues/paid.pdf")
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        let locked = try XCTUnwrap(store.issue(withID: "paid"))

        harness.newsstand.download(issue)
        harness.newsstand.download(locked)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").count, 4, "408, 500 and 502 retried, then the file")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
        let failure = try XCTUnwrap(harness.waitUntilFinished(locked).failure)
        XCTAssertEqual(failure.code, .unauthorized)
        XCTAssertTrue(failure.message.contains("not free"), "a paid issue is locked, not failed: \(failure.message)")
        XCTAssertEqual(harness.server.requests(for: "/issues/paid.pdf").count, 1)
    }

    func testRetriesAreBoundedAndTheLastErrorIsExplained() throws {
        let harness = try StoreHarness()
        harness.policy.maximumAttempts = 3
        let (_, entry) = harness.serveIssue("a", size: 50_000)
        let store = try loadedStore(harness, [entry])
        harness.server.inject(.status(503), .status(503), .status(503), .status(503), into: "/issues/a.pdf")
        let issue = try XCTUnwrap(store.issue(withID: "a"))

        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").count, 3)
        XCTAssertTrue(failure.message.contains("503"), failure.message)
    }

    func testAStalledServerTimesOutAndKeepsThePart() throws {
        let harness = try StoreHarness()
        harness.policy.stallTimeout = 1
        let (store, failure) = try downloadOnceFailing(harness, size: 500_000, .stallAfter(100_000))
        XCTAssertEqual(failure.code, .timedOut)
        XCTAssertTrue(failure.isRetryable)
        XCTAssertEqual(FileOps.regularFileSize(store.library.partPath(for: "a", as: .pdf)), 100_000)
    }
}
