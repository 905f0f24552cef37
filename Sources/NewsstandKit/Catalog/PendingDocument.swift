import Foundation

/// A catalog document whose fetch has started: ``CatalogFetcher/wait(for:)`` takes its answer,
/// once; ``CatalogFetcher/stop(_:)`` ends the fetch early, and the wait then answers that it was
/// cancelled.
final class PendingDocument: Sendable {
    /// The address asked for, as the feed wrote it (resolved).
    let address: String
    let url: URL
    /// Where the body goes, in memory; nil for a file on this machine (read when waited for).
    let body: MemoryBody?
    private let state = Locked<State>(.running(nil))
    private let ended = DispatchSemaphore(value: 0)

    private enum State {
        case running(TransferID?)
        case ended(Result<TransferResult, NewsstandError>)
        case taken
    }

    init(address: String, url: URL, body: MemoryBody?) {
        self.address = address
        self.url = url
        self.body = body
    }

    /// The transfer that fetches it, to cancel it.
    var transfer: TransferID? {
        get {
            state.withLock { state in
                if case .running(let id) = state { return id }
                return nil
            }
        }
        set {
            state.withLock { state in
                if case .running = state { state = .running(newValue) }
            }
        }
    }

    func end(_ result: Result<TransferResult, NewsstandError>) {
        let first = state.withLock { state -> Bool in
            guard case .running = state else { return false }
            state = .ended(result)
            return true
        }
        if first { ended.signal() }
    }

    /// How the transfer ended, once it has; nil when it was taken before.
    func outcome() -> Result<TransferResult, NewsstandError>? {
        ended.wait()
        return state.withLock { state in
            defer { state = .taken }
            if case .ended(let result) = state { return result }
            return nil
        }
    }
}
