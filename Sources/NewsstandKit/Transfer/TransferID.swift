import Foundation

/// Identifies a running transfer, to cancel it.
public struct TransferID: Hashable, Sendable {
    let rawValue: Int
}
