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

    /// What was written, mapped rather than copied; the mapping stays valid after this file is closed.
    func contents() -> Data {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return Data() }
        let size = Int(info.st_size)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            var bytes = Data(count: size)
            let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, 0) }
            return read == size ? bytes : Data()
        }
        return Data(bytesNoCopy: mapped, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }
}
