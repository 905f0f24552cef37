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
        Library.journalWillWrite.withLock { $0 = { release.wait() } }
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
