import Foundation

/// The threads that read and check a paginated feed's later pages: at most one per core (and
/// eight), each started when a page is handed over while fewer are running, at a lower priority
/// than the rest of the process, and gone once the last page handed over is read and nothing
/// holds them.
///
/// Why a lower priority: the next page is asked for on the transfer engine's thread as soon as a
/// page's bytes are in. With both cores reading earlier pages, that thread waited for a core at
/// every page; a reader at nice +5 gives way to it at once. Over 31 interleaved refreshes of a
/// feed of 100 pages: 139.8 -> 128.8 ms. The threads are the pipeline's own, not the dispatch
/// pool's: a thread's priority cannot be raised back without privileges, and a pool thread
/// would carry it on to whatever it ran next.
final class PageReaders: Sendable {
    /// How much lower than the rest of the process the readers run (a nice value).
    static let niceness: Int32 = 5

    private let shared: Shared
    private let count: Int

    init(count: Int = min(8, ProcessInfo.processInfo.activeProcessorCount)) {
        self.count = max(1, count)
        shared = Shared()
    }

    deinit {
        // Nothing can be handed over any more: each reader wakes, finds the queue empty, and ends.
        let threads = shared.state.withLock { state in
            state.closed = true
            return state.threads
        }
        for _ in 0..<threads { shared.waiting.signal() }
    }

    /// Runs `read` on a reader, after the reads handed over before it have started.
    func submit(_ read: @escaping @Sendable () -> Void) {
        let start = shared.state.withLock { [count] state -> Bool in
            state.reads.append(read)
            guard state.threads < count else { return false }
            state.threads += 1
            return true
        }
        if start {
            Thread.detachNewThread { [shared] in
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
                ProcessMemory.adviseHugePagesForThisThread()
                shared.run()
            }
        }
        shared.waiting.signal()
    }

    /// What the readers share; it holds no reader, so the last page let go ends them.
    private final class Shared: Sendable {
        struct State: Sendable {
            /// Reads handed over; a read is let go as it starts (it holds its page).
            var reads: [(@Sendable () -> Void)?] = []
            /// Index of the next read to start: reads start in the order they were handed over.
            var next = 0
            /// Readers started so far.
            var threads = 0
            var closed = false
        }

        let state = Locked(State())
        /// One signal for each read handed over, and one for each reader when closing.
        let waiting = DispatchSemaphore(value: 0)

        func run() {
            while true {
                waiting.wait()
                let read = state.withLock { state -> (@Sendable () -> Void)? in
                    guard state.next < state.reads.count, let read = state.reads[state.next] else { return nil }
                    state.reads[state.next] = nil
                    state.next += 1
                    if state.next == state.reads.count {
                        state.reads.removeAll(keepingCapacity: true)
                        state.next = 0
                    }
                    return read
                }
                guard let read else {
                    if state.withLock({ $0.closed }) { return }
                    continue
                }
                read()
            }
        }
    }
}
