import Foundation
import GRDB

/// What the reader has done with each issue, kept in SQLite under `$XDG_DATA_HOME/newsstand/`:
/// when it was first seen, read, opened and downloaded, and whether it is pinned.
///
/// The database is in WAL mode, so a shelf and a `sync` (two processes) read and write it at
/// once; each change is one short transaction, and a writer waits up to ten seconds for another.
/// The only file that imports GRDB.
public final class ReadingState: Sendable {
    /// One issue's record.
    public struct Record: Sendable, Equatable {
        public var firstSeen: Date
        /// Whether it appeared after the subscription's first load (back issues are not new).
        public var arrivedLater: Bool
        public var readAt: Date?
        public var openedAt: Date?
        public var downloadedAt: Date?
        public var pinned: Bool

        public var isRead: Bool { readAt != nil }
        /// New: arrived after the first load, never opened and not read. (Marked unread after
        /// it was opened, it is unread, not new.)
        public var isNew: Bool { arrivedLater && readAt == nil && openedAt == nil }
    }

    private let pool: DatabasePool

    /// Opens (creating and migrating) the database at `path`.
    public init(path: String) throws(NewsstandError) {
        do {
            try FileOps.makeDirectory((path as NSString).deletingLastPathComponent, trusted: (path as NSString).deletingLastPathComponent)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            // In WAL mode NORMAL never corrupts: a crash of the process loses nothing, a power cut at
            // worst the last few marks. FULL would sync the disk on every mark, a hundred times a sync.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch let error as NewsstandError {
            throw error
        } catch {
            throw NewsstandError(.fileSystem, "The reading-state database \(path) cannot be opened (\(error)); move it aside to start afresh.")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE issue (
                    subscription TEXT NOT NULL,
                    key TEXT NOT NULL,
                    first_seen REAL NOT NULL,
                    arrived_later INTEGER NOT NULL DEFAULT 0,
                    read_at REAL,
                    opened_at REAL,
                    downloaded_at REAL,
                    pinned INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (subscription, key)
                ) WITHOUT ROWID;
                CREATE TABLE subscription (
                    name TEXT PRIMARY KEY,
                    first_loaded REAL NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2: the key set of the last catalog") { db in
            // What the last load of each subscription's catalog showed, so that a load showing the
            // same issues need not look for new ones among a hundred thousand.
            try db.execute(sql: """
                ALTER TABLE subscription ADD COLUMN catalog_keys INTEGER;
                ALTER TABLE subscription ADD COLUMN catalog_digest INTEGER;
                """)
        }
        return migrator
    }

    private func write<T>(_ body: (Database) throws -> T) throws(NewsstandError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw NewsstandError(.fileSystem, "The reading state could not be saved (\(error)).")
        }
    }

    /// What a catalog load needs to know: the records of the issues the reader did something with
    /// (or that arrived after the first load), and the one record every other issue has.
    public struct Snapshot: Sendable {
        /// The records that differ from ``untouched``, by key.
        public var records: [String: Record]
        /// A back issue nobody touched: seen at the subscription's first load, unread, unpinned.
        public var untouched: Record
        /// Keys this load showed for the first time.
        public var firstSeen: Int

        public func record(for key: String) -> Record { records[key] ?? untouched }
    }

    /// The reading state of a catalog's issues, recording the keys it shows for the first time;
    /// after the subscription's first load those arrive as new.
    ///
    /// A catalog with the same keys as the last one loaded (most loads) costs one small query:
    /// the key set is compared by count and an order-free digest, and only records that differ
    /// from an untouched back issue are read.
    public func load(subscription: String, keys: [String], at date: Date = Date()) throws(NewsstandError) -> Snapshot {
        let digest = Self.digest(keys)
        let known = try? pool.read { db in
            try Row.fetchOne(db, sql: "SELECT first_loaded, catalog_keys, catalog_digest FROM subscription WHERE name = ?",
                             arguments: [subscription])
        }
        if let row = known ?? nil, let count: Int = row[1], let stored: Int64 = row[2], count == keys.count, stored == digest {
            return Snapshot(records: sparseRecords(subscription), untouched: Self.untouched(since: row[0]), firstSeen: 0)
        }
        let (firstLoaded, firstSeen) = try write { db -> (Double, Int) in
            var firstLoaded = try Double.fetchOne(db, sql: "SELECT first_loaded FROM subscription WHERE name = ?", arguments: [subscription])
            let firstLoad = firstLoaded == nil
            if firstLoad {
                firstLoaded = date.timeIntervalSince1970
                try db.execute(sql: "INSERT INTO subscription (name, first_loaded) VALUES (?, ?)", arguments: [subscription, firstLoaded])
            }
            // One statement for every key (SQLite walks the list): a row bound and run per key
            // was a tenth of a first refresh of 10,000 issues. A back issue of a first load is
            // seen when the subscription was first loaded; a key already recorded stays as it is.
            try db.execute(sql: """
                INSERT OR IGNORE INTO issue (subscription, key, first_seen, arrived_later)
                SELECT ?, value, ?, ? FROM json_each(?)
                """, arguments: [subscription, firstLoad ? firstLoaded : date.timeIntervalSince1970, firstLoad ? 0 : 1, Self.jsonArray(keys)])
            let added = db.changesCount
            try db.execute(sql: "UPDATE subscription SET catalog_keys = ?, catalog_digest = ? WHERE name = ?",
                           arguments: [keys.count, digest, subscription])
            return (firstLoaded!, added)
        }
        return Snapshot(records: sparseRecords(subscription), untouched: Self.untouched(since: firstLoaded), firstSeen: firstSeen)
    }

    private func sparseRecords(_ subscription: String) -> [String: Record] {
        (try? pool.read { db in
            try Self.fetch(db, """
                WHERE subscription = ? AND (arrived_later = 1 OR read_at IS NOT NULL OR opened_at IS NOT NULL
                    OR downloaded_at IS NOT NULL OR pinned = 1)
                """, [subscription])
        })?[subscription] ?? [:]
    }

    private static func untouched(since firstLoaded: Double) -> Record {
        Record(firstSeen: Date(timeIntervalSince1970: firstLoaded), arrivedLater: false, readAt: nil, openedAt: nil,
               downloadedAt: nil, pinned: false)
    }

    /// The keys as a JSON array of strings, for `json_each`.
    static func jsonArray(_ keys: [String]) -> String {
        var json: [UInt8] = [UInt8(ascii: "[")]
        json.reserveCapacity(keys.reduce(2) { $0 + $1.utf8.count + 3 })
        for (position, key) in keys.enumerated() {
            if position > 0 { json.append(UInt8(ascii: ",")) }
            json.append(UInt8(ascii: "\""))
            for byte in key.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    json += [UInt8(ascii: "\\"), byte]
                case 0..<0x20:
                    json += Array(String(format: "\\u%04x", byte).utf8)
                default:
                    json.append(byte)
                }
            }
            json.append(UInt8(ascii: "\""))
        }
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }

    /// An order-free digest of a key set: the XOR of each key's 64-bit FNV-1a hash.
    static func digest(_ keys: [String]) -> Int64 {
        var digest: UInt64 = 0
        for key in keys {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            digest ^= hash
        }
        return Int64(bitPattern: digest)
    }

    /// One issue's record.
    public func record(subscription: String, key: String) -> Record? {
        (try? pool.read { db in try Self.fetch(db, "WHERE subscription = ? AND key = ?", [subscription, key]) })?[subscription]?[key]
    }

    /// Every record, by subscription and key.
    public func allRecords() -> [String: [String: Record]] {
        (try? pool.read { db in try Self.fetch(db, "", []) }) ?? [:]
    }

    private static func fetch(_ db: Database, _ filter: String, _ arguments: StatementArguments) throws -> [String: [String: Record]] {
        var result: [String: [String: Record]] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT subscription, key, first_seen, arrived_later, read_at, opened_at, downloaded_at, pinned FROM issue \(filter)
            """, arguments: arguments)
        func date(_ value: Double?) -> Date? { value.map(Date.init(timeIntervalSince1970:)) }
        while let row = try rows.next() {
            let record = Record(
                firstSeen: Date(timeIntervalSince1970: row[2]), arrivedLater: row[3], readAt: date(row[4]), openedAt: date(row[5]),
                downloadedAt: date(row[6]), pinned: row[7])
            result[row[0], default: [:]][row[1]] = record
        }
        return result
    }

    /// Marks issues read (now) or unread.
    public func setRead(_ read: Bool, subscription: String, keys: [String], at date: Date = Date()) throws(NewsstandError) {
        try update(subscription, keys, sql: read ? "read_at = COALESCE(read_at, ?)" : "read_at = NULL", read ? [date.timeIntervalSince1970] : [])
    }

    public func setPinned(_ pinned: Bool, subscription: String, keys: [String]) throws(NewsstandError) {
        try update(subscription, keys, sql: "pinned = ?", [pinned])
    }

    /// Records that the issue was opened in a reader, which also makes it read.
    public func markOpened(subscription: String, key: String, at date: Date = Date()) throws(NewsstandError) {
        let time = date.timeIntervalSince1970
        try update(subscription, [key], sql: "opened_at = ?, read_at = COALESCE(read_at, ?)", [time, time])
    }

    public func markDownloaded(subscription: String, key: String, at date: Date = Date()) throws(NewsstandError) {
        try update(subscription, [key], sql: "downloaded_at = ?", [date.timeIntervalSince1970])
    }

    private func update(_ subscription: String, _ keys: [String], sql: String, _ values: [(any DatabaseValueConvertible)?]) throws(NewsstandError) {
        try write { db in
            let now = Date().timeIntervalSince1970
            // An issue marked before any load recorded it (a script's `mark`) gets its row now.
            let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO issue (subscription, key, first_seen) VALUES (?, ?, ?)")
            let change = try db.makeStatement(sql: "UPDATE issue SET \(sql) WHERE subscription = ? AND key = ?")
            for key in keys {
                try insert.execute(arguments: [subscription, key, now])
                try change.execute(arguments: StatementArguments(values + [subscription, key]))
            }
        }
    }

    /// Forgets a subscription (after `unsubscribe`).
    public func forget(subscription: String) throws(NewsstandError) {
        try write { db in
            try db.execute(sql: "DELETE FROM issue WHERE subscription = ?", arguments: [subscription])
            try db.execute(sql: "DELETE FROM subscription WHERE name = ?", arguments: [subscription])
        }
    }
}
