import Foundation

/// Everything the screen shows besides the cards: built by the controller for each frame.
public struct ShelfModel: Sendable, Equatable {
    public var catalogTitle: String?
    public var status: String
    /// Whether the status is a problem (offline, stale, error), for its colour.
    public var statusIsWarning = false
    public var totalCount = 0
    public var activeDownloads = 0
    public var bytesPerSecond: Double = 0
    public var librarySize: Int64 = 0
    /// The location of the selected issue's PDF, when installed.
    public var selectedPath: String?
    /// The storage budget (`max_storage`), shown beside the library's size.
    public var storageBudget: Int64?
    /// What the screen shows.
    public var screen = ShelfScreenKind.issues
    /// New issues across every publication (the newsstand view's header).
    public var newTotal = 0
    /// A browsed feed is still being fetched.
    public var isLoading = false
    /// What the browse screen's header says on the right (its sections and issues).
    public var headerNote: String?

    public init(catalogTitle: String? = nil, status: String = "") {
        self.catalogTitle = catalogTitle
        self.status = status
    }
}
