import Foundation

/// A file in memory only (a memfd), owned and closed by this object: the destination of a body
/// that is read once and dropped, such as a feed's later page.
///
/// A file made on disk for each page cost more than its bytes: on a file system without a
/// journal, making a file scans the inode table past every file deleted in the last minutes,
/// and a refresh of a feed of 100 pages made and removed 100 of them.
final class MemoryFile: Sendable {
    let descriptor: Int32

    init() throws(NewsstandError) {
        let descriptor = FileOps.makeMemoryFile(named: "newsstand-body")
        guard descriptor >= 0 else { throw FileOps.error(errno, "make a file in memory for", "a download") }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// What was written: copied when small, mapped when large (the mapping stays valid after
    /// this file is closed). Unmapping in a process with several threads interrupts every core
    /// that runs one of them to flush its address cache; for the 50 KB of a feed's page that
    /// cost more than the copy (a refresh of 100 pages: CPU 285 → 266 ms, copied).
    func contents() -> Data {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return Data() }
        let size = Int(info.st_size)
        if size >= Self.mappedSize, let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED {
            return Data(bytesNoCopy: mapped, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
        }
        // Read into memory not zeroed first: `Data(count:)` wrote every byte once before the read did.
        guard let bytes = malloc(size) else { return Data() }
        guard pread(descriptor, bytes, size, 0) == size else {
            free(bytes)
            return Data()
        }
        return Data(bytesNoCopy: bytes, count: size, deallocator: .free)
    }

    /// From this size on, the bytes are mapped rather than copied.
    static let mappedSize = 1 << 20
}
