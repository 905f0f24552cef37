import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Where a cached copy's info is kept: an extended attribute of the copy, set before the copy is
/// renamed into place; the `.json` file beside it where the copy cannot carry it, and where
/// earlier versions kept it.
final class CatalogCacheInfoTests: XCTestCase {
    private let folder = TemporaryDirectory()
    private let fetched = Date(timeIntervalSince1970: 1_790_000_000)

    private func cache() throws -> CatalogCache {
        let directories = Directories(data: folder.path + "/data", cache: folder.path + "/cache", state: folder.path + "/state")
        let cache = CatalogCache(directories: directories, subscriptionName: "weekly")
        try cache.prepare()
        return cache
    }

    /// Installs `body` as the copy, as a refresh does: downloaded beside it, then moved into place.
    private func install(_ body: String, etag: String, url: String = "http://127.0.0.1/c.plist", into cache: CatalogCache) throws {
        try Data(body.utf8).write(to: URL(fileURLWithPath: cache.downloadPath))
        try cache.installDownload(info: CatalogCache.Info(url: url, etag: etag, fetchedAt: fetched))
    }

    func testTheInfoMovesIntoPlaceWithItsCopyAndAnOldInfoFileGoes() throws {
        let cache = try cache()
        // An info file an earlier version left beside its copy.
        try Data("{\"url\":\"old\",\"fetchedAt\":\"2020-01-01T00:00:00Z\"}".utf8).write(to: URL(fileURLWithPath: cache.infoPath))
        try install("copy one", etag: "\"1\"", into: cache)

        XCTAssertNotNil(FileOps.attribute(CatalogCache.infoAttributeName, of: cache.catalogPath))
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache.infoPath), "the earlier version's file is stale now")
        let info = try XCTUnwrap(cache.readInfo())
        XCTAssertEqual(info.etag, "\"1\"")
        XCTAssertEqual(info.copySize, 8)
        XCTAssertEqual(info.fetchedAt, fetched)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.folder), ["weekly.catalog"])
    }

    func testAnInfoTooLargeForAnAttributeIsAFileAndNoAttributeIsLeftToBeReadFirst() throws {
        let cache = try cache()
        try install("copy one", etag: "\"1\"", into: cache)
        // Larger than any file system keeps in an attribute (the kernel's own cap is 64 KiB).
        let long = "http://127.0.0.1/c.plist?" + String(repeating: "q", count: 70_000)
        try install("copy two", etag: "\"2\"", url: long, into: cache)

        XCTAssertNil(FileOps.attribute(CatalogCache.infoAttributeName, of: cache.catalogPath))
        XCTAssertEqual(cache.readInfo()?.etag, "\"2\"")
        XCTAssertEqual(cache.readInfo()?.url, long)

        // Back to a small info: the attribute again, and the file goes.
        var info = try XCTUnwrap(cache.readInfo())
        info.url = "http://127.0.0.1/c.plist"
        try cache.writeInfo(info)
        XCTAssertNotNil(FileOps.attribute(CatalogCache.infoAttributeName, of: cache.catalogPath))
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache.infoPath))
        XCTAssertEqual(cache.readInfo()?.url, "http://127.0.0.1/c.plist")

        // Too large again, written over a copy that carries the small one: that attribute goes.
        info.url = long
        try cache.writeInfo(info)
        XCTAssertNil(FileOps.attribute(CatalogCache.infoAttributeName, of: cache.catalogPath))
        XCTAssertEqual(cache.readInfo()?.url, long)
    }

    func testWithoutAttributesTheInfoIsTheFileAndTheCheckTimeStillTheCopys() throws {
        var cache = try cache()
        cache.infoAttribute = nil
        try install("copy one", etag: "\"1\"", into: cache)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.folder).sorted(), ["weekly.catalog", "weekly.json"])
        let previous = try XCTUnwrap(cache.readInfo())
        XCTAssertEqual(previous.etag, "\"1\"")

        // A 304 an hour later: only the time is new, and it is the copy's; the file is not touched.
        let file = try Data(contentsOf: URL(fileURLWithPath: cache.infoPath))
        var checked = previous
        checked.fetchedAt = fetched.addingTimeInterval(3_600)
        try cache.recordCheck(checked, previous: previous)
        XCTAssertEqual(cache.readInfo()?.fetchedAt, fetched.addingTimeInterval(3_600))
        XCTAssertEqual(FileOps.modificationDate(cache.catalogPath), fetched.addingTimeInterval(3_600))
        XCTAssertEqual(FileOps.modificationDate(cache.infoPath), fetched)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cache.infoPath)), file)

        // An earlier version recorded its checks as the file's time: a later one there still counts.
        try FileOps.setModificationDate(cache.infoPath, to: fetched.addingTimeInterval(7_200))
        XCTAssertEqual(cache.readInfo()?.fetchedAt, fetched.addingTimeInterval(7_200))
    }

    func testWithAttributesTheCheckTimeIsTheCopysAndNothingIsWritten() throws {
        let cache = try cache()
        try install("copy one", etag: "\"1\"", into: cache)
        let previous = try XCTUnwrap(cache.readInfo())
        let kept = FileOps.attribute(CatalogCache.infoAttributeName, of: cache.catalogPath)

        var checked = previous
        checked.fetchedAt = fetched.addingTimeInterval(3_600)
        try cache.recordCheck(checked, previous: previous)
        XCTAssertEqual(cache.readInfo()?.fetchedAt, fetched.addingTimeInterval(3_600))
        XCTAssertEqual(FileOps.modificationDate(cache.catalogPath), fetched.addingTimeInterval(3_600))
        XCTAssertEqual(FileOps.attribute(CatalogCache.infoAttributeName, of: cache.catalogPath), kept, "only the time was new")
    }
}
