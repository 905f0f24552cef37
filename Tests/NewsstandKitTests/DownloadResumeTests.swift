import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Resuming a download: Range and If-Range, a server that ignores or mangles them, a cancel.
final class DownloadResumeTests: XCTestCase {
    func testResumeSendsRangeAndIfRangeAndAppends() throws {
        let harness = try StoreHarness()
        let (store, issue, data) = try partlyDownloaded(harness, size: 1_000_000, kept: 400_000)

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        let request = try XCTUnwrap(harness.server.requests(for: "/issues/a.pdf").last)
        XCTAssertEqual(request.headers["range"], "bytes=400000-")
        XCTAssertEqual(request.headers["if-range"], "\"v1\"")
        XCTAssertEqual(harness.server.bodyBytesSent(for: "/issues/a.pdf"), 600_000)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testKeptBytesThatWereChangedAreCaughtByTheDigestAndTheIssueIsFetchedWholeOnce() throws {
        let harness = try StoreHarness()
        let (store, issue, data) = try storeWithIssueA(harness, size: 10_000_000)
        var kept = data.prefix(6_000_000)
        kept[3_000_000] ^= 0x01
        try plantPart(store, id: "a", bytes: kept, url: harness.server.url("/issues/a.pdf"), validator: "\"v1\"")

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        let requests = harness.server.requests(for: "/issues/a.pdf")
        XCTAssertEqual(requests.map { $0.headers["range"] }, ["bytes=6000000-", nil], "the resume was refused, then the whole file fetched")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testA200AnswerToARangeRequestStartsOverAndNeverAppends() throws {
        let harness = try StoreHarness()
        let (store, issue, data) = try partlyDownloaded(harness, size: 500_000, kept: 100_000)
        harness.server.inject(.ignoreRange, into: "/issues/a.pdf")

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").first?.headers["range"], "bytes=100000-")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testChangedFileBetweenAttemptsStartsOverThroughIfRange() throws {
        let harness = try StoreHarness()
        let old = Fixtures.pdf(size: 300_000, seed: 9)
        let (data, entry) = harness.serveIssue("a", size: 300_000, seed: 2, etag: "\"v2\"")
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        try plantPart(store, id: "a", bytes: old.prefix(100_000), url: harness.server.url("/issues/a.pdf"), validator: "\"v1\"")

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").count, 1, "no restart loop")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testAMismatchedContentRangeIsRejectedAndNothingIsAppended() throws {
        let harness = try StoreHarness()
        harness.policy.maximumAttempts = 1
        let (store, issue, data) = try storeWithIssueA(harness, size: 300_000)
        try plantPart(store, id: "a", bytes: data.prefix(100_000), url: harness.server.url("/issues/a.pdf"), validator: "\"v1\"")
        harness.server.inject(.wrongRange(start: 50_000), into: "/issues/a.pdf")

        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(failure.code, .rangeMismatch)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.filePath(for: "a", as: .pdf)))
        let part = FileManager.default.contents(atPath: store.library.partPath(for: "a", as: .pdf))
        XCTAssertTrue(part == nil || part == data.prefix(100_000), "the wrong bytes were never written")
    }

    func testA416OnACompletePartInstallsIt() throws {
        let harness = try StoreHarness()
        let (store, issue, data) = try partlyDownloaded(harness, size: 200_000, kept: 200_000)
        XCTAssertEqual(issue.state, .partial(received: 200_000, total: 200_000))

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").count, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testA416OnAPartLongerThanTheFileStartsOverInsteadOfInstallingIt() throws {
        let harness = try StoreHarness()
        // No size or digest in the catalog: only the server's Content-Range tells the truth.
        let (data, entry) = harness.serveIssue("a", size: 200_000, withDigest: false)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        var stale = Fixtures.pdf(size: 250_000, seed: 7)
        stale.replaceSubrange(0..<9, with: Data("%PDF-1.4\n".utf8))
        try plantPart(store, id: "a", bytes: stale, url: harness.server.url("/issues/a.pdf"), validator: "\"v1\"")

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        let requests = harness.server.requests(for: "/issues/a.pdf")
        XCTAssertEqual(requests.count, 2, "a 416, then the whole file")
        XCTAssertNil(requests[1].headers["range"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testCancelKeepsThePartForALaterResume() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("a", size: 2_000_000, throttle: 500_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))

        harness.newsstand.download(issue)
        harness.wait(for: issue) { state in
            if case .downloading(let progress) = state { return progress.received > 100_000 }
            return false
        }
        XCTAssertFalse(harness.newsstand.download(issue), "one writer per file")
        harness.newsstand.cancelDownload(issue)
        let stopped = harness.wait(for: issue) { if case .partial = $0 { return true } else { return false } }
        guard case .partial(let received, let total) = stopped else { return XCTFail("state \(stopped)") }
        XCTAssertGreaterThan(received, 0)
        XCTAssertEqual(total, 2_000_000)

        harness.server.serve("/issues/a.pdf", .init(body: data, etag: "\"v1\""))
        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").last?.headers["range"], "bytes=\(received)-")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }
}
