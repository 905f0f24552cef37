import Foundation
@testable import NewsstandKit
import XCTest

/// Large values freed on another core, and entries moved rather than copied out of the pieces
/// a feed was read in.
final class ReleaseElsewhereTests: XCTestCase {
    private final class Tracked: @unchecked Sendable {
        let freed: DispatchSemaphore
        init(_ freed: DispatchSemaphore) { self.freed = freed }
        deinit {
            Tracked.freedOn.withLock { $0 = pthread_self() }
            freed.signal()
        }
        static let freedOn = Locked<pthread_t?>(nil)
    }

    func testTheLastReferenceGoesWithTheBlockOnAnotherThread() {
        let freed = DispatchSemaphore(value: 0)
        // Moved in, as the callers do: a copy kept here would race the block for the last
        // reference, and lose when the block runs first (it did, under ThreadSanitizer).
        let value = [Tracked(freed)]
        ReleaseElsewhere.release(consume value)
        XCTAssertEqual(freed.wait(timeout: .now() + 10), .success)
        XCTAssertNotEqual(Tracked.freedOn.withLock { $0 }, pthread_self())
    }

    func testEntriesMovedOutOfPiecesKeepTheirOrderAndFields() {
        let pieces: [[FeedEntry]] = [0..<3, 3..<3, 3..<7, 7..<8].map { range in
            range.map { index in
                var entry = FeedEntry(index: index)
                entry.id = "id-\(index)-" + String(repeating: "x", count: 40)
                entry.acquisitions = [FeedAcquisition(address: "https://example.com/\(index).pdf", mediaType: "application/pdf")]
                return entry
            }
        }
        let joined = FeedEntry.moved(from: pieces)
        XCTAssertEqual(joined.map(\.index), Array(0..<8))
        XCTAssertEqual(joined.map(\.id), (0..<8).map { "id-\($0)-" + String(repeating: "x", count: 40) })
        XCTAssertEqual(joined.map { $0.acquisitions.first?.address }, (0..<8).map { "https://example.com/\($0).pdf" })
        // The pieces given are the caller's still: moving takes only what was handed over.
        XCTAssertEqual(pieces.flatMap { $0 }.map(\.index), Array(0..<8))
        XCTAssertEqual(FeedEntry.moved(from: [pieces[0]]).map(\.index), [0, 1, 2])
        XCTAssertEqual(FeedEntry.moved(from: []).count, 0)
    }
}
