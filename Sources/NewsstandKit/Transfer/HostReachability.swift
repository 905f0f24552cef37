import Foundation

/// Which servers the process could not reach lately, and who waits for them: a download whose
/// server does not answer waits for the next transfer that reaches it (a refresh, another
/// download) instead of spending its retries on a host known to be away.
///
/// Every transfer reports here as it ends: no answer at all marks its host unreachable, any
/// HTTP answer marks it reachable again and wakes what waits for it.
public final class HostReachability: Sendable {
    public static let shared = HostReachability()

    private struct State {
        var unreachable: Set<String> = []
        var waiting: [String: [@Sendable () -> Void]] = [:]
    }

    private let state = Locked(State())

    public init() {}

    /// `host:port` of a URL, the key a failure and a waiter agree on.
    static func key(of url: URL) -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    /// Whether `host` did not answer the last time it was tried.
    public func isUnreachable(_ host: String) -> Bool { state.withLock { $0.unreachable.contains(host) } }

    /// A transfer to `host` got no answer.
    func failed(_ host: String) {
        state.withLock { _ = $0.unreachable.insert(host) }
    }

    /// A transfer to `url`'s host got an answer: whatever waits for it goes on.
    func reached(_ url: URL) {
        guard let host = Self.key(of: url) else { return }
        let woken = state.withLock { state -> [@Sendable () -> Void] in
            state.unreachable.remove(host)
            return state.waiting.removeValue(forKey: host) ?? []
        }
        for wake in woken { wake() }
    }

    /// Calls `wake` once `host` answers again; returns false (and keeps nothing) when it is not
    /// known to be away.
    func wait(for host: String, _ wake: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.unreachable.contains(host) else { return false }
            state.waiting[host, default: []].append(wake)
            return true
        }
    }
}
