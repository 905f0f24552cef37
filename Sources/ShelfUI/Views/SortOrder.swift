import Foundation

/// How the shelf is ordered.
public enum SortOrder: String, CaseIterable, Sendable {
    case date, title, state

    public var next: SortOrder {
        let all = SortOrder.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}
