import CLinux
import Foundation

/// Small system-call helpers that turn errno into ``NewsstandError``.
enum FileOps {
    static func error(_ code: Int32, _ operation: String, _ path: String) -> NewsstandError {
        if code == ENOSPC || code == EDQUOT {
            return NewsstandError(.diskFull, "The disk is full: free some space, then try again; nothing already downloaded was lost.")
        }
        if code == ELOOP {
            return NewsstandError(.fileSystem, "Refused to follow a symbolic link at \(path).")
        }
        return NewsstandError(.fileSystem, "Could not \(operation) \(path): \(String(cString: strerror(code))).")
    }

    /// The size of a regular file, or nil when there is none (a link is not followed).
    static func regularFileSize(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// When `path` was last modified; nil when it cannot be looked at.
    static func modificationDate(_ path: String) -> Date? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Sets `path`'s modification time (and its access time) to `date`: a change of the inode
    /// alone, which no crash can leave half made.
    static func setModificationDate(_ path: String, to date: Date) throws(NewsstandError) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let stamp = timespec(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1e9))
        var times = [stamp, stamp]
        if utimensat(AT_FDCWD, path, &times, 0) != 0 { throw error(errno, "touch", path) }
    }

    /// Creates `path` and its parents. Links up to and including `trusted` are the user's own
    /// (a linked home, say) and are followed; below it every folder must be a real one.
    static func makeDirectory(_ path: String, trusted: String) throws(NewsstandError) {
        // The usual case, an issue folder that exists: one look, not one per component. A
        // trusted folder itself may be reached through links (a fetch made sure of its scratch
        // folder, a look at each of the path's folders, for every page of a feed).
        var info = stat()
        if path == trusted {
            if stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return }
        } else if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && isBelowTrustedWithoutLinks(path, trusted: trusted) {
            return
        }
        // Start below the trusted folder when it is there; links are refused only below it.
        var current = ""
        var rest = Substring(path)
        if path.hasPrefix(trusted + "/"), stat(trusted, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            current = trusted
            rest = path.dropFirst(trusted.count)
        }
        for component in rest.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            let isTrusted = current.count <= trusted.count
            if (isTrusted ? stat(current, &info) : lstat(current, &info)) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw NewsstandError(.fileSystem, "\(current) is not a folder (a link or a file is in the way); move it aside.")
                }
                continue
            }
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw error(errno, "create", current)
            }
        }
    }

    /// Whether every component of `path` below `trusted` is a real folder, not a link.
    private static func isBelowTrustedWithoutLinks(_ path: String, trusted: String) -> Bool {
        guard path.hasPrefix(trusted + "/") else { return false }
        var current = trusted
        for component in path.dropFirst(trusted.count).split(separator: "/", omittingEmptySubsequences: true).dropLast() {
            current += "/" + component
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return false }
        }
        return true
    }

    /// Writes `data` to `path` through a temporary file and a rename, so that a crash leaves
    /// either the old file or the new one (after a power cut too, unless `durable` is false).
    static func writeAtomically(_ data: Data, to path: String, mode: mode_t = 0o644, durable: Bool = true) throws(NewsstandError) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw error(errno, "create", temporary) }
        var failure = writeAll(data, to: descriptor)
        if failure == 0 && fchmod(descriptor, mode) != 0 { failure = errno }
        if failure == 0 && durable && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw error(failure, "write", path)
        }
    }

    /// Makes `path` an empty file with room set aside on the disk for `bytes` bytes, so that
    /// writing them later (``overwrite(_:with:)``) cannot find the disk full. Only a full disk is
    /// an answer: a file system that cannot set room aside (some network and FUSE ones) is left
    /// to report it when the bytes are written.
    static func reserve(_ bytes: Int, at path: String, mode: mode_t) throws(NewsstandError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw error(errno, "create", path) }
        var failure: Int32 = fchmod(descriptor, mode) == 0 ? 0 : errno
        if failure == 0 && bytes > 0 {
            while clinux_allocate(descriptor, Int64(bytes)) != 0 {
                if errno == EINTR { continue }
                if errno == ENOSPC || errno == EDQUOT { failure = errno }
                break
            }
        }
        close(descriptor)
        if failure != 0 {
            unlink(path)
            throw error(failure, "make room for", path)
        }
    }

    /// Writes `data` over the file at `path` from its start, and cuts the file to its length:
    /// into the room ``reserve(_:at:mode:)`` set aside. Not atomic: for a scratch file renamed
    /// into place once written.
    static func overwrite(_ path: String, with data: Data) throws(NewsstandError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw error(errno, "create", path) }
        var failure = writeAll(data, to: descriptor)
        if failure == 0 && ftruncate(descriptor, off_t(data.count)) != 0 { failure = errno }
        close(descriptor)
        if failure != 0 { throw error(failure, "write", path) }
    }

    /// Writes all of `data` at the descriptor's offset; the errno of a failure, or 0.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32 {
        data.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// The most one `write` hands the kernel. The page cache sizes the folio a write creates by
    /// that write's length: one write of megabytes takes 2 MiB blocks of free memory, which a VM
    /// with free page reporting has given back to its host and must fault in again (on this
    /// project's machine, 4 MiB written at once took 15–19 ms, medians of 20; in pieces of this
    /// size, 1.3 ms).
    static let largestWrite = 256 << 10

    /// Writes all of `bytes` at the descriptor's offset, in pieces of at most ``largestWrite``;
    /// the errno of a failure, or 0.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, min(bytes.count - offset, largestWrite))
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return 0
    }

    /// Has malloc keep up to `bytes` of freed memory, and grow by as much at once (``ProcessMemory``).
    static func keepFreedMemory(upTo bytes: Int) -> Bool {
        clinux_keep_free_memory(Int32(clamping: bytes)) == 1
    }

    /// Has malloc serve blocks up to `bytes` from its heaps (``ProcessMemory``).
    static func keepLargeBlocksInHeap(upTo bytes: Int) -> Bool {
        clinux_keep_large_blocks_in_heap(Int32(clamping: bytes)) == 1
    }

    /// The whole of a file the kernel makes as it is read (`/proc`), whose size says nothing;
    /// nil when it cannot be read.
    static func contents(ofProcFile path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[0..<count])
        }
    }

    /// Has malloc's heap grow by `bytes` now (``ProcessMemory``).
    static func growHeap(by bytes: Int) {
        clinux_grow_heap(bytes)
    }

    /// Where malloc serves a small block from now, on this thread; 0 when it cannot (``ProcessMemory``).
    static func currentHeapAddress() -> UInt {
        UInt(clinux_heap_address())
    }

    /// Asks for 2 MiB pages behind `range` of the address space (``ProcessMemory``).
    static func adviseHugePages(_ range: Range<UInt>) -> Bool {
        clinux_advise_huge_pages(UnsafeMutableRawPointer(bitPattern: range.lowerBound), Int(range.upperBound - range.lowerBound)) == 0
    }

    /// Puts `range` into 2 MiB pages now (``ProcessMemory``).
    static func collapseHugePages(_ range: Range<UInt>) -> Bool {
        clinux_collapse_huge_pages(UnsafeMutableRawPointer(bitPattern: range.lowerBound), Int(range.upperBound - range.lowerBound)) == 0
    }

    /// Sets the extended attribute `name` of the file at `path` (never through a link); false with
    /// errno set when it cannot be (ENOTSUP where the file system keeps no user attributes).
    static func setAttribute(_ name: String, _ value: Data, of path: String) -> Bool {
        value.withUnsafeBytes { clinux_set_attribute(path, name, $0.baseAddress, $0.count) } == 0
    }

    /// The extended attribute `name` of the file at `path` (never through a link), or nil when it
    /// has none. Read into 4 KiB first (all ext4 keeps); a larger one, as XFS and btrfs keep, is
    /// measured and read again.
    static func attribute(_ name: String, of path: String) -> Data? {
        var capacity = 4096
        while true {
            var value = [UInt8](repeating: 0, count: capacity)
            let count = value.withUnsafeMutableBytes { clinux_get_attribute(path, name, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(value.prefix(count)) }
            guard errno == ERANGE else { return nil }
            // Measured, then read again into at least twice the room, in case it grew meanwhile.
            let size = clinux_get_attribute(path, name, nil, 0)
            guard size > 0 else { return nil }
            capacity = max(Int(size), capacity * 2)
        }
    }

    static func removeAttribute(_ name: String, of path: String) {
        _ = clinux_remove_attribute(path, name)
    }

    /// Asks the kernel to start writing a range of a file to the disk, without waiting. Errors
    /// are left to the sync that follows, which reports them.
    static func startWriteback(_ descriptor: Int32, offset: Int64, length: Int64) {
        _ = clinux_start_writeback(descriptor, offset, length)
    }

    /// Flushes a file's data to the disk.
    static func sync(_ path: String) throws(NewsstandError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw error(errno, "open", path) }
        defer { close(descriptor) }
        if fdatasync(descriptor) != 0 { throw error(errno, "sync", path) }
    }

    /// Flushes a folder, so that a rename inside it survives a crash.
    static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    static func remove(_ path: String) throws(NewsstandError) {
        if unlink(path) != 0 && errno != ENOENT { throw error(errno, "remove", path) }
    }

    /// A pipe whose ends close on exec (read end, write end), or nil with errno set.
    static func closeOnExecPipe() -> (read: Int32, write: Int32)? {
        var descriptors: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&descriptors) == 0 else { return nil }
        return (descriptors[0], descriptors[1])
    }
}
