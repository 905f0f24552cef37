import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Issue downloads over real HTTP through libcurl into real files.
final class DownloadTests: XCTestCase {
    private func loadedStore(_ harness: StoreHarness, _ entries: [[String: Any]]) throws -> Store {
        harness.serveCatalog(entries)
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        return store
    }

    func testDownloadIsVerifiedInstalledAndNotified() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("a", size: 2_000_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        let progress = NotificationCounter(Issue.downloadDidProgressNotification, center: harness.center, object: issue)
        let finished = NotificationCounter(Issue.downloadDidFinishNotification, center: harness.center, object: issue)

        XCTAssertTrue(harness.newsstand.download(issue))
        let state = harness.waitUntilFinished(issue)
        let path = store.library.filePath(for: "a", as: .pdf)
        XCTAssertEqual(state, .downloaded(path: path))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), data)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.partPath(for: "a", as: .pdf)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.partPath(for: "a", as: .pdf) + ".json"))
        XCTAssertGreaterThanOrEqual(progress.value, 1)
        XCTAssertEqual(finished.wait(for: 1), 1)
        XCTAssertFalse(harness.newsstand.download(issue), "an installed issue is not downloaded again")
        // A new store finds it on disk.
        let again = harness.makeStore()
        XCTAssertTrue(again.loadCache())
        XCTAssertEqual(again.issue(withID: "a")?.state, .downloaded(path: path))
    }

    func testResumeSendsRangeAndIfRangeAndAppends() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("a", size: 1_000_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        try plantPart(store, id: "a", bytes: data.prefix(400_000), url: harness.server.url("/issues/a.pdf"), validator: "\"v1\"")

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        let request = try XCTUnwrap(harness.server.requests(for: "/issues/a.pdf").last)
        XCTAssertEqual(request.headers["range"], "bytes=400000-")
        XCTAssertEqual(request.headers["if-range"], "\"v1\"")
        XCTAssertEqual(harness.server.bodyBytesSent(for: "/issues/a.pdf"), 600_000)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testA200AnswerToARangeRequestStartsOverAndNeverAppends() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("a", size: 500_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        try plantPart(store, id: "a", bytes: data.prefix(100_000), url: harness.server.url("/issues/a.pdf"), validator: "\"v1\"")
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
        let (data, entry) = harness.serveIssue("a", size: 300_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
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
        let (data, entry) = harness.serveIssue("a", size: 200_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        try plantPart(store, id: "a", bytes: data, url: harness.server.url("/issues/a.pdf"), validator: "\"v1\"")
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

    func testASHA256MismatchIsRefused() throws {
        let harness = try StoreHarness()
        var (_, entry) = harness.serveIssue("a", size: 100_000)
        entry["SHA256"] = String(repeating: "0", count: 64)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        let failed = NotificationCounter(Issue.downloadDidFailNotification, center: harness.center, object: issue)

        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(failure.code, .verificationFailed)
        XCTAssertTrue(failure.message.contains("SHA-256"))
        XCTAssertEqual(failed.wait(for: 1), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.filePath(for: "a", as: .pdf)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.partPath(for: "a", as: .pdf)))
        XCTAssertNil(issue.installedPath, "a failed download cannot be opened")
    }

    func testAnHTMLPageIsRefused() throws {
        let harness = try StoreHarness()
        let (_, entry) = harness.serveIssue("a", size: 100_000, withDigest: false)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.server.inject(.htmlPage, into: "/issues/a.pdf")

        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(failure.code, .verificationFailed)
        XCTAssertTrue(failure.message.contains("not a PDF"), failure.message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.filePath(for: "a", as: .pdf)))
    }

    func testTheJobLimitIsRespected() throws {
        let harness = try StoreHarness()
        harness.policy.maximumConcurrentDownloads = 2
        let entries = (1...5).map { harness.serveIssue("i\($0)", size: 200_000, seed: UInt8($0), throttle: 1_000_000).entry }
        let store = try loadedStore(harness, entries)
        for issue in store.issues { harness.newsstand.download(issue) }
        XCTAssertEqual(store.issues.filter { $0.state == .queued }.count, 3)
        for issue in store.issues { XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded) }
        XCTAssertEqual(harness.server.maximumActiveTransfers, 2)
    }

    func testACutConnectionIsRetriedAndResumed() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("a", size: 1_000_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
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
        let (_, entry) = harness.serveIssue("a", size: 50_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
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

    func testNotFoundAndUnauthorizedAreNotRetried() throws {
        let harness = try StoreHarness()
        let (_, free) = harness.serveIssue("gone", size: 50_000)
        var paid = harness.serveIssue("paid", size: 50_000).entry
        paid["Free"] = false
        let store = try loadedStore(harness, [free, paid])
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
        let (data, free) = harness.serveIssue("a", size: 50_000)
        var paid = harness.serveIssue("paid", size: 50_000).entry
        paid["Free"] = false
        let store = try loadedStore(harness, [free, paid])
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

    func testServerSuggestedFileNamesAreIgnored() throws {
        let harness = try StoreHarness()
        let data = Fixtures.pdf(size: 80_000, seed: 4)
        harness.server.serve("/issues/a.pdf", .init(body: data, etag: "\"v1\"", extraHeaders: [
            "Content-Disposition: attachment; filename=\"../../../escaped.pdf\"; filename*=UTF-8''..%2F..%2Fescaped2.pdf",
        ]))
        let entry = Fixtures.entry(id: "a", download: "issues/a.pdf", size: data.count, sha256: Fixtures.sha256(data))
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))

        harness.newsstand.download(issue)
        XCTAssertEqual(harness.waitUntilFinished(issue), .downloaded(path: store.library.filePath(for: "a", as: .pdf)))
        XCTAssertTrue(harness.server.requests(for: "/issues/a.pdf").count == 1)
        let names = try FileManager.default.contentsOfDirectory(atPath: store.library.folder(for: "a"))
        XCTAssertEqual(names.filter { !$0.hasSuffix(".lock") }.sorted(), ["a.pdf", "a.server-name"])
        XCTAssertEqual(store.library.serverFileName(for: "a"), "escaped2.pdf", "kept to be shown: its last component only, never a path")
        let everything = FileManager.default.enumerator(atPath: harness.folder.path)?.allObjects as? [String] ?? []
        XCTAssertFalse(everything.contains { $0.contains("escaped") }, "\(everything)")
    }

    func testManyDownloadsAndRefreshesKeepMemoryFlatAndACancelLeavesTheOthersRunning() throws {
        let harness = try StoreHarness()
        // One body served under eight names: 8 × 24 MiB through the client, one copy in the server.
        let data = Fixtures.pdf(size: 24 << 20, seed: 3)
        let digest = Fixtures.sha256(data)
        var entries: [[String: Any]] = []
        for number in 0..<8 {
            harness.server.serve("/issues/m\(number).pdf", .init(body: data, etag: "\"m\"", throttle: number == 7 ? 2_000_000 : 40_000_000))
            entries.append(Fixtures.entry(id: "m\(number)", download: "issues/m\(number).pdf", size: data.count, sha256: digest))
        }
        harness.policy.maximumConcurrentDownloads = 8
        let store = try loadedStore(harness, entries)
        let issues = (0..<8).compactMap { store.issue(withID: "m\($0)") }
        XCTAssertEqual(issues.count, 8)
        let baseline = ResidentMemory.resetPeak()

        issues.forEach { harness.newsstand.download($0) }
        harness.wait(for: issues[7]) { if case .downloading(let progress) = $0 { progress.received > 1 << 20 } else { false } }
        harness.newsstand.cancelDownload(issues[7])
        for _ in 0..<3 {
            XCTAssertNoThrow(try store.refreshAndWait().get())
        }
        for issue in issues.dropLast() {
            XCTAssertTrue(harness.waitUntilFinished(issue, timeout: 60).isDownloaded, "\(issue.id): \(issue.state)")
        }
        guard case .partial = issues[7].state else { return XCTFail("the cancelled one: \(issues[7].state)") }
        let growth = ResidentMemory.peak - baseline
        print("peak resident memory grew by \(growth >> 20) MiB while 7 × 24 MiB were downloaded")
        // AddressSanitizer keeps freed memory in quarantine on purpose: the bound holds for the
        // plain and ThreadSanitizer runs.
        if ProcessInfo.processInfo.environment["ASAN_OPTIONS"] == nil {
            XCTAssertLessThan(growth, 48 << 20, "downloads must stream to disk, not through memory")
        }
    }

    func testAStalledServerTimesOutAndKeepsThePart() throws {
        let harness = try StoreHarness()
        harness.policy.stallTimeout = 1
        harness.policy.maximumAttempts = 1
        let (_, entry) = harness.serveIssue("a", size: 500_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.server.inject(.stallAfter(100_000), into: "/issues/a.pdf")

        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(failure.code, .timedOut)
        XCTAssertTrue(failure.isRetryable)
        XCTAssertEqual(FileOps.regularFileSize(store.library.partPath(for: "a", as: .pdf)), 100_000)
    }

    func testALongerBodyThanTheCatalogSaysIsAbortedAndRemoved() throws {
        let harness = try StoreHarness()
        harness.policy.maximumAttempts = 1
        let (_, entry) = harness.serveIssue("a", size: 100_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.server.inject(.extraBytes(50_000), into: "/issues/a.pdf")

        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(failure.code, .tooLarge)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.partPath(for: "a", as: .pdf)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.filePath(for: "a", as: .pdf)))
    }

    func testNoContentLengthStillVerifies() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("a", size: 400_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.server.inject(.noContentLength, into: "/issues/a.pdf")
        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
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

    func testDeleteRemovesTheIssueAndItsPart() throws {
        let harness = try StoreHarness()
        let (_, entry) = harness.serveIssue("a", size: 50_000)
        let store = try loadedStore(harness, [entry])
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        try harness.newsstand.delete(issue)
        XCTAssertEqual(issue.state, .remote)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.filePath(for: "a", as: .pdf)))
    }

    func testRedirectsToOtherSchemesAreRefused() throws {
        let harness = try StoreHarness()
        harness.policy.maximumAttempts = 1
        let (_, entry) = harness.serveIssue("a", size: 50_000)
        let store = try loadedStore(harness, [entry])
        harness.server.redirect("/issues/a.pdf", to: "file:///etc/passwd")
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.newsstand.download(issue)
        XCTAssertEqual(harness.waitUntilFinished(issue).failure?.code, .unsupportedURL)
    }

    func testARedirectLoopIsBounded() throws {
        let harness = try StoreHarness()
        let (_, entry) = harness.serveIssue("a", size: 50_000)
        let store = try loadedStore(harness, [entry])
        harness.server.redirect("/issues/a.pdf", to: "/issues/a.pdf")
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertTrue(failure.message.contains("redirected more than 5 times"), failure.message)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").count, 6, "the first request and five redirects")
    }

    func testAnEPUBIsCheckedAsAZipAndInstalledUnderItsOwnName() throws {
        let harness = try StoreHarness()
        var epub = Data([0x50, 0x4B, 0x03, 0x04]) + Data("mimetypeapplication/epub+zip".utf8)
        epub.append(Fixtures.pdf(size: 50_000).dropFirst(9))
        harness.server.serve("/issues/book.epub", .init(body: epub, contentType: "application/epub+zip", etag: "\"e\""))
        harness.server.serve("/issues/fake.epub", .init(body: Fixtures.pdf(size: 5_000), contentType: "application/epub+zip"))
        let store = try loadedStore(harness, [
            Fixtures.entry(id: "book", download: "issues/book.epub", size: epub.count),
            Fixtures.entry(id: "fake", download: "issues/fake.epub"),
        ])
        let book = try XCTUnwrap(store.issue(withID: "book"))
        XCTAssertEqual(book.entry.mediaType, .epub)
        harness.newsstand.download(book)
        XCTAssertTrue(harness.waitUntilFinished(book).isDownloaded)
        XCTAssertEqual(book.installedPath, store.library.filePath(for: "book", as: .epub))
        XCTAssertTrue(book.installedPath?.hasSuffix("/book/book.epub") ?? false)
        XCTAssertEqual(book.installedType, .epub)
        XCTAssertEqual(FileManager.default.contents(atPath: try XCTUnwrap(book.installedPath)), epub)

        // A PDF where an EPUB was promised is not an EPUB.
        let fake = try XCTUnwrap(store.issue(withID: "fake"))
        harness.newsstand.download(fake)
        let failure = try XCTUnwrap(harness.waitUntilFinished(fake).failure)
        XCTAssertEqual(failure.code, .verificationFailed)
        XCTAssertTrue(failure.message.contains("not a EPUB") || failure.message.contains("not an EPUB"), failure.message)
    }

    private func plantPart(_ store: Store, id: String, bytes: Data, url: URL, validator: String) throws {
        try store.library.prepareFolder(for: id)
        try bytes.write(to: URL(fileURLWithPath: store.library.partPath(for: id, as: .pdf)))
        store.library.writePartInfo(PartInfo(url: url.absoluteString, validator: validator), key: id, type: .pdf)
        store.issue(withID: id)?.resetStateFromDisk()
    }
}
