import Foundation

/// A C library opened with `dlopen` when first needed rather than linked (libcurl, ncursesw,
/// chafa, stb): its shim's table of entry points, filled once and kept for the process's life.
public enum EntryPointTable {
    /// Fills a fresh table with `open` (the shim's `…_library_open`, which returns nil when every
    /// entry point was found, "" when the library could not be opened, or the missing symbol's
    /// name). Returns the table, or why not in words for an error message.
    public static func load<Table>(_ name: String, empty: Table,
                                   _ open: (UnsafeMutablePointer<Table>, String) -> UnsafePointer<CChar>?) -> Result<UnsafePointer<Table>, Failure> {
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        table.initialize(to: empty)
        guard let missing = open(table, name) else { return .success(UnsafePointer(table)) }
        let reason = missing.pointee == 0 ? dlerror().map { String(cString: $0) } ?? "" : "it has no \(String(cString: missing))"
        table.deinitialize(count: 1)
        table.deallocate()
        return .failure(Failure(reason: reason))
    }

    /// Why a library could not be used: dlerror's words, or the entry point it lacks.
    public struct Failure: Error, Sendable {
        public let reason: String
    }
}
