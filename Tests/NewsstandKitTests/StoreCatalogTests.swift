import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// The catalog over real HTTP through libcurl, and its cached copy on disk.
final class StoreCatalogTests: XCTestCase {
    func testFreshCatalogLoadsAndIsCached() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf"), Fixtures.entry(id: "b", download: "issues/b.pdf")])
        let store = harness.makeStore()
        let statusChanges = NotificationCounter(Store.statusDidChangeNotification, center: harness.center, object: store)
        let summary = try store.refreshAndWait().get()
        XCTAssertEqual(summary, Store.RefreshSummary(changed: true, newIssues: 2, totalIssues: 2, source: .network))
        XCTAssertEqual(store.numberOfIssues, 2)
        XCTAssertEqual(store.issue(at: 1)?.id, "b")
        XCTAssertNil(store.issue(at: 2))
        XCTAssertEqual(store.issue(withID: "a")?.entry.downloadURL, harness.server.url("/issues/a.pdf"))
        XCTAssertEqual(store.catalogTitle, "Test Monthly")
        guard case .ready(.network, _) = store.status else { return XCTFail("status \(store.status)") }
        XCTAssertEqual(statusChanges.value, 2, "loading, then ready")
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.cache.catalogPath))
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.cache.downloadPath))
    }

    /// A property list whose URL holds a key, and whose links repeat it, is kept as a snapshot
    /// with the key masked (as it came, the key was on the disk); read back, its links are whole.
    func testAPropertyListWhoseURLHoldsAKeyIsKeptMasked() throws {
        let harness = try StoreHarness()
        let key = "plistkey4711"
        let download = harness.server.url("/api/opds/\(key)/issues/a.pdf").absoluteString
        harness.server.serve("/api/opds/\(key)/catalog.plist",
                             .init(body: Fixtures.catalog([Fixtures.entry(id: "a", download: download)]), contentType: "application/xml", etag: "\"k1\""))
        let store = harness.makeStore(catalog: "/api/opds/\(key)/catalog.plist")
        _ = try store.refreshAndWait().get()
        let copy = try Data(contentsOf: URL(fileURLWithPath: store.cache.catalogPath))
        XCTAssertNil(copy.range(of: Data(key.utf8)), "the key reached the cache")
        XCTAssertTrue(copy.starts(with: Array("bplist00".utf8)), "a snapshot, not the bytes as they came")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.cache.folder), [(store.cache.catalogPath as NSString).lastPathComponent])

        let later = harness.makeStore(catalog: "/api/opds/\(key)/catalog.plist")
        XCTAssertTrue(later.loadCache())
        XCTAssertEqual(later.issue(withID: "a")?.entry.downloadURL.absoluteString, download)

        // Without a key in its URL, a property list is kept byte for byte.
        let served = Fixtures.catalog([Fixtures.entry(id: "b", download: "issues/b.pdf")])
        harness.server.serve("/catalog.plist", .init(body: served, contentType: "application/xml", etag: "\"c1\""))
        let plain = harness.makeStore()
        _ = try plain.refreshAndWait().get()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: plain.cache.catalogPath)), served)
    }

    /// A feed is kept as its snapshot, written into the room its page set aside and cut to its
    /// own length (smaller than the page): it reads back whole, and nothing is left beside it.
    func testAFeedIsKeptAsItsSnapshotCutToItsOwnLength() throws {
        let harness = try StoreHarness()
        let feed = Fixtures.atomFeed(0..<200) { "Issue \($0) with a title of some length" }
        harness.server.serve("/feed.atom", .init(body: feed, contentType: "application/atom+xml"))
        let store = harness.makeStore(catalog: "/feed.atom")
        XCTAssertEqual(try store.refreshAndWait().get().totalIssues, 200)

        let copy = try Data(contentsOf: URL(fileURLWithPath: store.cache.catalogPath))
        XCTAssertTrue(copy.starts(with: Array("bplist00".utf8)), "a snapshot")
        XCTAssertLessThan(copy.count, feed.count)
        XCTAssertEqual(store.cache.readInfo()?.copySize, Int64(copy.count))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.cache.folder), [(store.cache.catalogPath as NSString).lastPathComponent])

        let later = harness.makeStore(catalog: "/feed.atom")
        XCTAssertTrue(later.loadCache())
        XCTAssertEqual(later.numberOfIssues, 200)
        XCTAssertEqual(later.issue(withID: "urn:issue:199")?.title, "Issue 199 with a title of some length")
    }

    func testTheCacheInfoKeepsItsDatesToTheSecondAndReadsWhatFoundationWrote() throws {
        let folder = TemporaryDirectory()
        let directories = Directories(data: folder.path + "/data", cache: folder.path + "/cache", state: folder.path + "/state")
        let cache = CatalogCache(directories: directories, subscriptionName: "dates")
        try cache.prepare()
        // The info is read only beside a complete copy.
        try Data("copy".utf8).write(to: URL(fileURLWithPath: cache.catalogPath))
        let fetched = Date(timeIntervalSince1970: 1_795_993_805.75)
        // A holder's modification time counts as a later check, and the later date wins: the
        // holders are dated a day before `fetched`, or this test would fail once the clock
        // passed it (it did, on 2026-11-29 at 23:10:05).
        let dayBefore: [FileAttributeKey: Any] = [.modificationDate: fetched.addingTimeInterval(-86_400)]
        try FileManager.default.setAttributes(dayBefore, ofItemAtPath: cache.catalogPath)
        let info = CatalogCache.Info(url: "http://127.0.0.1/c.plist", etag: "\"e\"", fetchedAt: fetched, freshUntil: fetched.addingTimeInterval(3_600),
                                     retryNotBefore: Date(timeIntervalSince1970: -86_400 * 366))
        try cache.writeInfo(info)
        let written = String(decoding: try XCTUnwrap(FileOps.attribute(CatalogCache.infoAttributeName, of: cache.catalogPath)), as: UTF8.self)
        XCTAssertTrue(written.contains("\"fetchedAt\":\"2026-11-29T23:10:05Z\""), written)
        XCTAssertTrue(written.contains("\"retryNotBefore\":\"1968-12-31T00:00:00Z\""), written)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache.infoPath), "kept with the copy, no file beside it")
        let read = try XCTUnwrap(cache.readInfo())
        XCTAssertEqual(read.fetchedAt, Date(timeIntervalSince1970: 1_795_993_805))
        XCTAssertEqual(read.freshUntil, Date(timeIntervalSince1970: 1_795_993_805 + 3_600))

        // What earlier versions wrote, a file beside the copy with Foundation's ISO 8601 strategy, reads the same.
        FileOps.removeAttribute(CatalogCache.infoAttributeName, of: cache.catalogPath)
        let foundation = JSONEncoder()
        foundation.dateEncodingStrategy = .iso8601
        try foundation.encode(info).write(to: URL(fileURLWithPath: cache.infoPath))
        try FileManager.default.setAttributes(dayBefore, ofItemAtPath: cache.infoPath)
        XCTAssertEqual(cache.readInfo(), read)
    }

    func testCoversAreFetchedIntoTheirFolderAndOnesKeptTheOldWayAreMovedThereWithoutTheNetwork() throws {
        let harness = try StoreHarness()
        let cover = Data("fresh cover".utf8)
        harness.server.serve("/covers/new.png", .init(body: cover, contentType: "image/png"))
        harness.serveCatalog([Fixtures.entry(id: "new", download: "issues/new.pdf", cover: "covers/new.png"),
                              Fixtures.entry(id: "old", download: "issues/old.pdf", cover: "covers/old.png"),
                              Fixtures.entry(id: "kept", download: "issues/kept.pdf", cover: "covers/kept.png")])
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        // Covers as an earlier version kept them, one beside a downloaded issue.
        let library = store.library
        for id in ["old", "kept"] {
            try FileManager.default.createDirectory(atPath: library.folder(for: id), withIntermediateDirectories: true)
            try Data("old \(id)".utf8).write(to: URL(fileURLWithPath: library.folder(for: id) + "/cover"))
        }
        try Data("%PDF".utf8).write(to: URL(fileURLWithPath: library.filePath(for: "kept", as: .pdf)))

        func fetch(_ id: String) throws -> String {
            let done = DispatchSemaphore(value: 0)
            let result = Locked<Result<String, NewsstandError>?>(nil)
            store.fetchCover(for: try XCTUnwrap(store.issue(withID: id))) { outcome in
                result.withLock { $0 = outcome }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            return try XCTUnwrap(result.withLock { $0 }).get()
        }
        XCTAssertEqual(try fetch("new"), library.coverPath(for: "new"))
        XCTAssertEqual(FileManager.default.contents(atPath: library.coverPath(for: "new")), cover)
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.folder(for: "new")), "a cover makes no issue folder")

        for id in ["old", "kept"] {
            XCTAssertEqual(try fetch(id), library.coverPath(for: id))
            XCTAssertEqual(FileManager.default.contents(atPath: library.coverPath(for: id)), Data("old \(id)".utf8))
            XCTAssertFalse(FileManager.default.fileExists(atPath: library.folder(for: id) + "/cover"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.folder(for: "old")), "the emptied folder is gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: library.filePath(for: "kept", as: .pdf)), "a downloaded issue stays")
        XCTAssertEqual(harness.server.requests.filter { $0.path.hasPrefix("/covers/") }.map(\.path), ["/covers/new.png"])
    }

    func testSecondRefreshSendsValidatorsAndA304KeepsTheCache() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")], etag: "\"cat-7\"")
        _ = try harness.makeStore().refreshAndWait().get()

        let second = harness.makeStore()
        let summary = try second.refreshAndWait().get()
        let request = try XCTUnwrap(harness.server.requests(for: "/catalog.plist").last)
        XCTAssertEqual(request.headers["if-none-match"], "\"cat-7\"")
        XCTAssertFalse(summary.changed)
        XCTAssertEqual(second.numberOfIssues, 1)
        guard case .ready(.network, _) = second.status else { return XCTFail("status \(second.status)") }
    }

    /// A harness serving one issue's catalog with `etag`, and a store that fetched and cached it.
    private func cachedCatalog(etag: String) throws -> (StoreHarness, Store) {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")], etag: etag)
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        return (harness, store)
    }

    func testA304IsRecordedAsTheCopysTimeAndAnythingElseNewIsWritten() throws {
        let (harness, first) = try cachedCatalog(etag: "\"cat-7\"")
        let copyPath = first.cache.catalogPath
        func inode() throws -> Int { try XCTUnwrap(FileManager.default.attributesOfItem(atPath: copyPath)[.systemFileNumber] as? Int) }
        func kept() -> Data? { FileOps.attribute(CatalogCache.infoAttributeName, of: copyPath) }
        // The first check an hour ago, so that the next one is later to the second.
        var info = try XCTUnwrap(first.cache.readInfo())
        let firstCheck = info.fetchedAt.addingTimeInterval(-3_600)
        info.fetchedAt = firstCheck
        try first.cache.writeInfo(info)
        XCTAssertEqual(first.cache.readInfo()?.fetchedAt, firstCheck)
        let written = try XCTUnwrap(kept())
        let writtenInode = try inode()

        // Nothing but the time is new: the same copy, the same info, a later check.
        let second = harness.makeStore()
        XCTAssertFalse(try second.refreshAndWait().get().changed)
        XCTAssertEqual(try inode(), writtenInode, "a 304 replaced the copy")
        XCTAssertEqual(kept(), written)
        XCTAssertFalse(FileManager.default.fileExists(atPath: first.cache.infoPath))
        let secondCheck = try XCTUnwrap(second.cache.readInfo()?.fetchedAt)
        XCTAssertGreaterThan(secondCheck, firstCheck.addingTimeInterval(3_000))
        XCTAssertEqual(second.catalogFetchedAt.map { $0.timeIntervalSince1970.rounded(.down) }, secondCheck.timeIntervalSince1970)
        XCTAssertEqual(harness.makeStore().cachedSummary?.fetchedAt, secondCheck, "what the shelf's first frame shows")

        // The server now says how long the copy stays fresh: that is written, and kept.
        harness.server.serve("/catalog.plist", .init(body: Fixtures.catalog([Fixtures.entry(id: "a", download: "issues/a.pdf")]),
                                                     contentType: "application/xml", etag: "\"cat-7\"", extraHeaders: ["Cache-Control: max-age=600"]))
        let third = harness.makeStore()
        XCTAssertFalse(try third.refreshAndWait().get().changed)
        XCTAssertNotEqual(kept(), written, "the max-age is written")
        XCTAssertEqual(try inode(), writtenInode, "into the same copy")
        let freshUntil = try XCTUnwrap(third.cache.readInfo()?.freshUntil)
        XCTAssertGreaterThan(freshUntil, Date().addingTimeInterval(500))
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(third.cache.readInfo()?.fetchedAt), secondCheck)
    }

    func testChangedCatalogCountsNewIssues() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "a.pdf")], etag: "\"1\"")
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        let issueA = try XCTUnwrap(store.issue(withID: "a"))
        harness.serveCatalog([Fixtures.entry(id: "a", download: "a.pdf"), Fixtures.entry(id: "b", download: "b.pdf"),
                              Fixtures.entry(id: "c", download: "c.pdf")], etag: "\"2\"")
        let summary = try store.refreshAndWait().get()
        XCTAssertTrue(summary.changed)
        XCTAssertEqual(summary.newIssues, 2)
        XCTAssertTrue(store.issue(withID: "a") === issueA, "known issues keep their object and state")
    }

    func testOfflineFallsBackToTheCacheAndSaysSo() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        let first = harness.makeStore()
        _ = try first.refreshAndWait().get()
        let fetchedAt = try XCTUnwrap(first.catalogFetchedAt)
        harness.server.stop()

        let offline = harness.makeStore()
        let result = offline.refreshAndWait()
        XCTAssertThrowsError(try result.get())
        XCTAssertEqual(offline.numberOfIssues, 1)
        guard case .offline(let since, let reason) = offline.status else { return XCTFail("status \(offline.status)") }
        XCTAssertEqual(since.timeIntervalSince1970, fetchedAt.timeIntervalSince1970, accuracy: 1)
        XCTAssertEqual(reason.code, .network)
        XCTAssertTrue(offline.status.summary.hasPrefix("Offline"))
    }

    func testACopyCutShortIsFetchedWholeAndAnEmptyCopyIsNone() throws {
        let (harness, first) = try cachedCatalog(etag: "\"cat-3\"")
        let catalogPath = first.cache.catalogPath
        let installed = try Data(contentsOf: URL(fileURLWithPath: catalogPath))
        XCTAssertEqual(first.cache.readInfo()?.copySize, Int64(installed.count))
        XCTAssertEqual(first.cache.readInfo()?.etag, "\"cat-3\"")

        // What a power cut can leave of a copy installed without waiting for the disk.
        try installed.prefix(installed.count / 2).write(to: URL(fileURLWithPath: catalogPath))
        XCTAssertNil(first.cache.readInfo()?.etag, "a copy cut short keeps no validators")
        let refreshed = try harness.makeStore().refreshAndWait().get()
        XCTAssertEqual(refreshed.totalIssues, 1)
        let request = try XCTUnwrap(harness.server.requests(for: "/catalog.plist").last)
        XCTAssertNil(request.headers["if-none-match"], "fetched whole, not answered with a 304 that would keep the short copy")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: catalogPath)), installed)
        XCTAssertEqual(first.cache.readInfo()?.etag, "\"cat-3\"")

        XCTAssertTrue(FileManager.default.createFile(atPath: catalogPath, contents: Data()))
        XCTAssertNil(first.cache.readInfo(), "an empty copy is none")
    }

    func testALostInfoLeavesTheCopyUsableAndTheNextRefreshFetchesItWhole() throws {
        let (harness, first) = try cachedCatalog(etag: "\"cat-9\"")
        let copyPath = first.cache.catalogPath
        // What a power cut can leave of an attribute written without waiting for the disk: none.
        FileOps.removeAttribute(CatalogCache.infoAttributeName, of: copyPath)

        let reader = harness.makeStore()
        XCTAssertTrue(reader.loadCache(), "the copy was hidden by its lost info")
        XCTAssertEqual(reader.issue(at: 0)?.id, "a")
        let refreshed = try harness.makeStore().refreshAndWait().get()
        XCTAssertEqual(refreshed.totalIssues, 1)
        let request = try XCTUnwrap(harness.server.requests(for: "/catalog.plist").last)
        XCTAssertNil(request.headers["if-none-match"], "no validators without an info")
        XCTAssertEqual(first.cache.readInfo()?.etag, "\"cat-9\"", "the info is written anew")

        XCTAssertTrue(FileOps.setAttribute(CatalogCache.infoAttributeName, Data("{\"url\":".utf8), of: copyPath))
        harness.server.stop()
        let offline = harness.makeStore()
        XCTAssertThrowsError(try offline.refreshAndWait().get())
        XCTAssertEqual(offline.numberOfIssues, 1, "offline, the copy is still shown")
        XCTAssertTrue(offline.status.summary.hasPrefix("Offline"), offline.status.summary)
    }

    func testOfflineWithNoCacheIsAClearError() throws {
        let harness = try StoreHarness()
        harness.server.stop()
        let store = harness.makeStore()
        XCTAssertThrowsError(try store.refreshAndWait().get())
        guard case .failed(let error) = store.status else { return XCTFail("status \(store.status)") }
        XCTAssertEqual(error.code, .catalogUnavailable)
        XCTAssertTrue(error.message.hasPrefix("Cannot connect to 127.0.0.1 port "), error.message)
        XCTAssertEqual(store.numberOfIssues, 0)
    }

    func testBadEntriesAreSkippedAndTheRestLoad() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "ok", download: "ok.pdf"), Fixtures.entry(id: "../../etc", download: "x.pdf"),
                              ["ID": "nodl", "Title": "No download"]])
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        // An unsafe publisher ID is data: it loads, under a safe local key.
        XCTAssertEqual(store.issues.map(\.id), ["ok", "../../etc"])
        let key = try XCTUnwrap(store.issue(withID: "../../etc")?.localKey)
        XCTAssertTrue(LocalKey.isValid(key) && key.hasPrefix("etc-"), key)
        XCTAssertTrue(store.library.folder(for: key).hasPrefix(store.library.root + "/"))
        XCTAssertEqual(store.warnings, [CatalogWarning(.missing(field: "Download URL", expected: "a string"), index: 2, id: "nodl")])
    }

    func testAMalformedCatalogKeepsTheLastGoodCacheAsStale() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "a.pdf")], etag: "\"1\"")
        _ = try harness.makeStore().refreshAndWait().get()
        harness.server.serve("/catalog.plist", .init(body: Data("<plist><array><dict>".utf8), etag: "\"2\""))

        let store = harness.makeStore()
        XCTAssertThrowsError(try store.refreshAndWait().get())
        XCTAssertEqual(store.issues.map(\.id), ["a"])
        guard case .offline(_, let reason) = store.status else { return XCTFail("status \(store.status)") }
        XCTAssertEqual(reason.code, .invalidCatalog)
        XCTAssertTrue(store.status.summary.hasPrefix("Stale"))
        // The good copy is still the cached one.
        let third = harness.makeStore()
        XCTAssertTrue(third.loadCache())
        XCTAssertEqual(third.numberOfIssues, 1)
    }

    func testACorruptCacheIsSetAsideAndFetchedAgain() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "a.pdf")])
        let store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: store.cache.catalogPath))

        let next = harness.makeStore()
        XCTAssertFalse(next.loadCache())
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.cache.catalogPath + ".corrupt"))
        _ = try next.refreshAndWait().get()
        XCTAssertEqual(next.numberOfIssues, 1)
        XCTAssertNil(harness.server.requests(for: "/catalog.plist").last?.headers["if-none-match"], "no validator without a good copy")
    }

    func testLocalCatalogFileLoadsWithoutNetwork() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/catalog.plist"
        try Fixtures.catalog([Fixtures.entry(id: "x", download: "issues/x.pdf")]).write(to: URL(fileURLWithPath: path))
        let store = Store(configuration: Store.Configuration(
            subscription: Subscription(name: "local", url: URL(fileURLWithPath: path)), directories: .fromEnvironment(folder.environment)))
        _ = try store.refreshAndWait().get()
        XCTAssertEqual(store.issue(withID: "x")?.entry.downloadURL, URL(fileURLWithPath: folder.path + "/issues/x.pdf"))
        guard case .ready(.file, _) = store.status else { return XCTFail("status \(store.status)") }
    }

    func testXDGVariablesThatAreEmptyOrRelativeFallBackToHome() {
        let directories = Directories.fromEnvironment(["HOME": "/home/reader", "XDG_DATA_HOME": "", "XDG_CACHE_HOME": "relative/cache"])
        XCTAssertEqual(directories.data, "/home/reader/.local/share/newsstand")
        XCTAssertEqual(directories.cache, "/home/reader/.cache/newsstand")
        let set = Directories.fromEnvironment(["HOME": "/home/reader", "XDG_DATA_HOME": "/data"])
        XCTAssertEqual(set.data, "/data/newsstand")
    }
}
