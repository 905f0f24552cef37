import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// What the reader did with each issue: first sightings, reading records across runs and processes.
final class ReadingStateTests: XCTestCase {
    func testFirstLoadIsNotNewLaterIssuesAreAndReadingStateLastsAcrossRuns() throws {
        let harness = try StoreHarness()
        let files = harness.serveIssue("a").data
        _ = files
        harness.serveCatalog([harness.serveIssue("a").entry, harness.serveIssue("b").entry])
        var store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        XCTAssertEqual(store.issues.map { $0.reading?.isNew }, [false, false], "back issues of a new subscription are not new")
        harness.serveCatalog([harness.serveIssue("a").entry, harness.serveIssue("b").entry, harness.serveIssue("c").entry], etag: "\"c2\"")
        store = harness.makeStore()
        _ = try store.refreshAndWait().get()
        let c = try XCTUnwrap(store.issue(withID: "c"))
        XCTAssertEqual(c.reading?.isNew, true)
        try harness.newsstand.setPinned(true, [c])
        try harness.newsstand.setRead(true, [c])
        XCTAssertEqual(c.reading?.pinned, true)
        XCTAssertEqual(c.reading?.isNew, false, "read is not new")

        // A new process (a new newsstand) reads the same file.
        let later = harness.makeStore()
        XCTAssertTrue(later.loadCache())
        let record = try XCTUnwrap(later.issue(withID: "c")?.reading)
        XCTAssertTrue(record.pinned && record.isRead)
        XCTAssertNotNil(record.readAt)
        XCTAssertEqual(later.issue(withID: "a")?.reading?.isRead, false)
        try harness.newsstand.setRead(false, [try XCTUnwrap(later.issue(withID: "c"))])
        try harness.newsstand.setPinned(false, [try XCTUnwrap(later.issue(withID: "c"))])
        XCTAssertEqual(later.issue(withID: "c")?.reading?.isRead, false)
        XCTAssertEqual(later.issue(withID: "c")?.reading?.pinned, false)
        XCTAssertEqual(later.issue(withID: "c")?.reading?.isNew, true, "unread again, so new again")
    }

    func testAReadingSnapshotOfAnUnchangedKeySetReadsOnlyWhatDiffers() throws {
        let folder = TemporaryDirectory()
        let state = try ReadingState(path: folder.path + "/reading.sqlite3")
        let keys = (0..<1_000).map { "k\($0)" }
        let first = try state.load(subscription: "s", keys: keys, at: Date(timeIntervalSince1970: 1_000))
        XCTAssertEqual(first.firstSeen, 1_000)
        XCTAssertTrue(first.records.isEmpty, "untouched back issues need no record of their own")
        XCTAssertEqual(first.record(for: "k7"), first.untouched)
        XCTAssertEqual(first.untouched.firstSeen, Date(timeIntervalSince1970: 1_000))
        try state.setRead(true, subscription: "s", keys: ["k3"])
        try state.setPinned(true, subscription: "s", keys: ["k4"])

        let same = try state.load(subscription: "s", keys: keys.reversed())
        XCTAssertEqual(same.firstSeen, 0, "the same set in another order")
        XCTAssertEqual(Set(same.records.keys), ["k3", "k4"])
        XCTAssertTrue(same.record(for: "k3").isRead && same.record(for: "k4").pinned)
        XCTAssertFalse(same.record(for: "k5").isNew)

        let grown = try state.load(subscription: "s", keys: keys + ["k1000"], at: Date(timeIntervalSince1970: 2_000))
        XCTAssertEqual(grown.firstSeen, 1)
        XCTAssertTrue(grown.record(for: "k1000").isNew)
        XCTAssertEqual(grown.record(for: "k1000").firstSeen, Date(timeIntervalSince1970: 2_000))
        XCTAssertTrue(grown.record(for: "k3").isRead, "marks survive the slow path too")
        // Issues gone and issues come: only those never recorded are first seen.
        let swapped = try state.load(subscription: "s", keys: Array(keys.dropFirst(10)) + ["k1000", "k1001", "k1002"],
                                     at: Date(timeIntervalSince1970: 3_000))
        XCTAssertEqual(swapped.firstSeen, 2)
        XCTAssertEqual(swapped.record(for: "k1000").firstSeen, Date(timeIntervalSince1970: 2_000), "seen once, at its first sighting")
        XCTAssertEqual(swapped.record(for: "k1002").firstSeen, Date(timeIntervalSince1970: 3_000))
        XCTAssertNotEqual(ReadingState.digest(["a", "b"]), ReadingState.digest(["a", "c"]))
        XCTAssertEqual(ReadingState.digest(["a", "b"]), ReadingState.digest(["b", "a"]))
        // A first load makes its keys' JSON and their digest in one pass: the same two.
        for list in [[], keys, ["quote\"d", "back\\slash", "tab\there", "2026-01", "été"]] {
            let both = ReadingState.jsonArrayAndDigest(list)
            XCTAssertEqual(both.json, ReadingState.jsonArray(list))
            XCTAssertEqual(both.digest, ReadingState.digest(list))
        }
        // And a first load made that way is recognised as unchanged by the next.
        let again = try state.load(subscription: "fresh", keys: ["quote\"d", "2026-01"], at: Date(timeIntervalSince1970: 4_000))
        XCTAssertEqual(again.firstSeen, 2)
        XCTAssertEqual(try state.load(subscription: "fresh", keys: ["2026-01", "quote\"d"], at: Date(timeIntervalSince1970: 5_000)).firstSeen, 0)
    }

    /// Keys reach SQLite as one JSON list: any text is recorded as itself, each key once.
    func testKeysOfAnyTextAreRecordedAsThemselves() throws {
        let folder = TemporaryDirectory()
        let state = try ReadingState(path: folder.path + "/reading.sqlite3")
        let odd = ["quote\"d", "back\\slash", "tab\there", "line\nbreak", "é—ü", "[\"],"]
        let first = try state.load(subscription: "s", keys: odd, at: Date(timeIntervalSince1970: 1_000))
        XCTAssertEqual(first.firstSeen, odd.count)
        let later = try state.load(subscription: "s", keys: odd + ["new"], at: Date(timeIntervalSince1970: 2_000))
        XCTAssertEqual(later.firstSeen, 1, "the odd keys were recorded as they are, so only `new` is new")
        XCTAssertTrue(later.record(for: "new").isNew)
        for key in odd {
            try state.setRead(true, subscription: "s", keys: [key])
            XCTAssertEqual(state.record(subscription: "s", key: key)?.isRead, true, key)
        }
    }

    func testTwoProcessesWritingTheReadingStateAtOnceBothLand() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/reading.sqlite3"
        let shelf = try ReadingState(path: path), sync = try ReadingState(path: path)
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            let state = writer == 0 ? shelf : sync
            for number in 0..<200 {
                try? state.setRead(true, subscription: "s\(writer)", keys: ["k\(number)"])
            }
        }
        XCTAssertEqual(shelf.allRecords()["s0"]?.count, 200)
        XCTAssertEqual(shelf.allRecords()["s1"]?.count, 200)
        XCTAssertEqual(try String(contentsOfFile: path + "-wal", encoding: .isoLatin1).isEmpty, false, "WAL mode")
    }

    /// A first load's back issues are one list of keys, not a row each; each gets a row only
    /// when it is marked, and keeps the record it had: seen at the first load, not new.
    func testAFirstLoadMakesNoRowsAndABackIssueMarkedLaterWasSeenAtTheFirstLoad() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/reading.sqlite3"
        let state = try ReadingState(path: path)
        let keys = (0..<5_000).map { "k\($0)" }
        let first = try state.load(subscription: "s", keys: keys, at: Date(timeIntervalSince1970: 1_000))
        XCTAssertEqual(first.firstSeen, 5_000)
        XCTAssertEqual(try rows(path), 0, "no row per back issue")
        let untouched = try XCTUnwrap(state.record(subscription: "s", key: "k42"))
        XCTAssertEqual(untouched.firstSeen, Date(timeIntervalSince1970: 1_000))
        XCTAssertFalse(untouched.arrivedLater)
        XCTAssertNil(state.record(subscription: "s", key: "never-listed"))
        XCTAssertEqual(state.allRecords()["s"]?.count, 5_000)

        try state.setRead(true, subscription: "s", keys: ["k7"], at: Date(timeIntervalSince1970: 1_500))
        try state.setPinned(true, subscription: "elsewhere", keys: ["k7"])
        XCTAssertEqual(try rows(path), 2)
        let marked = try XCTUnwrap(state.record(subscription: "s", key: "k7"))
        XCTAssertEqual(marked.firstSeen, Date(timeIntervalSince1970: 1_000), "seen at the first load, not when marked")
        XCTAssertFalse(marked.arrivedLater)
        XCTAssertEqual(marked.readAt, Date(timeIntervalSince1970: 1_500))

        // A changed catalog: only the key never listed is new; a back issue that left and came
        // back is not.
        let changed = try state.load(subscription: "s", keys: Array(keys.dropFirst(100)) + ["fresh"], at: Date(timeIntervalSince1970: 2_000))
        XCTAssertEqual(changed.firstSeen, 1)
        XCTAssertTrue(changed.record(for: "fresh").isNew)
        XCTAssertTrue(changed.record(for: "k7").isRead)
        let back = try state.load(subscription: "s", keys: keys, at: Date(timeIntervalSince1970: 3_000))
        XCTAssertEqual(back.firstSeen, 0)
        XCTAssertFalse(back.record(for: "k3").isNew)
        XCTAssertEqual(try rows(path), 3, "one more row: the issue that arrived later")
    }

    /// A version that knew two migrations sets user_version back to 2 when it opens the
    /// database; opened by this one again, the column it has is not added twice.
    func testADatabaseAnEarlierVersionOpenedSinceOpensAndKeepsItsFirstKeys() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/reading.sqlite3"
        _ = try ReadingState(path: path).load(subscription: "s", keys: ["a", "b"], at: Date(timeIntervalSince1970: 1_000))
        try SQLiteDatabase(path: path).write { try $0.execute("PRAGMA user_version = 2") }
        let reopened = try ReadingState(path: path)
        let later = try reopened.load(subscription: "s", keys: ["a", "b", "c"], at: Date(timeIntervalSince1970: 2_000))
        XCTAssertEqual(later.firstSeen, 1, "the first load's keys were kept")
        var version: Int64 = 0
        try SQLiteDatabase(path: path).read { try $0.query("PRAGMA user_version") { version = $0.integer(0) } }
        XCTAssertEqual(version, 3)
    }

    /// No connection folds the log into the database as it closes (two syncs of the disk as
    /// every command ended): the next connection reads the log, and the write that takes it past
    /// ``SQLiteDatabase/logPagesFolded`` pages folds it.
    func testTheLogOutlivesItsConnectionAndTheWriteThatFillsItFoldsIt() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/reading.sqlite3"
        func size(_ path: String) throws -> Int {
            try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        }
        do {
            let state = try ReadingState(path: path)
            _ = try state.load(subscription: "small", keys: ["a", "b"], at: Date(timeIntervalSince1970: 1_000))
            try state.setRead(true, subscription: "small", keys: ["b"], at: Date(timeIntervalSince1970: 1_500))
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"), "the log was kept as the connection closed")
        XCTAssertLessThanOrEqual(try size(path), 4_096, "nothing was folded into the database")
        let reopened = try ReadingState(path: path)
        XCTAssertEqual(reopened.record(subscription: "small", key: "b")?.readAt, Date(timeIntervalSince1970: 1_500), "read from the log")
        XCTAssertEqual(reopened.record(subscription: "small", key: "a")?.firstSeen, Date(timeIntervalSince1970: 1_000))

        // A first load of 150,000 keys is a list of more than a megabyte: past the log's bound.
        _ = try reopened.load(subscription: "large", keys: (0..<150_000).map { "key\($0)" }, at: Date(timeIntervalSince1970: 2_000))
        XCTAssertGreaterThan(try size(path), SQLiteDatabase.logPagesFolded * 4_096, "the log was folded into the database")
        XCTAssertEqual(try ReadingState(path: path).record(subscription: "small", key: "b")?.readAt, Date(timeIntervalSince1970: 1_500))
    }

    /// Opened on a thread of its own (a refresh's, beside its request), the reading state records
    /// and reads back what the one opened at once does, in a folder it had to make.
    func testAReadingStateOpenedInTheBackgroundRecordsAsOneOpenedAtOnce() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/new/folder/reading.sqlite3"
        let state = ReadingState.openingInBackground(path: path)
        let first = try state.load(subscription: "s", keys: ["a", "b"], at: Date(timeIntervalSince1970: 1_000))
        XCTAssertEqual(first.firstSeen, 2)
        try state.setRead(true, subscription: "s", keys: ["b"], at: Date(timeIntervalSince1970: 1_500))
        try state.opened()
        XCTAssertEqual(state.record(subscription: "s", key: "b")?.readAt, Date(timeIntervalSince1970: 1_500))

        let reopened = try ReadingState(path: path)
        XCTAssertEqual(reopened.record(subscription: "s", key: "b")?.readAt, Date(timeIntervalSince1970: 1_500))
        XCTAssertEqual(reopened.record(subscription: "s", key: "a")?.firstSeen, Date(timeIntervalSince1970: 1_000))
        let again = ReadingState.openingInBackground(path: path)
        XCTAssertEqual(try again.load(subscription: "s", keys: ["a", "b", "c"], at: Date(timeIntervalSince1970: 2_000)).firstSeen, 1,
                       "an existing database, opened in the background, keeps its first load")
    }

    /// A database that cannot be opened is the same error either way: the opening initialiser
    /// throws it, and one opened in the background gives it from `opened()` and every write,
    /// while its reads answer as if nothing was recorded. The file is left as it was.
    func testAReadingStateThatCannotBeOpenedSaysSoWhicheverWayItWasOpened() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/reading.sqlite3"
        let garbage = Data(repeating: 0x5A, count: 8_192)
        try garbage.write(to: URL(fileURLWithPath: path))

        var atOnce: NewsstandError?
        XCTAssertThrowsError(try ReadingState(path: path)) { atOnce = $0 as? NewsstandError }
        let expected = try XCTUnwrap(atOnce)
        XCTAssertEqual(expected.code, .fileSystem)
        XCTAssertTrue(expected.message.hasPrefix("The reading-state database \(path) cannot be opened ("), expected.message)
        XCTAssertTrue(expected.message.hasSuffix("move it aside to start afresh."), expected.message)

        let state = ReadingState.openingInBackground(path: path)
        XCTAssertThrowsError(try state.opened()) { XCTAssertEqual(($0 as? NewsstandError)?.message, expected.message) }
        XCTAssertThrowsError(try state.load(subscription: "s", keys: ["a"])) { XCTAssertEqual(($0 as? NewsstandError)?.message, expected.message) }
        XCTAssertThrowsError(try state.setRead(true, subscription: "s", keys: ["a"])) {
            XCTAssertEqual(($0 as? NewsstandError)?.message, expected.message)
        }
        XCTAssertNil(state.record(subscription: "s", key: "a"))
        XCTAssertTrue(state.allRecords().isEmpty)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), garbage, "the file was not touched")

        // A folder that cannot be made is the folder's own error, as before.
        let blocked = folder.path + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocked))
        XCTAssertThrowsError(try ReadingState.openingInBackground(path: blocked + "/reading.sqlite3").opened()) {
            XCTAssertEqual(($0 as? NewsstandError)?.code, .fileSystem)
        }
    }

    private func rows(_ path: String) throws -> Int64 {
        var count: Int64 = -1
        try SQLiteDatabase(path: path).read { try $0.query("SELECT count(*) FROM issue") { count = $0.integer(0) } }
        return count
    }

    /// A database made by the versions that kept their schema with GRDB (its migrations table,
    /// no user_version) opens with every record and gains what this version adds.
    func testADatabaseFromTheGRDBVersionsKeepsItsRecordsAndIsBroughtUpToDate() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/reading.sqlite3"
        do {
            let old = try SQLiteDatabase(path: path)
            try old.write { connection in
                try connection.execute("""
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1');
                    CREATE TABLE issue (subscription TEXT NOT NULL, key TEXT NOT NULL, first_seen REAL NOT NULL,
                        arrived_later INTEGER NOT NULL DEFAULT 0, read_at REAL, opened_at REAL, downloaded_at REAL,
                        pinned INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (subscription, key)) WITHOUT ROWID;
                    CREATE TABLE subscription (name TEXT PRIMARY KEY, first_loaded REAL NOT NULL) WITHOUT ROWID;
                    INSERT INTO subscription VALUES ('s', 1000);
                    INSERT INTO issue (subscription, key, first_seen, read_at, pinned) VALUES ('s', 'k1', 1000, 1500, 1);
                    """)
            }
        }
        let state = try ReadingState(path: path)
        let record = try XCTUnwrap(state.record(subscription: "s", key: "k1"))
        XCTAssertEqual(record.readAt, Date(timeIntervalSince1970: 1_500))
        XCTAssertTrue(record.pinned)
        let loaded = try state.load(subscription: "s", keys: ["k1", "k2"], at: Date(timeIntervalSince1970: 3_000))
        XCTAssertEqual(loaded.firstSeen, 1)
        XCTAssertTrue(loaded.record(for: "k2").isNew, "the subscription's first load was the old version's")
        var version: Int64 = 0
        try SQLiteDatabase(path: path).read { try $0.query("PRAGMA user_version") { version = $0.integer(0) } }
        XCTAssertEqual(version, 3)
        let reopened = try ReadingState(path: path)
        XCTAssertEqual(try reopened.load(subscription: "s", keys: ["k1", "k2"]).firstSeen, 0, "the key set of the last load was kept")
    }
}
