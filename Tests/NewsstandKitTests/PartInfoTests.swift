import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Where what a partial download is (``PartInfo``) is kept: the part's extended attribute, a
/// file beside it where the file system refuses one, and the file versions before kept.
final class PartInfoTests: XCTestCase {
    private let folder = TemporaryDirectory()
    private let info = PartInfo(url: "http://127.0.0.1:1/issues/a.pdf", validator: "\"v1\"", serverFileName: "Issue 1.pdf")

    private func library() throws -> Library {
        let library = Library(directories: Directories.fromEnvironment(folder.environment), subscriptionName: "test")
        try library.prepareFolder(for: "a")
        return library
    }

    private func written(_ info: PartInfo, _ library: Library) {
        library.writePartInfo(info, key: "a", type: .pdf)
        Library.waitForPartInfo(at: library.partInfoPath(for: "a", as: .pdf))
    }

    private func contents(_ library: Library) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: library.folder(for: "a")).sorted()
    }

    func testThePartCarriesItsInfoAndTheInstalledIssueDoesNot() throws {
        let library = try library()
        let part = library.partPath(for: "a", as: .pdf)
        try Data("%PDF-1.4 part".utf8).write(to: URL(fileURLWithPath: part))
        written(info, library)

        XCTAssertEqual(library.readPartInfo(key: "a", type: .pdf), info)
        XCTAssertNotNil(FileOps.attribute(Library.partInfoAttributeName, of: part))
        XCTAssertEqual(try contents(library), ["a.pdf.part"], "no file beside the part")

        try library.install(key: "a", type: .pdf)
        let installed = library.filePath(for: "a", as: .pdf)
        XCTAssertNil(FileOps.attribute(Library.partInfoAttributeName, of: installed), "the issue does not carry its part's info")
        XCTAssertEqual(library.serverFileName(for: "a"), "Issue 1.pdf")
        XCTAssertEqual(try contents(library), ["a.pdf", "a.server-name"])
    }

    func testAnInfoWithNoPartToCarryItIsAFileAndMakesNoPart() throws {
        let library = try library()
        written(info, library)
        XCTAssertEqual(library.readPartInfo(key: "a", type: .pdf), info)
        XCTAssertEqual(try contents(library), ["a.pdf.part.json"])

        // Once the part is there, it carries the next info, and the file goes.
        try Data("%PDF-1.4 part".utf8).write(to: URL(fileURLWithPath: library.partPath(for: "a", as: .pdf)))
        var next = info
        next.validator = "\"v2\""
        written(next, library)
        XCTAssertEqual(library.readPartInfo(key: "a", type: .pdf), next)
        XCTAssertEqual(try contents(library), ["a.pdf.part"])
    }

    func testAnInfoTheFileSystemRefusesIsAFileBesideThePartAndReplacesTheAttribute() throws {
        let library = try library()
        let part = library.partPath(for: "a", as: .pdf)
        try Data("%PDF-1.4 part".utf8).write(to: URL(fileURLWithPath: part))
        written(info, library)
        // Larger than any file system keeps in an attribute (the kernel's own cap is 64 KiB).
        var long = info
        long.url = "http://127.0.0.1:1/issues/a.pdf?" + String(repeating: "q", count: 70_000)
        written(long, library)

        XCTAssertEqual(library.readPartInfo(key: "a", type: .pdf), long, "the new info, not the attribute of the one before")
        XCTAssertNil(FileOps.attribute(Library.partInfoAttributeName, of: part))
        XCTAssertEqual(try contents(library), ["a.pdf.part", "a.pdf.part.json"])
        try library.install(key: "a", type: .pdf)
        XCTAssertEqual(try contents(library), ["a.pdf", "a.server-name"], "the file goes with the install")
    }

    func testWithoutAttributesTheInfoIsKeptInAFile() throws {
        var library = try library()
        library.partInfoAttribute = nil
        try Data("%PDF-1.4 part".utf8).write(to: URL(fileURLWithPath: library.partPath(for: "a", as: .pdf)))
        written(info, library)
        XCTAssertEqual(library.readPartInfo(key: "a", type: .pdf), info)
        XCTAssertEqual(try contents(library), ["a.pdf.part", "a.pdf.part.json"])
        try library.discardPart(key: "a", type: .pdf)
        XCTAssertEqual(try contents(library), [])
    }

    /// An attribute larger than ext4 keeps (XFS, btrfs and tmpfs keep up to 64 KiB) is read whole,
    /// not taken for none: an info that large would otherwise never be found again.
    func testAnAttributeLargerThanExt4KeepsIsReadWhole() throws {
        let path = "/dev/shm/newsstand-attribute-\(UUID().uuidString)"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { unlink(path) }
        let value = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        guard FileOps.setAttribute(Library.partInfoAttributeName, value, of: path) else {
            throw XCTSkip("/dev/shm keeps no attribute of 10,000 bytes here (errno \(errno))")
        }
        XCTAssertEqual(FileOps.attribute(Library.partInfoAttributeName, of: path), value)
        XCTAssertNil(FileOps.attribute("user.newsstand.none", of: path))
    }

    /// A part left by a version that kept its info in `.part.json` resumes with its validator.
    func testAPartOfAnEarlierVersionResumes() throws {
        let harness = try StoreHarness()
        let (store, issue, data) = try storeWithIssueA(harness, size: 1_000_000)
        try store.library.prepareFolder(for: "a")
        try data.prefix(300_000).write(to: URL(fileURLWithPath: store.library.partPath(for: "a", as: .pdf)))
        let legacy = PartInfo(url: harness.server.url("/issues/a.pdf").absoluteString, validator: "\"v1\"")
        try JSONEncoder().encode(legacy).write(to: URL(fileURLWithPath: store.library.partInfoPath(for: "a", as: .pdf)))

        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        let request = try XCTUnwrap(harness.server.requests(for: "/issues/a.pdf").last)
        XCTAssertEqual(request.headers["range"], "bytes=300000-")
        XCTAssertEqual(request.headers["if-range"], "\"v1\"")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.library.folder(for: "a")), ["a.pdf"])
    }
}
