import XCTest
@testable import NewsstandKit

/// How work over many items is cut: pieces small enough that a core slowed down (a thread just
/// made, a heap faulted in for the first time) holds the others up by one small piece at most.
final class PiecesTests: XCTestCase {
    func testFewItemsAreOnePiece() {
        XCTAssertEqual(Pieces.count(for: 0), 1)
        XCTAssertEqual(Pieces.count(for: Pieces.threshold - 1), 1)
        XCTAssertEqual(Pieces.map(10) { range, piece in (range, piece) }.map(\.0), [0..<10])
    }

    func testManyItemsAreCutIntoPiecesOfAboutTheGrainEachAtLeastTwoPerCore() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        XCTAssertGreaterThanOrEqual(Pieces.count(for: Pieces.threshold), min(64, cores * 2))
        // A page of 10,000 entries: no piece holds more than about a grain.
        let pieces = Pieces.count(for: 10_000)
        XCTAssertGreaterThanOrEqual(pieces, 10_000 / Pieces.grain)
        XCTAssertLessThanOrEqual((10_000 + pieces - 1) / pieces, Pieces.grain + Pieces.grain / 4)
        // However many items, at most 64 pieces.
        XCTAssertEqual(Pieces.count(for: 10_000_000), 64)
    }

    func testThePiecesCoverEveryItemOnceInOrder() {
        for count in [Pieces.threshold, 2_500, 10_000, 10_007, 100_000] {
            let pieces = Pieces.count(for: count)
            let ranges = (0..<pieces).map { Pieces.range(of: $0, among: count, pieces: pieces) }
            XCTAssertEqual(ranges.first?.lowerBound, 0)
            XCTAssertEqual(ranges.last?.upperBound, count, "\(count) items")
            for (before, after) in zip(ranges, ranges.dropFirst()) {
                XCTAssertEqual(before.upperBound, after.lowerBound, "\(count) items")
            }
        }
    }

    func testMapGivesEachPiecesResultInThePiecesOrder() {
        let count = 10_000
        let sums = Pieces.map(count) { range, _ in range.reduce(0, +) }
        XCTAssertEqual(sums.count, Pieces.count(for: count))
        XCTAssertEqual(sums.reduce(0, +), (0..<count).reduce(0, +))
        let firsts = Pieces.map(count) { range, _ in range.lowerBound }
        XCTAssertEqual(firsts, firsts.sorted())
    }
}
