import Foundation

/// Where a response body goes: a file, written in large pieces, with writeback started as it
/// grows; or memory. Confined to the transfer's thread.
final class FileSink {
    private let path: String
    private var descriptor: Int32 = -1
    /// Where the body goes instead of the file, when it is kept in memory.
    private let memory: MemoryBody?
    /// Where the body's first byte goes in the file.
    let base: Int64

    /// Writes go to disk in pieces this large: far fewer system calls than libcurl's own chunks
    /// on a slow connection (a few KB each). Larger saves no time, and costs resident memory.
    private static let bufferSize = 256 << 10
    /// Chunks at least this large are written without going through the buffer.
    private static let directWriteSize = 128 << 10
    /// Writeback is started every this many bytes: the disk works while the network does, and
    /// the sync before an issue is installed has only the tail left to wait for.
    private static let writebackStep: Int64 = 8 << 20

    /// Allocated with the first body bytes, no larger than the body: a cover of 100 KB needs no
    /// megabyte (whose mapping and unmapping cost more than fetching it).
    private var buffer: UnsafeMutableRawPointer?
    private var bufferCapacity = 0
    private var buffered = 0
    /// Bytes of the body written to the file so far.
    private var written: Int64 = 0
    /// Where in the body the kernel has not been asked to start writing to the disk yet.
    private var writebackFrom: Int64 = 0
    private var lastFlush = DispatchTime.now().uptimeNanoseconds
    private let expectedLength: Int64?
    /// The file's SHA-256, computed behind the writes, when the request asked for it.
    let digest: GrowingFileDigest?

    /// Opens `path` (never following a link) and places the body at `base`, cutting what lies
    /// beyond; with `hashing`, the file's SHA-256 is computed as it is written, from its start.
    /// `memory`, when given, is where the whole body goes instead of `path`, which then only
    /// names it (so `base` is 0, and `hashing`, which reads the file at `path` back, is for a file
    /// on disk).
    init(path: String, in memory: MemoryBody? = nil, base: Int64, expectedLength: Int64?, hashing: Bool = false) throws(NewsstandError) {
        self.path = path
        self.base = base
        self.expectedLength = expectedLength
        self.memory = memory
        if let memory {
            memory.start(expectedLength: expectedLength)
            digest = nil
            return
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FileOps.error(errno, "open", path) }
        self.descriptor = descriptor
        // Truncating a file to nothing makes ext4 start writing it back when it is closed
        // (its guard for rename-over-truncate): only truncate when there is something to cut.
        var information = stat()
        let size = fstat(descriptor, &information) == 0 ? Int64(information.st_size) : -1
        if (size != base && ftruncate(descriptor, off_t(base)) != 0) || lseek(descriptor, off_t(base), SEEK_SET) < 0 {
            throw FileOps.error(errno, "prepare", path)
        }
        digest = hashing ? try GrowingFileDigest(path: path) : nil
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
        buffer?.deallocate()
    }

    /// Takes body bytes; flushes what was buffered when it has waited half a second, so that a
    /// slow transfer does not keep seconds of data only in memory, where a crash loses it.
    func write(_ bytes: UnsafeRawBufferPointer) throws(NewsstandError) {
        if let memory {
            memory.append(bytes)
            return
        }
        if buffer == nil {
            let body = expectedLength.map { Int(min($0, Int64(Self.bufferSize))) } ?? Self.bufferSize
            bufferCapacity = max(16 << 10, (body + 4095) / 4096 * 4096)
            buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferCapacity, alignment: 4096)
        }
        if buffered + bytes.count > bufferCapacity { try flush() }
        // At full speed libcurl hands over its whole 512 KiB buffer: write that straight from
        // libcurl's memory rather than copy it into ours first.
        if bytes.count >= bufferCapacity || (buffered == 0 && bytes.count >= Self.directWriteSize) {
            try writeAll(bytes)
        } else if let source = bytes.baseAddress, let buffer {
            (buffer + buffered).copyMemory(from: source, byteCount: bytes.count)
            buffered += bytes.count
        }
        if buffered > 0 && DispatchTime.now().uptimeNanoseconds - lastFlush >= 500_000_000 { try flush() }
    }

    func flush() throws(NewsstandError) {
        lastFlush = DispatchTime.now().uptimeNanoseconds
        guard buffered > 0, let buffer else { return }
        let count = buffered
        buffered = 0
        try writeAll(UnsafeRawBufferPointer(start: buffer, count: count))
    }

    /// Flushes and closes; returns the file's size.
    func close() throws(NewsstandError) -> Int64 {
        if let memory { return Int64(memory.count) }
        defer {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
        try flush()
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(NewsstandError) {
        let failure = FileOps.writeAll(bytes, to: descriptor)
        if failure != 0 { throw FileOps.error(failure, "write", path) }
        written += Int64(bytes.count)
        digest?.advance(to: base + written)
        if written - writebackFrom >= Self.writebackStep {
            FileOps.startWriteback(descriptor, offset: base + writebackFrom, length: written - writebackFrom)
            writebackFrom = written
        }
    }
}
