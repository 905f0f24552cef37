import Foundation

/// The SHA-256 of a file while it is being written, computed behind the writer on another
/// thread, so that a download whose catalog gives a digest waits at its end only for the last
/// few megabytes, not for the whole file to be read back and hashed.
///
/// It hashes the file from its first byte: the bytes a resumed download kept from an earlier run
/// are read once, while the new ones arrive. A download that starts over makes a new one.
/// Whoever holds the hasher is the only one reading the file; the thread that asks for the
/// result does what the worker has not, so a busy thread pool delays nothing and blocks nothing.
final class GrowingFileDigest: @unchecked Sendable {
    private let path: String
    /// Closed (-1) once the digest is taken: a worker still queued must not keep the installed
    /// file open, where the storage budget would take it for a file a reader has open.
    private var descriptor: Int32
    private let condition = NSCondition()
    // Guarded by `condition`:
    /// Bytes the writer has written; they can be read back.
    private var written: Int64 = 0
    /// Bytes hashed so far, from the file's start.
    private var hashed: Int64 = 0
    /// Taken out by the thread that hashes, so that only one does.
    private var hasher: Digest.SHA256Stream? = Digest.SHA256Stream()
    private var workerQueued = false
    /// Why the file could not be read back (an errno), once it could not.
    private var readError: Int32 = 0
    // Used only by the holder of `hasher`:
    private var buffer: UnsafeMutableRawBufferPointer?

    /// Bytes left unhashed before the worker is woken: one wake-up per few megabytes, not one per write.
    private static let wakeStep: Int64 = 4 << 20
    private static let chunkSize = 128 << 10

    /// Opens `path` for reading; the writer has already created it.
    init(path: String) throws(NewsstandError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw FileOps.error(errno, "open", path) }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        buffer?.deallocate()
    }

    /// Says that the file's first `size` bytes are written; hashing goes on in the background.
    func advance(to size: Int64) {
        condition.lock()
        written = size
        let wake = !workerQueued && hasher != nil && readError == 0 && written - hashed >= Self.wakeStep
        if wake { workerQueued = true }
        condition.unlock()
        if wake { DispatchQueue.global(qos: .utility).async { [self] in hashInBackground() } }
    }

    /// The lowercase hex SHA-256 of the file's first `size` bytes, hashing here what the worker
    /// has not; `nil` when more than `size` bytes were hashed already (the file was cut).
    func hexDigest(ofFirst size: Int64) throws(NewsstandError) -> String? {
        condition.lock()
        defer { condition.unlock() }
        while hasher == nil { condition.wait() }
        guard hashed <= size, var taken = hasher else { return nil }
        written = size
        hasher = nil
        hashWritten(into: &taken)
        hasher = taken
        condition.broadcast()
        if readError != 0 { throw FileOps.error(readError, "read", path) }
        // The file is read to the end: its descriptor goes now, not when the last queued worker lets go.
        close(descriptor)
        descriptor = -1
        return taken.hex()
    }

    private func hashInBackground() {
        condition.lock()
        defer { condition.unlock() }
        workerQueued = false
        // Someone else holds the hasher (the last call, which finishes the work itself), or the
        // digest is taken and the file closed.
        guard var taken = hasher, readError == 0, descriptor >= 0 else { return }
        hasher = nil
        hashWritten(into: &taken)
        hasher = taken
        condition.broadcast()
    }

    /// Hashes from `hashed` to `written`, following the writer as it goes on. Called and returns
    /// with the lock held; lets it go while it reads.
    private func hashWritten(into taken: inout Digest.SHA256Stream) {
        while hashed < written && readError == 0 {
            let (from, to) = (hashed, written)
            condition.unlock()
            let error = hash(from: from, to: to, into: &taken)
            condition.lock()
            if error != 0 { readError = error } else { hashed = to }
        }
    }

    /// Reads bytes `from..<to` back and hashes them; returns 0, or the errno that stopped it.
    private func hash(from start: Int64, to end: Int64, into hasher: inout Digest.SHA256Stream) -> Int32 {
        let chunk = buffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 4096)
        buffer = chunk
        var offset = start
        while offset < end {
            let count = pread(descriptor, chunk.baseAddress, Int(min(Int64(Self.chunkSize), end - offset)), off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            // The file is shorter than what the writer said it wrote: someone cut it.
            if count == 0 { return EIO }
            hasher.add(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
            offset += Int64(count)
        }
        return 0
    }
}
