import Foundation

/// A thread of the C library's own, for work that should begin at once beside the thread that
/// asks for it (loading libcurl, opening the reading state while a command starts): Foundation's
/// `Thread` began running its block 1.5 to 3 ms after it was asked (uprobes on a refresh).
enum BareThread {
    /// Runs `body` on a new detached thread; false, with nothing run, when no thread could be had.
    static func detach(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The closure, as one reference the C start routine can carry.
    private final class Body {
        let run: @Sendable () -> Void

        init(_ run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }
}
