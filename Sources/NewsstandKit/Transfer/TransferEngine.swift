import Foundation

/// Runs HTTP(S) transfers on libcurl multi handles, each on a thread of its own.
///
/// Requests may be started and cancelled from any thread. Everything that touches libcurl
/// happens on the engine's threads, which also run every ``TransferHandlers`` callback (all
/// of one transfer's callbacks on the same thread). A transfer goes to the thread with the
/// fewest: at full speed a download is the kernel copying bytes, about 1 GB/s for one thread,
/// so several downloads at once need more than one core.
public final class TransferEngine: Sendable {
    /// The engine shared by the whole process.
    public static let shared = TransferEngine()

    /// One per core, at most four.
    public static var defaultThreadCount: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Opens libcurl on a thread of its own now, so that a command about to fetch does not wait
    /// for the loader (libcurl and the 30 libraries it needs: 5.5 ms alone in a C program, about
    /// 12 ms beside a command's own start) after it has read its arguments.
    public static func loadLibraryInBackground() {
        libraryLoading.enter()
        let started = BareThread.detach {
            _ = CurlLibrary.shared
            TransferEngine.libraryLoading.leave()
        }
        if !started {
            // No thread to be had: loaded here, as the first transfer would.
            _ = CurlLibrary.shared
            libraryLoading.leave()
        }
    }

    /// Returns once a load begun by ``loadLibraryInBackground()`` is done; to be called before
    /// the process exits. An exit while libcurl is still initialising OpenSSL runs OpenSSL's exit
    /// handlers under that initialisation, which then crashes on a freed lock (`newsstand --help`
    /// crashed about once in a hundred runs so).
    public static func finishLoadingLibrary() {
        libraryLoading.wait()
    }

    private static let libraryLoading = DispatchGroup()

    /// Connections to one host at once, across every subscription, unless configured otherwise.
    public static let defaultHostConnections = 2

    private let loops: [TransferLoop]
    private let nextID = Locked(1)
    private let gate: Locked<HostGate<TransferLoop.Pending>>

    public init(threadCount: Int = TransferEngine.defaultThreadCount, hostConnections: Int = TransferEngine.defaultHostConnections) {
        loops = (0..<max(1, threadCount)).map { _ in TransferLoop() }
        gate = Locked(HostGate(limit: hostConnections))
    }

    /// The most transfers to one host (name and port) at once; 0 for no limit. Transfers over
    /// it wait their turn, in the order they were started.
    public var hostConnections: Int {
        get { gate.withLock { $0.limit } }
        set {
            let actions = gate.withLock { gate in
                gate.limit = max(0, newValue)
                return gate.wake(now: DispatchTime.now().uptimeNanoseconds)
            }
            carryOut(actions)
        }
    }

    /// Starts a transfer; its handlers run on the thread of the engine that runs it.
    @discardableResult
    public func start(_ request: TransferRequest, handlers: TransferHandlers) -> TransferID {
        let id = nextID.withLock { next -> Int in
            defer { next += 1 }
            return next
        }
        if case .failure(let missing) = CurlLibrary.shared {
            handlers.completion(TransferResult(response: TransferResponse(), failure: missing, bytesOnDisk: 0, wroteBody: false, restarted: false))
            return TransferID(rawValue: id)
        }
        let host = request.url.isFileURL ? nil : HostReachability.key(of: request.url)
        // The host's slot is given back before the caller hears of the end, so that a request
        // the caller makes in its completion (the next page) can take it.
        let gated = TransferHandlers(response: handlers.response, progress: handlers.progress) { [self] result in
            let actions = gate.withLock { $0.finish(host: host, pause: Self.pause(asked: result.response), now: DispatchTime.now().uptimeNanoseconds) }
            carryOut(actions)
            handlers.completion(result)
        }
        let pending = TransferLoop.Pending(id: id, request: request, handlers: gated, ungatedCompletion: handlers.completion)
        let actions = gate.withLock { $0.arrive(pending, id: id, host: host, now: DispatchTime.now().uptimeNanoseconds) }
        carryOut(actions)
        return TransferID(rawValue: id)
    }

    /// How long a response asked for its host to be left alone: a busy answer's Retry-After.
    private static func pause(asked response: TransferResponse) -> TimeInterval? {
        guard response.statusCode == 429 || response.statusCode == 503 else { return nil }
        return response.retryAfter
    }

    private func carryOut(_ actions: HostGate<TransferLoop.Pending>.Actions) {
        for pending in actions.start { dispatch(pending) }
        for (pending, remaining) in actions.refuse {
            let host = pending.request.url.host ?? "the server"
            var response = TransferResponse()
            response.retryAfter = remaining
            let failure = NewsstandError(
                .hostPaused, "\(TextSanitizer.inert(host)) asked to be left alone for \(Formatting.wait(remaining)) (HTTP 429 or 503 to another request); not asked now.",
                retryable: true)
            let result = TransferResult(response: response, failure: failure, bytesOnDisk: 0, wroteBody: false, restarted: false)
            // Not through the gate's completion: this transfer never held a slot.
            pending.ungatedCompletion(result)
        }
        if let wakeAt = actions.wakeAt {
            DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: wakeAt)) { [self] in
                carryOut(gate.withLock { $0.wake(now: DispatchTime.now().uptimeNanoseconds) })
            }
        }
    }

    private func dispatch(_ pending: TransferLoop.Pending) {
        // A transfer started by a handler on an engine thread (a feed's next page, as the page
        // before ends) stays on that thread and its connection unless another has less to do:
        // handed to the other thread, it waited for that thread to wake, on every page.
        var chosen = loops.first { $0.isCurrentThread } ?? loops[0]
        var lowest = chosen.load
        for loop in loops where loop !== chosen && lowest > 0 {
            let load = loop.load
            if load < lowest { (chosen, lowest) = (loop, load) }
        }
        chosen.start(pending)
    }

    /// Stops a transfer; its completion reports ``NewsstandError/Code/cancelled`` and the bytes
    /// received so far stay in the file. Does nothing for a finished transfer.
    public func cancel(_ id: TransferID) {
        if let waiting = gate.withLock({ $0.cancel(id: id.rawValue) }) {
            let cancelled = NewsstandError(.cancelled, "Cancelled.")
            waiting.ungatedCompletion(TransferResult(response: TransferResponse(), failure: cancelled, bytesOnDisk: 0, wroteBody: false, restarted: false))
            return
        }
        // Every thread is told; the one running it stops it, the others have nothing to stop.
        for loop in loops { loop.cancel(id.rawValue) }
    }
}

/// One multi handle and the thread that runs it.
private final class TransferLoop: Sendable {
    struct Pending: Sendable {
        let id: Int
        let request: TransferRequest
        let handlers: TransferHandlers
        /// The caller's own completion, for a transfer that ends before it ever held a slot.
        let ungatedCompletion: @Sendable (TransferResult) -> Void
    }

    private struct Queue: Sendable {
        var pending: [Pending] = []
        var cancelled: Set<Int> = []
        var running = false
        /// How many transfers the thread had at its last turn.
        var active = 0
    }

    private let queue = Locked(Queue())
    /// The thread running the loop, once it runs.
    private let thread = Locked<pthread_t?>(nil)
    /// Made with the first transfer: an engine that never fetches (an offline `list`) never
    /// loads libcurl.
    private let multiHandle = Locked<CurlMulti?>(nil)

    private var multi: CurlMulti {
        multiHandle.withLock { handle in
            if let handle { return handle }
            let made = CurlMulti()
            handle = made
            return made
        }
    }

    /// Transfers waiting or running here.
    var load: Int { queue.withLock { $0.pending.count + $0.active } }

    /// Whether the caller is this loop's thread (in a transfer's handler).
    var isCurrentThread: Bool {
        thread.withLock { $0 }.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    func start(_ pending: Pending) {
        let startThread = queue.withLock { queue -> Bool in
            queue.pending.append(pending)
            defer { queue.running = true }
            return !queue.running
        }
        if startThread {
            let thread = Thread { [self] in self.run() }
            thread.name = "newsstand.transfers"
            thread.start()
        } else if !isCurrentThread {
            // The loop's own thread needs no wake: it looks at its queue before it waits.
            multi.wakeUp()
        }
    }

    func cancel(_ id: Int) {
        // A thread not started yet has nothing to cancel.
        let running = queue.withLock { queue -> Bool in
            if queue.running { queue.cancelled.insert(id) }
            return queue.running
        }
        if running { multiHandle.withLock { $0 }?.wakeUp() }
    }

    /// The thread's loop. Never returns: the thread lives as long as the process.
    private func run() {
        thread.withLock { $0 = pthread_self() }
        let multi = self.multi
        var active: [Int: EasyTransfer] = [:]
        var byHandle: [UnsafeMutableRawPointer: EasyTransfer] = [:]
        func add(_ transfer: EasyTransfer) {
            active[transfer.id] = transfer
            byHandle[transfer.easy.handle] = transfer
            multi.add(transfer.easy)
        }
        func remove(_ transfer: EasyTransfer) {
            active.removeValue(forKey: transfer.id)
            byHandle.removeValue(forKey: transfer.easy.handle)
            multi.remove(transfer.easy)
        }
        while true {
            let (incoming, cancelled) = queue.withLock { queue -> ([Pending], Set<Int>) in
                defer {
                    queue.active += queue.pending.count
                    queue.pending.removeAll()
                    queue.cancelled.removeAll()
                }
                return (queue.pending, queue.cancelled)
            }
            for pending in incoming {
                let transfer = EasyTransfer(id: pending.id, request: pending.request, handlers: pending.handlers)
                if cancelled.contains(pending.id) {
                    transfer.finish(with: NewsstandError(.cancelled, "Cancelled."))
                } else if let failure = transfer.configure() {
                    transfer.finish(with: failure)
                } else {
                    add(transfer)
                }
            }
            for id in cancelled {
                guard let transfer = active[id] else { continue }
                remove(transfer)
                transfer.finish(with: NewsstandError(.cancelled, "Cancelled."))
            }
            // libcurl's own low-speed check averages over a window of seconds; a silent server
            // is noticed sooner and exactly by watching for the last byte.
            let now = DispatchTime.now().uptimeNanoseconds
            for transfer in active.values where transfer.isStalled(now: now) {
                remove(transfer)
                transfer.finish(with: transfer.stallFailure)
            }

            for (handle, result) in multi.perform() {
                guard let transfer = byHandle[handle] else { continue }
                remove(transfer)
                // Counted as ended before its handlers hear of it: a transfer they start is then
                // weighed against this thread's load without it.
                let count = active.count
                queue.withLock { $0.active = count }
                if let next = transfer.complete(result) { add(next) }
            }
            let count = active.count
            // Transfers started here, by handlers, are taken at once; with nothing to do the wait
            // is long: start() and cancel() from other threads wake the poll up.
            let started = queue.withLock { queue -> Bool in
                queue.active = count
                return !queue.pending.isEmpty || !queue.cancelled.isEmpty
            }
            if !started { multi.poll(milliseconds: active.isEmpty ? 60_000 : 500) }
        }
    }
}
