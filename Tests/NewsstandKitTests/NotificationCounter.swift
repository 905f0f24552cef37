import Foundation
import NewsstandKit

/// Counts notifications of one name.
final class NotificationCounter {
    private final class Box: Sendable {
        let count = Locked(0)
        let posted = DispatchSemaphore(value: 0)
    }

    private let box: Box
    private let token: any NSObjectProtocol
    private let center: NotificationCenter

    init(_ name: Notification.Name, center: NotificationCenter, object: AnyObject? = nil) {
        let box = Box()
        self.box = box
        self.center = center
        token = center.addObserver(forName: name, object: object, queue: nil) { _ in
            box.count.withLock { $0 += 1 }
            box.posted.signal()
        }
    }

    var value: Int { box.count.withLock { $0 } }

    /// Waits until at least `count` notifications were posted; returns the number seen.
    @discardableResult
    func wait(for count: Int, timeout: TimeInterval = 10) -> Int {
        let deadline = DispatchTime.now() + timeout
        while value < count, box.posted.wait(timeout: deadline) == .success {}
        return value
    }

    deinit {
        center.removeObserver(token)
    }
}
