import Foundation
import NewsstandKit

/// What changed since the shelf last looked: set from any thread by notification observers,
/// read and cleared by the shelf's loop, which the ``Waker`` wakes up.
final class ShelfSignals: Sendable {
    struct Changes: Sendable {
        var redraw = true
        var issuesReplaced = true
        var statesChanged = true
        var librarySizeStale = true
        /// The subscriptions whose issues or states changed, so that only their counts are redone.
        var changedSubscriptions: Set<String> = []
        /// Every subscription's counts must be redone (the first look).
        var everythingChanged = true
        /// Something the reader waits to see (a cover arrived): drawn at once, not at the next
        /// frame that progress updates are held to.
        var urgent = false
    }

    private let changes = Locked(Changes())
    let waker: Waker
    /// Bytes under the library, measured in the background.
    let librarySize = Locked<Int64>(0)

    init(waker: Waker) {
        self.waker = waker
    }

    func mark(_ change: (inout Changes) -> Void) {
        changes.withLock { change(&$0) }
        waker.wake()
    }

    /// The changes since the last call, cleared.
    func take() -> Changes {
        changes.withLock { changes in
            defer {
                changes = Changes(redraw: false, issuesReplaced: false, statesChanged: false, librarySizeStale: false,
                                  changedSubscriptions: [], everythingChanged: false, urgent: false)
            }
            return changes
        }
    }

    /// Observes the stores and every issue; returns the tokens to remove.
    func observe(_ stores: [Store], center: NotificationCenter) -> [any NSObjectProtocol] {
        var tokens: [any NSObjectProtocol] = []
        for store in stores {
            tokens.append(center.addObserver(forName: Store.statusDidChangeNotification, object: store, queue: nil) { [self] _ in
                mark { $0.redraw = true }
            })
            let name = store.name
            tokens.append(center.addObserver(forName: Store.issuesDidChangeNotification, object: store, queue: nil) { [self] _ in
                mark {
                    $0.redraw = true
                    $0.issuesReplaced = true
                    $0.changedSubscriptions.insert(name)
                }
            })
        }
        tokens.append(center.addObserver(forName: Issue.downloadDidProgressNotification, object: nil, queue: nil) { [self] _ in
            mark { $0.redraw = true }
        })
        tokens.append(center.addObserver(forName: Issue.readingDidChangeNotification, object: nil, queue: nil) { [self] notification in
            let subscription = (notification.object as? Issue)?.subscription
            mark {
                $0.redraw = true
                $0.statesChanged = true
                if let subscription { $0.changedSubscriptions.insert(subscription) } else { $0.everythingChanged = true }
            }
        })
        tokens.append(center.addObserver(forName: Issue.stateDidChangeNotification, object: nil, queue: nil) { [self] notification in
            let subscription = (notification.object as? Issue)?.subscription
            let settled: Bool
            switch (notification.object as? Issue)?.state {
            case .downloaded?, .remote?, .partial?: settled = true
            default: settled = false
            }
            mark {
                $0.redraw = true
                $0.statesChanged = true
                if let subscription { $0.changedSubscriptions.insert(subscription) } else { $0.everythingChanged = true }
                if settled { $0.librarySizeStale = true }
            }
        })
        return tokens
    }
}
