import Foundation
@testable import NewsstandKit
import XCTest

final class BoundedConcurrencyTests: XCTestCase {
    func testNoMoreThanTheWidthRunAtOnceAndFinishedComesAfterTheLast() {
        let running = Locked(0), most = Locked(0), ran = Locked<[Int]>([])
        let finished = expectation(description: "finished")
        BoundedConcurrency.run(40, width: 3, job: { index, done in
            running.withLock { running in
                running += 1
                most.withLock { $0 = max($0, running) }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(index % 4)) {
                ran.withLock { $0.append(index) }
                running.withLock { $0 -= 1 }
                done()
            }
        }, finished: {
            XCTAssertEqual(ran.withLock { $0.count }, 40, "finished after every job")
            finished.fulfill()
        })
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(most.withLock { $0 }, 3)
        XCTAssertEqual(Set(ran.withLock { $0 }), Set(0..<40))
    }

    func testNothingToRunFinishesAtOnce() {
        let finished = Locked(false)
        BoundedConcurrency.run(0, width: 4, job: { _, done in done() }, finished: { finished.withLock { $0 = true } })
        XCTAssertTrue(finished.withLock { $0 })
    }

    func testAJobHeldUntilItsResultIsUsedHoldsItsSlot() {
        // How `withEachCachedStore` reads ahead: a slot frees only when the consumer has used it.
        let started = Locked<[Int]>([])
        let dones = Locked<[Int: @Sendable () -> Void]>([:])
        BoundedConcurrency.run(10, width: 2, job: { index, done in
            started.withLock { $0.append(index) }
            dones.withLock { $0[index] = done }
        })
        XCTAssertEqual(started.withLock { $0 }, [0, 1])
        dones.withLock { $0[0] }?()
        XCTAssertEqual(started.withLock { $0 }, [0, 1, 2])
    }
}
