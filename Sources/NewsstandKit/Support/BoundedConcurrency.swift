import Foundation

/// Runs jobs `0..<count` with at most `width` under way at once, the next starting as one ends.
/// A job is handed a `done` to call when it ends — on any thread, at once or later (a transfer's
/// completion, or a consumer that has used what the job made) — and `finished` runs once after
/// the last `done`.
enum BoundedConcurrency {
    static func run(
        _ count: Int, width: Int, job: @escaping @Sendable (_ index: Int, _ done: @escaping @Sendable () -> Void) -> Void,
        finished: @escaping @Sendable () -> Void = {}
    ) {
        guard count > 0 else { return finished() }
        let next = Locked(0)
        let remaining = Locked(count)
        @Sendable func startNext() {
            let index = next.withLock { next -> Int in
                defer { next += 1 }
                return next
            }
            guard index < count else { return }
            job(index) {
                startNext()
                if remaining.withLock({ remaining -> Bool in
                    remaining -= 1
                    return remaining == 0
                }) { finished() }
            }
        }
        for _ in 0..<min(count, max(1, width)) { startNext() }
    }

    /// ``run(_:width:job:finished:)`` with jobs that end when they return, each on its own
    /// thread; waits for the last.
    static func runAndWait(_ count: Int, width: Int, job: @escaping @Sendable (_ index: Int) -> Void) {
        let all = DispatchSemaphore(value: 0)
        run(count, width: width, job: { index, done in
            DispatchQueue.global().async {
                job(index)
                done()
            }
        }, finished: { all.signal() })
        all.wait()
    }
}
