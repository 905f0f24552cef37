import Foundation

/// The screens of the shelf.
public enum ShelfScreenKind: Sendable, Equatable {
    /// One card per publication.
    case newsstand
    /// One publication's issues.
    case issues
    /// New issues of every publication, newest first.
    case new
    /// A server's feed walked as folders: its sections, or a search's results.
    case browse
}
