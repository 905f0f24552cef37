import Foundation

/// A value behind a lock: the one way newsstand shares mutable state between threads.
///
/// Built on `pthread_mutex_t` rather than `Synchronization.Mutex`: ThreadSanitizer understands
/// pthread locks but not the standard library's futex-based Mutex, and reported races that were
/// not there once threads contended for one (the test server under the kill stress test).
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; keep it short and never call back out.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
