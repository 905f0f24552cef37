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
}
