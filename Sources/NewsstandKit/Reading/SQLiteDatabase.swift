import CSQLite
import Foundation

/// One SQLite connection, used by the process's threads one at a time; it owns its handle and
/// closes it. The only file that imports SQLite.
///
/// Opened in WAL mode so that another process (a shelf and a `sync`) reads while one writes;
/// a writer waits for another up to the busy timeout. Writes take the write lock when their
/// transaction begins, so two processes never deadlock upgrading a read to a write.
final class SQLiteDatabase: @unchecked Sendable {
    /// A value bound to a statement's parameter.
    enum Value: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
    }

    /// What SQLite said when a call failed.
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        let message: String
        var description: String { message }
    }

    /// The write that takes the write-ahead log past this many pages folds it into the database
    /// (about a megabyte; SQLite's default is four).
    ///
    /// No connection folds the log as it closes: that took two syncs of the disk at the end of
    /// every command (13 ms of a first refresh here), and it is what the last connection would
    /// otherwise do. The next process reads the log instead: `list` of 19,000 issues measured the
    /// same with a 237-page log as with none.
    static let logPagesFolded = 256

    private let handle: OpaquePointer
    private let lock = NSLock()

    /// Opens (creating it if missing) the database at `path`.
    init(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws(Failure) {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(opened)
            throw Failure(code: code, message: message)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        // In WAL mode NORMAL never corrupts: a crash of the process loses nothing, a power cut at
        // worst the last few marks. FULL would sync the disk on every mark, a hundred times a sync.
        // Set before the switch to WAL, which a new database makes with one sync fewer.
        try Connection(handle: handle).execute("PRAGMA synchronous = NORMAL; PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = \(Self.logPagesFolded)")
        csqlite_keep_log_at_close(handle)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs `body` with the connection to itself.
    func read<Result>(_ body: (Connection) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(Connection(handle: handle))
    }

    /// Runs `body` in a transaction, committed when it returns and rolled back when it throws.
    func write<Result>(_ body: (Connection) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        let connection = Connection(handle: handle)
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let result = try body(connection)
            try connection.execute("COMMIT")
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The connection while its user holds it: valid only inside ``read(_:)`` or ``write(_:)``.
    struct Connection {
        fileprivate let handle: OpaquePointer

        /// Runs one or more statements that take no values.
        func execute(_ sql: String) throws(Failure) {
            var message: UnsafeMutablePointer<CChar>?
            let code = sqlite3_exec(handle, sql, nil, nil, &message)
            if code != SQLITE_OK {
                let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
                sqlite3_free(message)
                throw Failure(code: code, message: text)
            }
        }

        /// Runs one statement with `values` bound to its parameters, in order.
        func execute(_ sql: String, _ values: [Value]) throws(Failure) {
            try prepare(sql).run(values)
        }

        /// Runs a query, calling `row` for each row it gives.
        func query(_ sql: String, _ values: [Value] = [], row: (Row) throws -> Void) throws {
            let statement = try prepare(sql)
            try statement.bind(values)
            while try statement.step() {
                try row(Row(statement: statement.pointer))
            }
        }

        func prepare(_ sql: String) throws(Failure) -> Statement {
            var prepared: OpaquePointer?
            let code = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
            guard code == SQLITE_OK, let prepared else { throw failure(code) }
            return Statement(pointer: prepared, connection: self)
        }

        /// Rows changed by the last INSERT, UPDATE or DELETE.
        var changes: Int { Int(sqlite3_changes(handle)) }

        fileprivate func failure(_ code: Int32) -> Failure {
            Failure(code: code, message: String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// A prepared statement; finalised when released.
    final class Statement {
        fileprivate let pointer: OpaquePointer
        private let connection: Connection

        fileprivate init(pointer: OpaquePointer, connection: Connection) {
            self.pointer = pointer
            self.connection = connection
        }

        deinit {
            sqlite3_finalize(pointer)
        }

        /// Binds `values`, runs the statement to its end and resets it for another run.
        func run(_ values: [Value]) throws(Failure) {
            try bind(values)
            while try step() {}
        }

        fileprivate func bind(_ values: [Value]) throws(Failure) {
            sqlite3_reset(pointer)
            sqlite3_clear_bindings(pointer)
            for (offset, value) in values.enumerated() {
                let index = Int32(offset + 1)
                let code: Int32
                switch value {
                case .null: code = sqlite3_bind_null(pointer, index)
                case .integer(let number): code = sqlite3_bind_int64(pointer, index, number)
                case .real(let number): code = sqlite3_bind_double(pointer, index, number)
                case .text(let text) where text.isEmpty:
                    // An empty buffer may have no address, which SQLite would take for NULL.
                    code = csqlite_bind_text(pointer, index, "", 0)
                case .text(var text):
                    code = text.withUTF8 { bytes in
                        bytes.withMemoryRebound(to: CChar.self) { csqlite_bind_text(pointer, index, $0.baseAddress, Int32($0.count)) }
                    }
                }
                guard code == SQLITE_OK else { throw connection.failure(code) }
            }
        }

        /// Steps once: true when a row is ready, false when the statement is done.
        fileprivate func step() throws(Failure) -> Bool {
            switch sqlite3_step(pointer) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            case let code: throw connection.failure(code)
            }
        }
    }

    /// The current row of a query.
    struct Row {
        fileprivate let statement: OpaquePointer

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
        func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        func real(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
        func optionalReal(_ column: Int32) -> Double? { isNull(column) ? nil : real(column) }
        func optionalInteger(_ column: Int32) -> Int64? { isNull(column) ? nil : integer(column) }

        func text(_ column: Int32) -> String {
            withText(column) { String(decoding: $0, as: UTF8.self) }
        }

        /// The column's text where SQLite keeps it, valid only inside `body`.
        func withText<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
            guard let characters = sqlite3_column_text(statement, column) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            return body(UnsafeBufferPointer(start: characters, count: Int(sqlite3_column_bytes(statement, column))))
        }
    }
}
