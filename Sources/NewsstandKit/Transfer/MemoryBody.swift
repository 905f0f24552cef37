import Foundation

/// A response body kept in this process's memory, owned by this object: the destination of a
/// body that is read once and dropped, a catalog's pages. Written on the transfer's thread, read
/// once the transfer has ended.
///
/// A file made on disk for each page cost more than its bytes (on a file system without a
/// journal, making a file scans the inode table past every file deleted in the last minutes).
/// A file in memory (a memfd) after it cost a third of the transfer thread's time for each page
/// of a feed of 100: fresh pages of shared memory for every body, written to and read back.
/// Here the bytes are copied once, out of libcurl's buffer, into memory that the pages before
/// freed.
final class MemoryBody: Sendable {
    private let bytes = Locked(Data())

    /// Drops what was written, and makes room for `expectedLength` bytes (a body starts anew: a
    /// redirect's or a retry's second answer replaces the first). Room is made for at most
    /// ``largestReservation`` bytes: a length a server states costs memory only as its bytes arrive.
    func start(expectedLength: Int64?) {
        let capacity = Int(clamping: min(max(0, expectedLength ?? 0), Int64(Self.largestReservation)))
        // A large catalog's page in 2 MiB pages, where the command asked for them: the transfer's
        // thread otherwise faulted a 5.5 MB page in 4 KiB at a time (1,400 faults of about 4 µs).
        if capacity >= 1 << 20 { ProcessMemory.adviseHugePagesForThisThread() }
        bytes.withLock { $0 = Data(capacity: capacity) }
    }

    /// The most room made before the bytes arrive.
    static let largestReservation = 16 << 20

    func append(_ chunk: UnsafeRawBufferPointer) {
        bytes.withLock { $0.append(contentsOf: chunk) }
    }

    /// How many bytes were written.
    var count: Int { bytes.withLock { $0.count } }

    /// What was written (not copied).
    func contents() -> Data {
        bytes.withLock { $0 }
    }
}
