import Foundation
@testable import NewsstandKit
import XCTest

/// The queue's transitions as values: every race the queue once lost is a sequence of calls here.
final class DownloadQueueStateMachineTests: XCTestCase {
    private let directories = Directories(data: "/nonexistent/data", cache: "/nonexistent/cache", state: "/nonexistent/state")

    private func requests(_ name: String, jobs: Int? = nil) -> CatalogFetcher {
        var subscription = Subscription(name: name, url: URL(string: "http://127.0.0.1/\(name).plist")!)
        subscription.jobs = jobs
        return CatalogFetcher(subscription: subscription, directories: directories)
    }

    private func issue(_ id: String, of name: String) -> Issue {
        let entry = CatalogEntry(id: id, title: id, downloadURL: URL(string: "http://127.0.0.1/\(id).pdf")!)
        let home = Issue.Home(subscription: name, library: Library(directories: directories, subscriptionName: name), center: NotificationCenter())
        return Issue(entry: entry, home: home, hasFolder: false)
    }

    func testSlotsAreGivenInOrderWithinEachSubscriptionsOwnLimit() {
        var machine = DownloadQueueStateMachine(maximumConcurrent: 2)
        let slow = requests("slow", jobs: 1), other = requests("other")
        let (a, b, c) = (issue("a", of: "slow"), issue("b", of: "slow"), issue("c", of: "other"))
        XCTAssertEqual(machine.enqueue(a, requests: slow)?.map(\.id), ["a"])
        XCTAssertEqual(machine.enqueue(b, requests: slow)?.map(\.id), [], "slow is at its own limit of 1")
        XCTAssertEqual(machine.enqueue(c, requests: other)?.map(\.id), ["c"], "c passes b, which keeps its place")
        XCTAssertNil(machine.enqueue(a, requests: slow), "one writer per file: never queued twice")
        XCTAssertEqual(machine.end(a).start.map(\.id), ["b"])
        XCTAssertEqual(Set(machine.activeIssues.map(\.id)), ["b", "c"])
    }

    func testACancelBeforeTheTransferIsRecordedStillStopsIt() {
        var machine = DownloadQueueStateMachine(maximumConcurrent: 1)
        let a = issue("a", of: "m")
        _ = machine.enqueue(a, requests: requests("m"))
        guard case .start(_, let attempt) = machine.startAttempt(a) else { return XCTFail("not started") }
        XCTAssertEqual(attempt, 1)
        // The cancel lands while the request is being made: nothing to cancel yet, so a flag.
        guard case .nothing = machine.cancel(a) else { return XCTFail("nothing to cancel yet") }
        XCTAssertTrue(machine.transferStarted(a, TransferID(rawValue: 7)), "the transfer is cancelled as soon as it has an ID")
    }

    func testACancelWhileTransferringCancelsThatTransfer() {
        var machine = DownloadQueueStateMachine(maximumConcurrent: 1)
        let a = issue("a", of: "m")
        _ = machine.enqueue(a, requests: requests("m"))
        _ = machine.startAttempt(a)
        let id = TransferID(rawValue: 7)
        XCTAssertFalse(machine.transferStarted(a, id))
        guard case .cancelTransfer(let cancelled) = machine.cancel(a) else { return XCTFail("the transfer is to be cancelled") }
        XCTAssertEqual(cancelled, id)
        XCTAssertFalse(machine.waitToRetry(a), "a cancelled job does not wait to retry")
    }

    func testACancelWhileWaitingToRetryEndsTheJobAndFreesTheSlot() {
        var machine = DownloadQueueStateMachine(maximumConcurrent: 1)
        let (a, b) = (issue("a", of: "m"), issue("b", of: "m"))
        _ = machine.enqueue(a, requests: requests("m"))
        _ = machine.enqueue(b, requests: requests("m"))
        _ = machine.startAttempt(a)
        XCTAssertTrue(machine.waitToRetry(a))
        guard case .ended(_, let start) = machine.cancel(a) else { return XCTFail("the job ends at once") }
        XCTAssertEqual(start.map(\.id), ["b"])
        guard case .nothing = machine.startAttempt(a) else { return XCTFail("the retry timer finds no job") }
    }

    func testWaitingForTheNetworkSpendsNoAttempt() {
        var machine = DownloadQueueStateMachine(maximumConcurrent: 1)
        let a = issue("a", of: "m")
        _ = machine.enqueue(a, requests: requests("m"))
        _ = machine.startAttempt(a)
        XCTAssertTrue(machine.waitToRetry(a, spendsAttempt: false))
        guard case .start(_, let again) = machine.startAttempt(a) else { return XCTFail("started again") }
        XCTAssertEqual(again, 1, "the wait gave its attempt back")
        XCTAssertTrue(machine.waitToRetry(a))
        guard case .start(_, let next) = machine.startAttempt(a) else { return XCTFail("started again") }
        XCTAssertEqual(next, 2, "an ordinary retry counts")
    }

    func testABadResumeIsFetchedWholeOnceAndAttemptsAreCounted() {
        var machine = DownloadQueueStateMachine(maximumConcurrent: 1)
        let a = issue("a", of: "m")
        _ = machine.enqueue(a, requests: requests("m"))
        _ = machine.startAttempt(a)
        machine.verifying(a)
        XCTAssertTrue(machine.restartAfterBadResume(a))
        guard case .start(_, let attempt) = machine.startAttempt(a) else { return XCTFail("restarted") }
        XCTAssertEqual(attempt, 1, "the restart does not count as another attempt")
        XCTAssertFalse(machine.restartAfterBadResume(a), "only once")
    }
}
