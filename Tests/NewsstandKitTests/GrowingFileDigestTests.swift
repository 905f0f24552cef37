import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// The SHA-256 computed behind a download's writes: every byte from the file's first, the kept
/// bytes of a resume included, however the writes were cut.
final class GrowingFileDigestTests: XCTestCase {
    /// Writes `data` after the first `kept` bytes already in the file, in pieces of uneven sizes
    /// (some buffered by the sink, some written straight through); returns the sink's digest.
    private func written(_ data: Data, kept: Int, keptBytes: Data? = nil, in folder: TemporaryDirectory) throws -> GrowingFileDigest {
        let path = folder.path + "/issue.pdf.part"
        try (keptBytes ?? data.prefix(kept)).write(to: URL(fileURLWithPath: path))
        let sink = try FileSink(path: path, base: Int64(kept), expectedLength: nil, hashing: true)
        let pieces = [1, 4_095, 65_536, 300_000, (1 << 20) + 7, 17, 5 << 20]
        var offset = kept, index = 0
        while offset < data.count {
            let end = min(data.count, offset + pieces[index % pieces.count])
            try data[offset..<end].withUnsafeBytes { try sink.write($0) }
            offset = end
            index += 1
        }
        XCTAssertEqual(try sink.close(), Int64(data.count))
        return try XCTUnwrap(sink.digest)
    }

    func testTheDigestCoversTheKeptPrefixAndEveryPieceWritten() throws {
        let folder = TemporaryDirectory()
        let data = Fixtures.pdf(size: 20_000_000, seed: 3)
        let digest = try written(data, kept: 3_000_000, in: folder)
        XCTAssertEqual(try digest.hexDigest(ofFirst: Int64(data.count)), Fixtures.sha256(data))
        XCTAssertNil(try digest.hexDigest(ofFirst: 1_000), "fewer bytes than were hashed cannot be answered")
    }

    func testAChangedByteInTheKeptPrefixChangesTheDigest() throws {
        let folder = TemporaryDirectory()
        let data = Fixtures.pdf(size: 12_000_000, seed: 4)
        var kept = data.prefix(6_000_000)
        kept[2_500_000] ^= 0x80
        let digest = try written(data, kept: kept.count, keptBytes: kept, in: folder)
        let actual = try digest.hexDigest(ofFirst: Int64(data.count))
        XCTAssertNotEqual(actual, Fixtures.sha256(data))
        XCTAssertEqual(actual, Fixtures.sha256(kept + data.suffix(from: kept.count)))
    }

    func testARestartedBodyIsHashedAfresh() throws {
        let folder = TemporaryDirectory()
        let data = Fixtures.pdf(size: 9_000_000, seed: 5)
        // A server that ignored the Range: the body starts at byte 0, over whatever was kept.
        let digest = try written(data, kept: 0, keptBytes: Fixtures.pdf(size: 4_000_000, seed: 6), in: folder)
        XCTAssertEqual(try digest.hexDigest(ofFirst: Int64(data.count)), Fixtures.sha256(data))
    }
}
