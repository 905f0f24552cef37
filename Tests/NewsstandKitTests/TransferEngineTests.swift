import Foundation
import NewsstandKit
import TestSupport
import XCTest

final class TransferEngineTests: XCTestCase {
    func testTransfersAreSpreadOverTheThreadsAndACancelReachesTheThreadRunningIt() throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = TemporaryDirectory()
        let bodies = (0..<4).map { number in Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* (number + 3)) }) }
        for (number, body) in bodies.enumerated() {
            // Slow enough that all four are running at once.
            server.serve("/f\(number)", .init(body: body, throttle: 400_000))
        }

        // Four transfers to one host at once: no host limit here (HostLimitTests has it).
        let engine = TransferEngine(threadCount: 2, hostConnections: 0)
        let threads = Locked<[Int: UInt]>([:])
        let results = Locked<[Int: TransferResult]>([:])
        let done = DispatchGroup()
        var ids: [TransferID] = []
        for number in 0..<4 {
            done.enter()
            let request = TransferRequest(url: server.url("/f\(number)"), destination: folder.path + "/f\(number)")
            ids.append(engine.start(request, handlers: TransferHandlers(
                response: { _ in threads.withLock { $0[number] = UInt(bitPattern: Int(bitPattern: pthread_self())) } },
                completion: { result in
                    XCTAssertEqual(threads.withLock { $0[number] }, UInt(bitPattern: Int(bitPattern: pthread_self())),
                                   "a transfer's callbacks all run on one thread")
                    results.withLock { $0[number] = result }
                    done.leave()
                })))
        }
        XCTAssertTrue(server.wait { _ in threads.withLock { $0.count } == 4 }, "all four started")
        let byThread = Dictionary(grouping: threads.withLock { $0 }.keys.sorted()) { threads.withLock { $0 }[$0]! }
        XCTAssertEqual(byThread.count, 2, "two threads share the work")
        XCTAssertEqual(byThread.values.map(\.count).sorted(), [2, 2], "each thread takes two")

        // Cancel one transfer of each thread: the others finish.
        let cancelled = byThread.values.map { $0[0] }
        for number in cancelled { engine.cancel(ids[number]) }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        for number in 0..<4 {
            let result = try XCTUnwrap(results.withLock { $0[number] })
            if cancelled.contains(number) {
                XCTAssertEqual(result.failure?.code, .cancelled, "f\(number)")
            } else {
                XCTAssertNil(result.failure, "f\(number)")
                XCTAssertEqual(FileManager.default.contents(atPath: folder.path + "/f\(number)"), bodies[number])
            }
        }
    }

    /// A transfer that a handler starts as its own transfer ends (a feed's next page) runs on
    /// the same thread, which is then idle, not handed to the other one: every page of a feed of
    /// 100 waited for the other thread to wake.
    func testATransferStartedAsTheOneBeforeEndsStaysOnItsThread() throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = TemporaryDirectory()
        for number in 0..<5 { server.serve("/p\(number)", .init(body: Data("page \(number)".utf8))) }
        let engine = TransferEngine(threadCount: 2, hostConnections: 0)
        let threads = Locked<[UInt]>([])
        let done = DispatchSemaphore(value: 0)
        @Sendable func fetch(_ number: Int) {
            let request = TransferRequest(url: server.url("/p\(number)"), destination: folder.path + "/p\(number)")
            engine.start(request, handlers: TransferHandlers { result in
                XCTAssertNil(result.failure, "p\(number)")
                threads.withLock { $0.append(UInt(bitPattern: Int(bitPattern: pthread_self()))) }
                if number < 4 { fetch(number + 1) } else { done.signal() }
            })
        }
        fetch(0)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let seen = threads.withLock { $0 }
        XCTAssertEqual(seen.count, 5)
        XCTAssertEqual(Set(seen).count, 1, "every page on the thread of the one before")
        XCTAssertEqual(FileManager.default.contents(atPath: folder.path + "/p4"), Data("page 4".utf8))
    }

    /// What a caller records of a response (a part's validator) is recorded on a destination that
    /// exists and holds only this answer's bytes; an answer the transfer refuses is never reported.
    func testAResponseIsReportedOnceItsDestinationIsOpenAndNeverWhenTheAnswerIsRefused() throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = TemporaryDirectory()
        let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        server.serve("/f", .init(body: body))
        let engine = TransferEngine(threadCount: 1, hostConnections: 0)

        func run(_ request: TransferRequest) -> (destinationSize: Int64??, result: TransferResult?) {
            let seen = Locked<Int64??>(nil)
            let finished = Locked<TransferResult?>(nil)
            let done = DispatchSemaphore(value: 0)
            _ = engine.start(request, handlers: TransferHandlers(
                response: { _ in seen.withLock { $0 = .some(Self.size(of: request.destination)) } },
                completion: { result in
                    finished.withLock { $0 = result }
                    done.signal()
                }))
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
            return (seen.withLock { $0 }, finished.withLock { $0 })
        }

        // A part of an earlier answer, longer than where this one is asked to start.
        let destination = folder.path + "/f.part"
        try Data(repeating: 7, count: 30_000).write(to: URL(fileURLWithPath: destination))
        var refused = TransferRequest(url: server.url("/f"), destination: destination)
        refused.maximumBytes = 10_000
        let (refusedSeen, refusedResult) = run(refused)
        XCTAssertEqual(refusedResult?.failure?.code, .tooLarge)
        XCTAssertTrue(refusedSeen == nil, "a refused answer is not reported")
        XCTAssertEqual(Self.size(of: destination), 30_000, "and it touched nothing")

        let (seen, result) = run(TransferRequest(url: server.url("/f"), destination: destination))
        XCTAssertNil(result?.failure)
        XCTAssertEqual(seen, .some(.some(0)), "reported with the destination open and cut to where the body starts")
        XCTAssertEqual(FileManager.default.contents(atPath: destination), body)
    }

    private static func size(of path: String) -> Int64? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value
    }
}
