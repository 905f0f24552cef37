import Foundation

/// A value behind a lock: the one way newsstand shares mutable state between threads.
///
/// Built on `pthread_mutex_t` rather than `Synchronization.Mutex`: ThreadSanitizer understands
/// pthread locks but not the standard library's futex-based Mutex, and reported races that were
/// not there once threads contended for one (the test server under the kill stress test).
///
/// The value and its mutex are one allocation (a buffer whose tail is the mutex, as swift-nio's
/// `LockStorage`): every issue of a catalog has one, and a mutex allocated apart was one
/// allocation in twenty of a first refresh. Copies share the one value and lock.
public struct Locked<Value: Sendable>: @unchecked Sendable {
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    private let storage: Storage

    public init(_ value: Value) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
        _ = storage.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
    }

    /// Runs `body` with the value, holding the lock; keep it short and never call back out.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
