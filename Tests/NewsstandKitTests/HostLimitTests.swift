import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// One host's limit of connections across every subscription, and a host's request for a pause
/// kept by all of them: through a real engine, real libcurl and a loopback server that counts
/// the connections open at once.
final class HostLimitTests: XCTestCase {
    /// Catalogs `/c0.plist` … on `server`, each 24 KB sent at 48 KB/s (half a second), so that
    /// transfers at once overlap and are seen.
    private func serveCatalogs(_ count: Int, on server: TestServer, prefix: String = "c") -> [Subscription] {
        (0..<count).map { number in
            let padding = String(repeating: " ", count: 24_000)
            var body = Fixtures.catalog([Fixtures.entry(id: "\(prefix)\(number)", download: "issues/\(prefix)\(number).pdf")])
            // White space after the property list's end keeps it a valid catalog, only longer.
            body.append(Data(padding.utf8))
            server.serve("/\(prefix)\(number).plist", .init(body: body, contentType: "application/xml", throttle: 48_000))
            return Subscription(name: "\(prefix)\(number)", url: server.url("/\(prefix)\(number).plist"))
        }
    }

    /// `count` of those catalogs on the harness's server and one, `o0`, on another host, which
    /// stops when the test ends.
    private func catalogsOnTwoHosts(_ count: Int, _ harness: StoreHarness) throws -> (other: TestServer, subscriptions: [Subscription]) {
        let other = try TestServer()
        addTeardownBlock { other.stop() }
        return (other, serveCatalogs(count, on: harness.server) + serveCatalogs(1, on: other, prefix: "o"))
    }

    func testSixSubscriptionsOnOneHostNeverHoldMoreThanTwoConnections() throws {
        let harness = try StoreHarness()
        let (other, subscriptions) = try catalogsOnTwoHosts(6, harness)
        let newsstand = harness.makeNewsstand(subscriptions, engine: TransferEngine(threadCount: 2, hostConnections: 2))
        let results = newsstand.refreshAllAndWait()
        for (store, result) in results { XCTAssertNoThrow(try result.get(), store.name) }
        XCTAssertEqual(harness.server.requests.count, 6)
        XCTAssertEqual(harness.server.maximumOpenConnections, 2, "six catalogs, eight refreshes at once, two connections to the host")
        // The other host's catalog did not wait behind the first host's queue: it came in while
        // the first host still had catalogs waiting for a connection.
        let otherArrival = try XCTUnwrap(other.requests.first).receivedAt
        let firstHostArrivals = harness.server.requests.map(\.receivedAt).sorted()
        XCTAssertLessThan(otherArrival, firstHostArrivals[2])
    }

    func testDownloadsFromSeveralSubscriptionsShareTheHostsLimit() throws {
        let harness = try StoreHarness()
        harness.policy.maximumConcurrentDownloads = 6
        var subscriptions: [Subscription] = []
        for name in ["a", "b"] {
            var entries: [[String: Any]] = []
            for number in 0..<3 {
                let data = Fixtures.pdf(size: 200_000, seed: UInt8(number))
                harness.server.serve("/\(name)/\(number).pdf", .init(body: data, etag: "\"\(name)\(number)\"", throttle: 400_000))
                entries.append(Fixtures.entry(id: "n\(number)", download: "\(name)/\(number).pdf", size: data.count))
            }
            harness.server.serve("/\(name).plist", .init(body: Fixtures.catalog(entries), contentType: "application/xml"))
            subscriptions.append(Subscription(name: name, url: harness.server.url("/\(name).plist")))
        }
        let newsstand = harness.makeNewsstand(subscriptions, engine: TransferEngine(threadCount: 2, hostConnections: 3))
        _ = newsstand.refreshAllAndWait()
        let all = newsstand.stores.flatMap(\.issues)
        XCTAssertEqual(all.count, 6)
        all.forEach { newsstand.download($0) }
        for issue in all {
            let finished = harness.waitUntilFinished(issue, timeout: 60)
            XCTAssertTrue(finished.isDownloaded, issue.address)
        }
        XCTAssertEqual(harness.server.maximumActiveTransfers, 3, "six downloads allowed at once, three connections to the host")
        XCTAssertEqual(harness.server.maximumOpenConnections, 3)
    }

    func testARetryAfterPausesEverySubscriptionOnThatHostAndNoOther() throws {
        let harness = try StoreHarness()
        let subscriptions = try catalogsOnTwoHosts(3, harness).subscriptions
        // One connection to the host: the first request's answer is in before the others are sent.
        let newsstand = harness.makeNewsstand(subscriptions, engine: TransferEngine(threadCount: 1, hostConnections: 1))
        harness.server.injectIntoNextRequests(.status(429, retryAfter: 600))
        let results = newsstand.refreshAllAndWait()
        XCTAssertEqual(harness.server.requests.count, 1, "the host asked for ten minutes' peace: nothing more was sent to it")
        var paused = 0
        for (store, result) in results {
            switch (store.name, result) {
            case ("o0", .success): break
            case ("o0", .failure(let error)): XCTFail("another host is not paused: \(error)")
            case (_, .failure(let error)) where error.code == .hostPaused:
                paused += 1
                XCTAssertTrue(error.message.contains("10 min"), error.message)
            case (_, .failure(let error)): XCTAssertEqual(error.code, .httpStatus, "the one that was told: \(error)")
            case (let name, .success): XCTFail("\(name) was fetched during the pause")
            }
        }
        XCTAssertEqual(paused, 2)
    }

    func testAShortPauseIsWaitedOutBeforeTheHostIsAskedAgain() throws {
        let harness = try StoreHarness()
        let subscriptions = serveCatalogs(3, on: harness.server)
        let newsstand = harness.makeNewsstand(subscriptions, engine: TransferEngine(threadCount: 1, hostConnections: 1))
        harness.server.injectIntoNextRequests(.status(503, retryAfter: 1))
        let results = newsstand.refreshAllAndWait()
        XCTAssertEqual(results.filter { (try? $0.result.get()) != nil }.count, 2, "the two not told waited, then were fetched")
        let arrivals = harness.server.requests.map(\.receivedAt).sorted()
        XCTAssertEqual(arrivals.count, 3)
        XCTAssertGreaterThanOrEqual(arrivals[1] - arrivals[0], 950_000_000, "nothing was sent to the host during its second of peace")
    }

    func testTheGateStartsInOrderWithinTheLimitAndRefusesALongPause() {
        var gate = HostGate<String>(limit: 2)
        let second: UInt64 = 1_000_000_000
        XCTAssertEqual(gate.arrive("a", id: 1, host: "h:80", now: 0).start, ["a"])
        XCTAssertEqual(gate.arrive("b", id: 2, host: "h:80", now: 0).start, ["b"])
        XCTAssertEqual(gate.arrive("c", id: 3, host: "h:80", now: 0).start, [])
        XCTAssertEqual(gate.arrive("d", id: 4, host: "h:80", now: 0).start, [])
        XCTAssertEqual(gate.arrive("x", id: 5, host: "other:80", now: 0).start, ["x"], "another host has its own limit")
        XCTAssertEqual(gate.arrive("f", id: 6, host: nil, now: 0).start, ["f"], "a file is never held")
        XCTAssertEqual(gate.cancel(id: 4), "d")
        XCTAssertNil(gate.cancel(id: 4))
        XCTAssertEqual(gate.finish(host: "h:80", pause: nil, now: second).start, ["c"], "first come, first served")
        // A short pause holds what arrives, and wakes it when it ends.
        XCTAssertNil(gate.finish(host: "h:80", pause: 5, now: second).wakeAt, "nothing waits yet")
        let held = gate.arrive("e", id: 7, host: "h:80", now: 2 * second)
        XCTAssertEqual(held.start, [])
        XCTAssertEqual(held.wakeAt, 6 * second)
        XCTAssertEqual(gate.wake(now: 3 * second).start, [])
        XCTAssertEqual(gate.wake(now: 6 * second).start, ["e"])
        // A long one refuses, with what remains of it.
        _ = gate.finish(host: "h:80", pause: 3600, now: 7 * second)
        let refused = gate.arrive("g", id: 8, host: "h:80", now: 8 * second)
        XCTAssertEqual(refused.refuse.map(\.item), ["g"])
        XCTAssertEqual(refused.refuse.first?.remaining ?? 0, 3599, accuracy: 0.001)
        XCTAssertEqual(gate.arrive("h", id: 9, host: "h:80", now: 3608 * second).start, ["h"], "after the pause, the host is asked again")
        // No limit holds nothing back, not even for a pause.
        var open = HostGate<String>(limit: 0)
        _ = open.finish(host: "h:80", pause: 3600, now: 0)
        XCTAssertEqual((0..<5).flatMap { open.arrive("t\($0)", id: $0, host: "h:80", now: second).start }.count, 5)
    }

    func testRefreshesTakeOneCatalogPerHostInTurn() {
        let urls = ["http://a/1", "http://a/2", "http://a/3", "http://b/1", "https://a/4", "http://b/2"].map { URL(string: $0)! }
        XCTAssertEqual(Newsstand.spreadByHost(urls), [0, 3, 4, 1, 5, 2])
    }
}
