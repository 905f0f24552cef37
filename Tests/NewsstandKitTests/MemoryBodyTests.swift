import Foundation
@testable import NewsstandKit
import XCTest

/// A file in memory, as a transfer's destination: what a transfer wrote reads back whole, copied
/// when small and mapped when large, and stays readable once the file is gone.
final class MemoryFileTests: XCTestCase {
    private func written(_ bytes: Data) throws -> MemoryFile {
        let file = try MemoryFile()
        let sink = try FileSink(path: "a test body", in: file, base: 0, expectedLength: Int64(bytes.count))
        bytes.withUnsafeBytes { raw in
            do { try sink.write(raw) } catch { XCTFail("\(error)") }
        }
        XCTAssertEqual(try sink.close(), Int64(bytes.count))
        return file
    }

    func testWhatIsWrittenReadsBackWholeSmallOrLargeAfterTheFileIsGone() throws {
        let small = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let large = Data((0..<(MemoryFile.mappedSize + 12_345)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        var smallContents: Data?
        var largeContents: Data?
        do {
            smallContents = try written(small).contents()
            largeContents = try written(large).contents()
        }
        XCTAssertEqual(smallContents, small)
        XCTAssertEqual(largeContents, large, "mapped, and still readable with its file closed")
        XCTAssertEqual(try MemoryFile().contents(), Data(), "nothing written reads as nothing")
    }

    func testNoFileIsMadeAndTheDescriptorClosesOnExec() throws {
        let file = try MemoryFile()
        XCTAssertEqual(fcntl(file.descriptor, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC)
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(file.descriptor)")
        XCTAssertTrue(target.hasPrefix("/memfd:"), target)
    }
}
