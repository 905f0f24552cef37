import Foundation

/// Frees a large value on another core. Tearing down what a big catalog was read through (an
/// XML tree of 100,000 elements, 10,000 entries of a feed) takes milliseconds that the next
/// step, and a command about to end, need not wait for.
enum ReleaseElsewhere {
    private final class Holder<Value>: @unchecked Sendable {
        // Touched by the thread that made it, then only by the one block that empties it.
        var value: Value?
        init(_ value: consuming Value) { self.value = value }
    }

    static func release<Value>(_ value: consuming Value) {
        // Moved into a holder that the block alone keeps: the last reference goes with it.
        let holder = Holder(value)
        DispatchQueue.global(qos: .utility).async { holder.value = nil }
    }
}
