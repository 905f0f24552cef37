import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Issue downloads over real HTTP through libcurl into real files.
final class DownloadTests: XCTestCase {
    func testDownloadIsVerifiedInstalledAndNotified() throws {
        let harness = try StoreHarness()
        let (store, issue, data) = try storeWithIssueA(harness, size: 2_000_000)
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

    func testALongerBodyThanTheCatalogSaysIsAbortedAndRemoved() throws {
        let (store, failure) = try downloadOnceFailing(try StoreHarness(), size: 100_000, .extraBytes(50_000))
        XCTAssertEqual(failure.code, .tooLarge)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.partPath(for: "a", as: .pdf)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.filePath(for: "a", as: .pdf)))
    }

    func testNoContentLengthStillVerifies() throws {
        let harness = try StoreHarness()
        let (store, issue, data) = try storeWithIssueA(harness, size: 400_000)
        harness.server.inject(.noContentLength, into: "/issues/a.pdf")
        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testDeleteRemovesTheIssueAndItsPart() throws {
        let harness = try StoreHarness()
        let (store, issue, _) = try storeWithIssueA(harness, size: 50_000)
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
}
