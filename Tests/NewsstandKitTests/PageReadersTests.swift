@testable import NewsstandKit
import Foundation
import XCTest

/// The threads a paginated feed's later pages are read on: in the order handed over, at a lower
/// priority than the thread that asks for the next page, and gone once nothing holds them.
final class PageReadersTests: XCTestCase {
    /// Nice values of this process's threads, by thread ID, from /proc (field 19 of a task's stat).
    private static func niceValues() -> [Int: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var values: [Int: Int] = [:]
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after the command's closing parenthesis start at field 3.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 16, let id = Int(task), let nice = Int(fields[16]) { values[id] = nice }
        }
        return values
    }

    /// The calling thread's ID, as /proc names it.
    private static func threadID() -> Int {
        Int((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last ?? "") ?? -1
    }

    func testReadsRunInOrderAtALowerPriorityAndTheReadersEndWhenLetGo() {
        let own = Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        let expected = min(19, own + Int(PageReaders.niceness))
        let seen = Locked<[(number: Int, nice: Int32, thread: Int)]>([])
        let done = DispatchSemaphore(value: 0)
        // The first read waits for the last: only a second reader, taking the reads after it
        // in order, lets it go on.
        let lastStarted = DispatchSemaphore(value: 0)
        var readers: PageReaders? = PageReaders(count: 2)
        for number in 0..<6 {
            readers?.submit {
                if number == 0 { XCTAssertEqual(lastStarted.wait(timeout: .now() + 10), .success) }
                let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                seen.withLock { $0.append((number, nice, Self.threadID())) }
                // Let go once recorded, so that the first read is recorded last.
                if number == 5 { lastStarted.signal() }
                done.signal()
            }
        }
        for _ in 0..<6 { XCTAssertEqual(done.wait(timeout: .now() + 10), .success) }
        let reads = seen.withLock { $0 }
        XCTAssertEqual(reads.map(\.number), [1, 2, 3, 4, 5, 0], "reads start in the order handed over, two at once")
        XCTAssertEqual(reads.map(\.nice), Array(repeating: Int32(expected), count: 6), "every read runs at nice +\(PageReaders.niceness)")
        XCTAssertEqual(Set(reads.map(\.thread)).count, 2, "as many threads as asked for")
        let threads = Set(reads.map(\.thread))
        XCTAssertTrue(threads.allSatisfy { Self.niceValues()[$0] == expected }, "the readers wait for more")

        readers = nil
        let deadline = Date().addingTimeInterval(10)
        var alive = threads
        while !alive.isEmpty, Date() < deadline {
            alive = threads.intersection(Self.niceValues().keys)
            if !alive.isEmpty { usleep(2_000) }
        }
        XCTAssertEqual(alive, [], "the readers end once nothing holds them")
        XCTAssertEqual(Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)), own, "the test's own thread keeps its priority")
    }
}
