import Foundation
@testable import NewsstandKit
import XCTest

/// A body kept in memory, as a transfer's destination: what a transfer wrote reads back whole,
/// a second answer replaces the first, and nothing is made on disk.
final class MemoryBodyTests: XCTestCase {
    private func write(_ bytes: Data, to body: MemoryBody, expectedLength: Int64?) throws {
        let sink = try FileSink(path: "a test body", in: body, base: 0, expectedLength: expectedLength)
        // In chunks, as libcurl hands a body over.
        bytes.withUnsafeBytes { raw in
            var start = 0
            while start < raw.count {
                let end = min(raw.count, start + 16_384)
                do { try sink.write(UnsafeRawBufferPointer(rebasing: raw[start..<end])) } catch { XCTFail("\(error)") }
                start = end
            }
        }
        XCTAssertEqual(try sink.close(), Int64(bytes.count))
    }

    func testWhatIsWrittenReadsBackWholeWithOrWithoutALength() throws {
        let small = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let large = Data((0..<(3 << 20) + 12_345).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        for (bytes, length) in [(small, Int64?.some(50_000)), (small, nil), (large, Int64(large.count)), (large, nil)] {
            let body = MemoryBody()
            try write(bytes, to: body, expectedLength: length)
            XCTAssertEqual(body.contents(), bytes, "\(bytes.count) bytes, length \(String(describing: length))")
        }
        XCTAssertEqual(MemoryBody().contents(), Data(), "nothing written reads as nothing")
    }

    func testASecondAnswerReplacesTheFirst() throws {
        let body = MemoryBody()
        try write(Data(repeating: 1, count: 70_000), to: body, expectedLength: 70_000)
        try write(Data("the page".utf8), to: body, expectedLength: nil)
        XCTAssertEqual(body.contents(), Data("the page".utf8))
    }

    /// A length a server states is not memory taken: a terabyte stated reserves at most 16 MiB
    /// (reserved whole, it would fail, and end the process).
    func testAStatedLengthReservesNoMoreThanItsCap() throws {
        let body = MemoryBody()
        try write(Data("short".utf8), to: body, expectedLength: 1 << 40)
        XCTAssertEqual(body.contents(), Data("short".utf8))
    }

    func testNothingIsMadeOnDisk() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memory-body-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let named = folder.appendingPathComponent("page.xml").path
        let body = MemoryBody()
        let sink = try FileSink(path: named, in: body, base: 0, expectedLength: 4)
        Data("page".utf8).withUnsafeBytes { raw in
            do { try sink.write(raw) } catch { XCTFail("\(error)") }
        }
        XCTAssertEqual(try sink.close(), 4)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "the path only names the body")
        XCTAssertEqual(body.contents(), Data("page".utf8))
    }
}
