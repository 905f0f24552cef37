import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Each of these failed before its fix.
final class MendTests: XCTestCase {
    // The cancel that arrived after the job was recorded and before its transfer's ID was known
    // is now a sequence of transitions: DownloadQueueStateMachineTests.

    /// libcurl's answers to its options used to be ignored: a refused option silently dropped a rule.
    func testAnOptionLibcurlRefusesFailsTheTransferWithAClearError() throws {
        let harness = try StoreHarness()
        harness.server.serve("/x", .init(body: Data("x".utf8)))
        let folder = TemporaryDirectory()
        var request = TransferRequest(url: harness.server.url("/x"), destination: folder.path + "/x")
        request.maximumBytesPerSecond = -1  // libcurl answers CURLE_BAD_FUNCTION_ARGUMENT
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<TransferResult?>(nil)
        TransferEngine(threadCount: 1).start(request, handlers: TransferHandlers { result in
            outcome.withLock { $0 = result }
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        let failure = try XCTUnwrap(outcome.withLock { $0 }?.failure)
        XCTAssertEqual(failure.code, .libcurl)
        XCTAssertTrue(failure.message.contains("CURLOPT_MAX_RECV_SPEED_LARGE"), failure.message)
        XCTAssertTrue(harness.server.requests.isEmpty, "nothing was asked for")
    }

    /// `.part.json` used to be written and synced on the transfer's thread, stalling every
    /// transfer there. With its writer blocked, a download must still reach its end.
    func testPartInfoIsWrittenOffTheTransferThread() throws {
        let harness = try StoreHarness()
        let (data, entry) = harness.serveIssue("a", size: 500_000)
        harness.serveCatalog([entry])
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        let release = DispatchSemaphore(value: 0)
        Library.journalWillWrite.withLock { $0 = { _ in release.wait() } }
        defer { Library.journalWillWrite.withLock { $0 = nil } }
        harness.newsstand.download(issue)
        // The body arrives in full while the journal is still held.
        XCTAssertTrue(harness.server.wait { $0.bodyBytesSent(for: "/issues/a.pdf") == data.count })
        harness.wait(for: issue) { $0 == .verifying || $0.isDownloaded }
        XCTAssertFalse(issue.state.isDownloaded, "installing waits for the journal")
        release.signal()
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.partPath(for: "a", as: .pdf) + ".json"),
                       "no stale part info is written after the install")
    }

    /// Installing waited for every part's pending write, so each install of a sync queued behind
    /// the other downloads' writes. It waits for its own part's only.
    func testAnInstallWaitsOnlyForItsOwnPartsWrite() throws {
        let harness = try StoreHarness()
        // `a` takes about a second, `b` a moment: b's write is held while a is still downloading.
        let (dataA, entryA) = harness.serveIssue("a", size: 600_000, seed: 1, throttle: 600_000)
        let (_, entryB) = harness.serveIssue("b", size: 50_000, seed: 2)
        harness.serveCatalog([entryA, entryB])
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        let (a, b) = (try XCTUnwrap(store.issue(withID: "a")), try XCTUnwrap(store.issue(withID: "b")))
        let infoB = store.library.partInfoPath(for: "b", as: .pdf)
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Library.journalWillWrite.withLock { $0 = { path in if path == infoB { held.signal(); release.wait() } } }
        defer { Library.journalWillWrite.withLock { $0 = nil } }

        harness.newsstand.download(a)
        harness.wait(for: a) { if case .downloading(let progress) = $0 { return progress.received > 0 } else { return false } }
        // a's response came before its first byte: its write is queued; done before b's is held.
        Library.waitForPartInfo(at: store.library.partInfoPath(for: "a", as: .pdf))
        harness.newsstand.download(b)
        XCTAssertEqual(held.wait(timeout: .now() + 20), .success, "b's part info was never written")
        guard case .downloading = a.state else { return XCTFail("a ended (\(a.state)) before b's write was held: nothing was shown") }

        XCTAssertTrue(harness.waitUntilFinished(a).isDownloaded, "a's install waited for b's write")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), dataA)
        XCTAssertFalse(b.state.isDownloaded, "b's install waits for b's own write")
        release.signal()
        XCTAssertTrue(harness.waitUntilFinished(b).isDownloaded)
        XCTAssertFalse(FileManager.default.fileExists(atPath: infoB), "no stale part info is left after b's install")
    }

    /// Equality said it compared codes, but compared messages too.
    func testErrorsAreEqualWhenTheirCodesAre() {
        XCTAssertEqual(NewsstandError(.network, "connection refused"), NewsstandError(.network, "timed out after 20 s"))
        XCTAssertNotEqual(NewsstandError(.network, "same"), NewsstandError(.timedOut, "same"))
    }

    /// A header value with a line break is refused, not dropped: a subscription cannot even hold
    /// one (the config file and `--header` make headers through the same type).
    func testAHeaderWithALineBreakIsRefusedBeforeAnythingIsSent() throws {
        XCTAssertThrowsError(try HeaderField(line: "X-Key: a\r\nX-Evil: 1")) { error in
            XCTAssertTrue((error as? SettingError)?.expected.contains("line break") ?? false, "\(error)")
        }
        XCTAssertThrowsError(try HeaderField(name: "X Key", value: "a"))
        XCTAssertThrowsError(try HeaderField(line: "no colon"))
        let text = "[subscriptions.a]\nurl = \"http://a.example/c\"\nheaders = { \"X-Key\" = \"a\\r\\nX-Evil: 1\" }\n"
        XCTAssertThrowsError(try NewsstandConfig.parse(text, path: "config.toml")) { error in
            XCTAssertEqual((error as? NewsstandError)?.code, .configuration)
        }
        let harness = try StoreHarness()
        harness.serveCatalog([])
        let store = harness.makeStore { $0.headers = [try! HeaderField(line: "X-Key: a")] }
        _ = try store.refreshAndWait().get()
        XCTAssertEqual(harness.server.requests.first?.headers["x-key"], "a", "a good header is sent")
    }
}
