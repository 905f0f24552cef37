import Foundation

/// Which transfers may start now, so that no host has more than its limit of connections at
/// once across every subscription, and a host that asked to be left alone (a 429 or 503 with
/// Retry-After) is left alone by all of them, not just by the request that was told.
///
/// A value whose transitions return what to do; ``TransferEngine`` keeps it behind its lock and
/// carries the actions out after letting go.
struct HostGate<Item: Sendable>: Sendable {
    /// What a transition asks the engine to do.
    struct Actions: Sendable {
        /// Transfers that may start now.
        var start: [Item] = []
        /// Transfers not sent, because their host asked for a pause longer than anyone should
        /// wait for: with the seconds that remain of it.
        var refuse: [(item: Item, remaining: TimeInterval)] = []
        /// When a pause ends and ``wake(now:)`` should be called; nil when nothing waits for one.
        var wakeAt: UInt64?
    }

    private struct Waiting: Sendable {
        var id: Int
        var item: Item
    }

    /// The most transfers to one host at once; 0 holds nothing back, pauses included (an engine
    /// for tests of everything else).
    var limit: Int
    /// A pause up to this long is waited out; a longer one refuses what would wait for it.
    var longestWait: TimeInterval = 30

    private var running: [String: Int] = [:]
    private var waiting: [String: [Waiting]] = [:]
    /// The uptime (ns) until which a host is left alone.
    private var pausedUntil: [String: UInt64] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    /// A transfer to `host` (nil: a file, never gated) asks to start.
    mutating func arrive(_ item: Item, id: Int, host: String?, now: UInt64) -> Actions {
        guard let host, limit > 0 else { return Actions(start: [item]) }
        var actions = Actions()
        if let until = pausedUntil[host], until > now {
            let remaining = Self.seconds(until - now)
            if remaining > longestWait {
                actions.refuse.append((item, remaining))
            } else {
                waiting[host, default: []].append(Waiting(id: id, item: item))
                actions.wakeAt = until
            }
            return actions
        }
        pausedUntil[host] = nil
        if running[host, default: 0] >= limit || !(waiting[host]?.isEmpty ?? true) {
            waiting[host, default: []].append(Waiting(id: id, item: item))
        } else {
            running[host, default: 0] += 1
            actions.start.append(item)
        }
        return actions
    }

    /// A transfer to `host` ended; `pause` is how long the host asked to be left alone, if it did.
    mutating func finish(host: String?, pause: TimeInterval?, now: UInt64) -> Actions {
        guard let host else { return Actions() }
        if let count = running[host] { running[host] = count > 1 ? count - 1 : nil }
        if limit > 0, let pause, pause > 0 {
            let until = now + UInt64(min(pause, 24 * 3600) * 1e9)
            pausedUntil[host] = max(pausedUntil[host] ?? 0, until)
        }
        return release(host, now: now)
    }

    /// Time passed: hosts whose pause is over take their waiting transfers again.
    mutating func wake(now: UInt64) -> Actions {
        var actions = Actions()
        for host in Array(waiting.keys) {
            let released = release(host, now: now)
            actions.start += released.start
            actions.refuse += released.refuse
            if let at = released.wakeAt { actions.wakeAt = min(actions.wakeAt ?? at, at) }
        }
        return actions
    }

    /// Takes a transfer that has not started out of its queue; nil when it is not waiting here.
    mutating func cancel(id: Int) -> Item? {
        for (host, queue) in waiting {
            guard let index = queue.firstIndex(where: { $0.id == id }) else { continue }
            let item = queue[index].item
            waiting[host]!.remove(at: index)
            if waiting[host]!.isEmpty { waiting[host] = nil }
            return item
        }
        return nil
    }

    /// Starts what the host's limit and pause allow of what waits for it.
    private mutating func release(_ host: String, now: UInt64) -> Actions {
        var actions = Actions()
        guard var queue = waiting[host], !queue.isEmpty else { return actions }
        if let until = pausedUntil[host], until > now {
            let remaining = Self.seconds(until - now)
            if remaining > longestWait {
                actions.refuse = queue.map { ($0.item, remaining) }
                waiting[host] = nil
            } else {
                actions.wakeAt = until
            }
            return actions
        }
        pausedUntil[host] = nil
        while !queue.isEmpty, limit <= 0 || running[host, default: 0] < limit {
            actions.start.append(queue.removeFirst().item)
            running[host, default: 0] += 1
        }
        waiting[host] = queue.isEmpty ? nil : queue
        return actions
    }

    private static func seconds(_ nanoseconds: UInt64) -> TimeInterval {
        TimeInterval(nanoseconds) / 1e9
    }
}
