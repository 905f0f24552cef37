import Foundation
import Synchronization

/// An exclusive `flock` on a file or a folder, held by this value until it is dropped (or the
/// process dies: the kernel releases it then). It lets one `sync` run at a time, and one process
/// write an issue's part file.
struct FileLock: ~Copyable, Sendable {
    private let descriptor: Int32

    /// Takes the lock on the file at `path` (made if missing, never through a symlink) without
    /// waiting; throws `whenHeld` when another process (or another descriptor of this one) holds it.
    init(path: String, whenHeld: @autoclosure () -> NewsstandError) throws(NewsstandError) {
        descriptor = try Self.take(open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644), path, whenHeld)
    }

    /// Takes the lock on the existing folder at `path` (never through a symlink), as
    /// ``init(path:whenHeld:)`` does on a file. A folder's lock needs no file of its own: on a
    /// file system without a journal, making a file scans the inode table past every file
    /// deleted in the last minutes, half a millisecond each in a sync that downloads.
    init(folder path: String, whenHeld: @autoclosure () -> NewsstandError) throws(NewsstandError) {
        descriptor = try Self.take(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW), path, whenHeld)
    }

    private static func take(_ descriptor: Int32, _ path: String, _ whenHeld: () -> NewsstandError) throws(NewsstandError) -> Int32 {
        guard descriptor >= 0 else { throw FileOps.error(errno, "lock", path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw whenHeld()
        }
        return descriptor
    }

    deinit {
        close(descriptor)
    }
}

/// A ``FileLock`` held by reference, for a holder that is copied (a download job in the queue's
/// table): released by ``release()`` when the job ends, whoever still holds a copy of the job,
/// or at the latest when the last reference goes.
final class SharedFileLock: Sendable {
    private let lock: Mutex<FileLock?>

    init(_ lock: consuming FileLock) {
        self.lock = Mutex(Optional(lock))
    }

    /// Releases the lock now; later calls do nothing.
    func release() {
        lock.withLock { held in
            _ = held.take()
        }
    }
}
