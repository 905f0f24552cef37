import Foundation

/// What the reader has done with each issue, kept in SQLite under `$XDG_DATA_HOME/newsstand/`:
/// when it was first seen, read, opened and downloaded, and whether it is pinned.
///
/// The database is in WAL mode, so a shelf and a `sync` (two processes) read and write it at
/// once; each change is one short transaction, and a writer waits up to ten seconds for another.
///
/// The issues of a subscription's first load are back issues with one and the same record
/// (seen at that load, untouched): they are kept as the list of their keys beside the
/// subscription, and an issue gets a row of its own only when it arrives later or is marked.
/// A row each for a first load of 10,000 issues took a fifth of that first refresh, and put a
/// megabyte in the log to be copied into the database as the process ended.
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

    private let opening: Opening

    /// Opens (creating and migrating) the database at `path`.
    public convenience init(path: String) throws(NewsstandError) {
        self.init(opening: Opening())
        opening.finish(Self.open(path))
        try opened()
    }

    /// Opens (creating and migrating) the database at `path` on a thread of its own, for a
    /// command that fetches first: a first refresh spent 1 to 3 ms creating the database (its
    /// folder, three syncs of the disk, the schema) before its request could start. Whatever
    /// needs the database waits for the open; ``opened()`` says whether it failed.
    public static func openingInBackground(path: String) -> ReadingState {
        let state = ReadingState(opening: Opening())
        let opening = state.opening
        if !BareThread.detach({ opening.finish(Self.open(path)) }) {
            opening.finish(Self.open(path))
        }
        return state
    }

    private init(opening: Opening) {
        self.opening = opening
    }

    /// Returns once the database is open; throws when it could not be, as the opening
    /// initialiser does. Every method that throws throws this first; those that do not answer
    /// as if nothing was recorded.
    public func opened() throws(NewsstandError) {
        _ = try opening.database()
    }

    private static func open(_ path: String) -> Result<SQLiteDatabase, NewsstandError> {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileOps.makeDirectory(folder, trusted: folder)
        } catch {
            return .failure(error)
        }
        do {
            let database = try SQLiteDatabase(path: path)
            try migrate(database)
            return .success(database)
        } catch {
            return .failure(NewsstandError(.fileSystem, "The reading-state database \(path) cannot be opened (\(error)); move it aside to start afresh."))
        }
    }

    /// The database, once its open is done (on whichever thread does it).
    private final class Opening: Sendable {
        private let done = DispatchGroup()
        private let result = Locked<Result<SQLiteDatabase, NewsstandError>?>(nil)

        init() {
            done.enter()
        }

        func finish(_ opened: Result<SQLiteDatabase, NewsstandError>) {
            result.withLock { $0 = opened }
            done.leave()
        }

        func database() throws(NewsstandError) -> SQLiteDatabase {
            done.wait()
            // Set before `done` was left, never again.
            guard let opened = result.withLock({ $0 }) else { preconditionFailure("the reading state's open finished without a result") }
            return try opened.get()
        }
    }

    /// The schema's versions, in order; `PRAGMA user_version` says how many are applied.
    private static let migrations = [
        """
        CREATE TABLE IF NOT EXISTS issue (
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
        CREATE TABLE IF NOT EXISTS subscription (
            name TEXT PRIMARY KEY,
            first_loaded REAL NOT NULL
        ) WITHOUT ROWID;
        """,
        // What the last load of each subscription's catalog showed, so that a load showing the
        // same issues need not look for new ones among a hundred thousand.
        """
        ALTER TABLE subscription ADD COLUMN catalog_keys INTEGER;
        ALTER TABLE subscription ADD COLUMN catalog_digest INTEGER;
        """,
        // The keys of the first load, as a JSON list: those issues have no rows of their own
        // until they are marked. (Subscriptions first loaded before this keep their rows.)
        """
        ALTER TABLE subscription ADD COLUMN first_keys TEXT;
        """,
    ]

    /// Brings the schema up to date: nothing to write when it is (most opens).
    private static func migrate(_ database: SQLiteDatabase) throws {
        func recorded(_ connection: SQLiteDatabase.Connection) throws -> Int {
            var version = 0
            try connection.query("PRAGMA user_version") { version = Int($0.integer(0)) }
            return version
        }
        func version(_ connection: SQLiteDatabase.Connection) throws -> Int {
            let version = try recorded(connection)
            guard version < migrations.count else { return version }
            // What the schema holds says which migrations were applied: versions that kept their
            // schema with GRDB recorded none in user_version, and a version that knew fewer
            // migrations sets user_version back to its own count when it opens the database.
            var tables = 0, keyColumns = 0, firstKeyColumns = 0
            try connection.query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'issue'") { tables = Int($0.integer(0)) }
            try connection.query("SELECT count(*) FROM pragma_table_info('subscription') WHERE name = 'catalog_keys'") { keyColumns = Int($0.integer(0)) }
            try connection.query("SELECT count(*) FROM pragma_table_info('subscription') WHERE name = 'first_keys'") { firstKeyColumns = Int($0.integer(0)) }
            return max(version, firstKeyColumns > 0 ? 3 : keyColumns > 0 ? 2 : tables > 0 ? 1 : 0)
        }
        if try database.read({ try recorded($0) }) == migrations.count { return }
        try database.write { connection in
            for migration in migrations.dropFirst(try version(connection)) { try connection.execute(migration) }
            try connection.execute("PRAGMA user_version = \(migrations.count)")
        }
    }

    private func write<T>(_ body: (SQLiteDatabase.Connection) throws -> T) throws(NewsstandError) -> T {
        let database = try opening.database()
        do {
            return try database.write(body)
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
        var known: (firstLoaded: Double, count: Int64?, digest: Int64?)?
        try? opening.database().read { connection in
            try connection.query("SELECT first_loaded, catalog_keys, catalog_digest FROM subscription WHERE name = ?", [.text(subscription)]) {
                known = ($0.real(0), $0.optionalInteger(1), $0.optionalInteger(2))
            }
        }
        // A first load records its keys as JSON too, made in the same pass as the digest: each
        // pass over a catalog's 10,000 keys was 2 ms, most of it waiting on memory.
        let (firstKeysJSON, digest) = known == nil ? Self.jsonArrayAndDigest(keys) : (nil, Self.digest(keys))
        if let known, known.count == Int64(keys.count), known.digest == digest {
            return Snapshot(records: sparseRecords(subscription), untouched: Self.untouched(since: known.firstLoaded), firstSeen: 0)
        }
        let (firstLoaded, firstSeen) = try write { connection -> (Double, Int) in
            var firstLoaded: Double?
            var firstKeys: JSONKeyIndex?
            try connection.query("SELECT first_loaded, first_keys FROM subscription WHERE name = ?", [.text(subscription)]) { row in
                firstLoaded = row.real(0)
                firstKeys = row.withText(1) { JSONKeyIndex(json: $0) }
            }
            // Keys with rows: usually none at a first load (an issue marked before any load, by a
            // script's `mark`, has one). A changed catalog is mostly the issues already recorded:
            // they are read in one pass and left out, rather than each looked up by the insert (a
            // thousand lookups were a tenth of a sync of a hundred subscriptions).
            var recorded = Set<String>()
            try connection.query("SELECT key FROM issue WHERE subscription = ?", [.text(subscription)]) { recorded.insert($0.text(0)) }
            guard let firstLoaded else {
                let loaded = date.timeIntervalSince1970
                try connection.execute("""
                    INSERT INTO subscription (name, first_loaded, first_keys, catalog_keys, catalog_digest) VALUES (?, ?, ?, ?, ?)
                    """, [.text(subscription), .real(loaded), .text(firstKeysJSON ?? Self.jsonArray(keys)), .integer(Int64(keys.count)), .integer(digest)])
                // A catalog's keys are distinct.
                return (loaded, recorded.isEmpty ? keys.count : keys.count { !recorded.contains($0) })
            }
            if firstKeys == nil {
                try connection.query("SELECT value FROM json_each((SELECT first_keys FROM subscription WHERE name = ?))", [.text(subscription)]) {
                    recorded.insert($0.text(0))
                }
            }
            let unseen = keys.filter { !recorded.contains($0) && !(firstKeys?.contains($0) ?? false) }
            var added = 0
            if !unseen.isEmpty {
                // One statement for every key (SQLite walks the list): a row bound and run per key
                // was a tenth of a first refresh of 10,000 issues.
                try connection.execute("""
                    INSERT OR IGNORE INTO issue (subscription, key, first_seen, arrived_later)
                    SELECT ?, value, ?, 1 FROM json_each(?)
                    """, [.text(subscription), .real(date.timeIntervalSince1970), .text(Self.jsonArray(unseen))])
                added = connection.changes
            }
            try connection.execute("UPDATE subscription SET catalog_keys = ?, catalog_digest = ? WHERE name = ?",
                                   [.integer(Int64(keys.count)), .integer(digest), .text(subscription)])
            return (firstLoaded, added)
        }
        return Snapshot(records: sparseRecords(subscription), untouched: Self.untouched(since: firstLoaded), firstSeen: firstSeen)
    }

    private func sparseRecords(_ subscription: String) -> [String: Record] {
        (try? opening.database().read { connection in
            try Self.fetch(connection, """
                WHERE subscription = ? AND (arrived_later = 1 OR read_at IS NOT NULL OR opened_at IS NOT NULL
                    OR downloaded_at IS NOT NULL OR pinned = 1)
                """, [.text(subscription)])
        })?[subscription] ?? [:]
    }

    private static func untouched(since firstLoaded: Double) -> Record {
        Record(firstSeen: Date(timeIntervalSince1970: firstLoaded), arrivedLater: false, readAt: nil, openedAt: nil,
               downloadedAt: nil, pinned: false)
    }

    /// The keys as a JSON array of strings, for `json_each`.
    static func jsonArray(_ keys: [String]) -> String {
        jsonArray(keys, digesting: false).json
    }

    /// The keys as a JSON array of strings and their ``digest(_:)``, in one pass over the keys.
    static func jsonArrayAndDigest(_ keys: [String]) -> (json: String, digest: Int64) {
        jsonArray(keys, digesting: true)
    }

    private static func jsonArray(_ keys: [String], digesting: Bool) -> (json: String, digest: Int64) {
        var json: [UInt8] = [UInt8(ascii: "[")]
        json.reserveCapacity(keys.reduce(2) { $0 + $1.utf8.count + 3 })
        var digest: UInt64 = 0
        for (position, var key) in keys.enumerated() {
            if position > 0 { json.append(UInt8(ascii: ",")) }
            json.append(UInt8(ascii: "\""))
            key.withUTF8 { bytes in
                if digesting { digest ^= JSONKeyIndex.fnv1a(bytes) }
                // A local key never needs escaping: copied whole (byte by byte was a third of recording 10,000 first sightings).
                if LocalKey.isValid(bytes) {
                    json.append(contentsOf: bytes)
                    return
                }
                for byte in bytes {
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                        json += [UInt8(ascii: "\\"), byte]
                    case 0..<0x20:
                        json += Array(String(format: "\\u%04x", byte).utf8)
                    default:
                        json.append(byte)
                    }
                }
            }
            json.append(UInt8(ascii: "\""))
        }
        json.append(UInt8(ascii: "]"))
        return (String(decoding: json, as: UTF8.self), Int64(bitPattern: digest))
    }

    /// An order-free digest of a key set: the XOR of each key's 64-bit FNV-1a hash.
    static func digest(_ keys: [String]) -> Int64 {
        var digest: UInt64 = 0
        for var key in keys {
            digest ^= key.withUTF8(JSONKeyIndex.fnv1a)
        }
        return Int64(bitPattern: digest)
    }

    /// A number that changes when another connection (another process) commits a change:
    /// SQLite's `data_version`, which this connection's own writes leave as it is.
    public func changeCounter() -> Int64? {
        var version: Int64?
        try? opening.database().read { try $0.query("PRAGMA data_version") { version = $0.integer(0) } }
        return version
    }

    /// One issue's record.
    public func record(subscription: String, key: String) -> Record? {
        let found = try? opening.database().read { connection -> Record? in
            if let row = try Self.fetch(connection, "WHERE subscription = ? AND key = ?", [.text(subscription), .text(key)])[subscription]?[key] {
                return row
            }
            var firstLoaded: Double?
            try connection.query("""
                SELECT first_loaded FROM subscription, json_each(subscription.first_keys) WHERE name = ? AND value = ?
                """, [.text(subscription), .text(key)]) { firstLoaded = $0.real(0) }
            return firstLoaded.map(Self.untouched(since:))
        }
        return found ?? nil
    }

    /// Every record, by subscription and key: the first loads' back issues included.
    public func allRecords() -> [String: [String: Record]] {
        (try? opening.database().read { connection in
            var records = try Self.fetch(connection, "", [])
            try connection.query("SELECT name, first_loaded, value FROM subscription, json_each(subscription.first_keys)") { row in
                let (name, key) = (row.text(0), row.text(2))
                if records[name]?[key] == nil { records[name, default: [:]][key] = Self.untouched(since: row.real(1)) }
            }
            return records
        }) ?? [:]
    }

    private static func fetch(_ connection: SQLiteDatabase.Connection, _ filter: String, _ values: [SQLiteDatabase.Value]) throws -> [String: [String: Record]] {
        var result: [String: [String: Record]] = [:]
        func date(_ value: Double?) -> Date? { value.map(Date.init(timeIntervalSince1970:)) }
        try connection.query("""
            SELECT subscription, key, first_seen, arrived_later, read_at, opened_at, downloaded_at, pinned FROM issue \(filter)
            """, values) { row in
            let record = Record(
                firstSeen: Date(timeIntervalSince1970: row.real(2)), arrivedLater: row.integer(3) != 0, readAt: date(row.optionalReal(4)),
                openedAt: date(row.optionalReal(5)), downloadedAt: date(row.optionalReal(6)), pinned: row.integer(7) != 0)
            result[row.text(0), default: [:]][row.text(1)] = record
        }
        return result
    }

    /// Marks issues read (now) or unread.
    public func setRead(_ read: Bool, subscription: String, keys: [String], at date: Date = Date()) throws(NewsstandError) {
        try update(subscription, keys, sql: read ? "read_at = COALESCE(read_at, ?)" : "read_at = NULL", read ? [.real(date.timeIntervalSince1970)] : [])
    }

    public func setPinned(_ pinned: Bool, subscription: String, keys: [String]) throws(NewsstandError) {
        try update(subscription, keys, sql: "pinned = ?", [.integer(pinned ? 1 : 0)])
    }

    /// Records that the issue was opened in a reader, which also makes it read.
    public func markOpened(subscription: String, key: String, at date: Date = Date()) throws(NewsstandError) {
        let time = date.timeIntervalSince1970
        try update(subscription, [key], sql: "opened_at = ?, read_at = COALESCE(read_at, ?)", [.real(time), .real(time)])
    }

    public func markDownloaded(subscription: String, key: String, at date: Date = Date()) throws(NewsstandError) {
        try update(subscription, [key], sql: "downloaded_at = ?", [.real(date.timeIntervalSince1970)])
    }

    private func update(_ subscription: String, _ keys: [String], sql: String, _ values: [SQLiteDatabase.Value]) throws(NewsstandError) {
        try write { connection in
            let now = Date().timeIntervalSince1970
            // An issue without a row gets one now: a back issue of the first load, or one marked
            // before any load recorded it (a script's `mark`).
            let insert = try connection.prepare("INSERT OR IGNORE INTO issue (subscription, key, first_seen) VALUES (?, ?, ?)")
            let change = try connection.prepare("UPDATE issue SET \(sql) WHERE subscription = ? AND key = ?")
            var madeRows: [String] = []
            for key in keys {
                try insert.run([.text(subscription), .text(key), .real(now)])
                if connection.changes > 0 { madeRows.append(key) }
                try change.run(values + [.text(subscription), .text(key)])
            }
            guard !madeRows.isEmpty else { return }
            // A back issue was seen at the first load, not now.
            var firstLoaded: Double?
            var firstKeys = Set<String>()
            try connection.query("SELECT first_loaded, value FROM subscription, json_each(subscription.first_keys) WHERE name = ?",
                                 [.text(subscription)]) { row in
                firstLoaded = row.real(0)
                firstKeys.insert(row.text(1))
            }
            guard let firstLoaded else { return }
            let dated = try connection.prepare("UPDATE issue SET first_seen = ? WHERE subscription = ? AND key = ?")
            for key in madeRows where firstKeys.contains(key) {
                try dated.run([.real(firstLoaded), .text(subscription), .text(key)])
            }
        }
    }

    /// Forgets a subscription (after `unsubscribe`).
    public func forget(subscription: String) throws(NewsstandError) {
        try write { connection in
            try connection.execute("DELETE FROM issue WHERE subscription = ?", [.text(subscription)])
            try connection.execute("DELETE FROM subscription WHERE name = ?", [.text(subscription)])
        }
    }
}
