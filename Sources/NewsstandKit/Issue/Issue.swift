import Foundation

/// One issue of a subscription's catalog, the state of its download, and what the reader did with it.
///
/// An issue knows nothing of any user interface: it posts notifications when its state changes,
/// with itself as `object`. They are posted on the thread that made the change (for progress,
/// a transfer engine's thread), so observers should register with `queue: nil`, return quickly,
/// and hop to their own thread for any real work.
public final class Issue: Sendable {
    /// Posted whenever ``state`` changes, except for progress within a download.
    public static let stateDidChangeNotification = Notification.Name("NewsstandIssueStateDidChange")
    /// Posted while downloading, at most about ten times a second, and always for the last bytes.
    public static let downloadDidProgressNotification = Notification.Name("NewsstandIssueDownloadDidProgress")
    /// Posted once the issue is installed and verified.
    public static let downloadDidFinishNotification = Notification.Name("NewsstandIssueDownloadDidFinish")
    /// Posted when a download stops with an error; ``state`` says why.
    public static let downloadDidFailNotification = Notification.Name("NewsstandIssueDownloadDidFail")
    /// Posted when ``reading`` changes (read, opened, pinned).
    public static let readingDidChangeNotification = Notification.Name("NewsstandIssueReadingDidChange")

    /// The publisher's ID, as data (any text; print it through ``TextSanitizer``).
    public let id: String
    /// The safe name of its folder, unique within the subscription.
    public let localKey: String
    /// The subscription it belongs to.
    public var subscription: String { home.subscription }
    /// The library of its subscription.
    public var library: Library { home.library }
    private var center: NotificationCenter { home.center }

    /// What every issue of one subscription shares, held once by its store: each issue holding
    /// the name, the library's paths and the center itself was four counts per issue that the
    /// cores making a catalog's issues took turns to change.
    final class Home: Sendable {
        let subscription: String
        let library: Library
        let center: NotificationCenter

        init(subscription: String, library: Library, center: NotificationCenter) {
            self.subscription = subscription
            self.library = library
            self.center = center
        }
    }

    private let home: Home

    private struct Guarded {
        var entry: CatalogEntry
        var state: DownloadState
        var lastProgressPost: UInt64 = 0
        var speedSample: (time: UInt64, bytes: Int64)?
        var bytesPerSecond: Double = 0
        var reading: ReadingState.Record?
    }

    private let guarded: Locked<Guarded>

    /// `hasFolder: false` says the library has nothing for this issue, sparing a look at the disk.
    init(entry: CatalogEntry, home: Home, hasFolder: Bool = true) {
        id = entry.id
        localKey = entry.localKey
        self.home = home
        let state = hasFolder ? Self.stateOnDisk(entry: entry, library: home.library) : .remote
        guarded = Locked(Guarded(entry: entry, state: state))
    }

    /// What the catalog says of this issue.
    public var entry: CatalogEntry { guarded.withLock { $0.entry } }
    /// The entry's release date alone, without copying the entry out of the lock.
    var releaseDate: Date? { guarded.withLock { $0.entry.releaseDate } }
    public var title: String { entry.title }
    public var state: DownloadState { guarded.withLock { $0.state } }

    /// `subscription/key`: unique across the newsstand.
    public var address: String { subscription + "/" + localKey }

    /// The installed file, when there is one.
    public var installedPath: String? {
        if case .downloaded(let path) = state { return path }
        return nil
    }

    /// The installed file's type (the catalog's, until one is installed).
    public var installedType: MediaType {
        if case .downloaded(let path) = state, let type = MediaType(address: path) { return type }
        return entry.mediaType
    }

    /// Where the cover image is kept once fetched.
    public var coverPath: String { library.coverPath(for: localKey) }
    /// Whether the cover on disk was made from the issue (its first page, its cover image).
    public var coverIsMadeFromIssue: Bool { FileOps.regularFileSize(library.madeCoverMarkerPath(for: localKey)) != nil }

    /// What the reader did with it; nil before the reading state is loaded.
    public var reading: ReadingState.Record? { guarded.withLock { $0.reading } }

    func setReading(_ record: ReadingState.Record?, notify: Bool = true) {
        let changed = guarded.withLock { guarded -> Bool in
            guard guarded.reading != record else { return false }
            guarded.reading = record
            return true
        }
        if changed && notify { center.post(name: Self.readingDidChangeNotification, object: self) }
    }

    func update(entry: CatalogEntry) {
        guarded.withLock { $0.entry = entry }
    }

    static func stateOnDisk(entry: CatalogEntry, library: Library) -> DownloadState {
        switch library.diskState(for: entry.localKey, preferred: entry.mediaType) {
        case .installed(let path, _): return .downloaded(path: path)
        case .partial(let bytes, _): return .partial(received: bytes, total: entry.size)
        case .none: return .remote
        }
    }

    /// Re-reads the state from disk (after a cancel or a delete).
    func resetStateFromDisk() {
        setState(Self.stateOnDisk(entry: entry, library: library))
    }

    /// Sets the state and posts the notifications that go with the change.
    func setState(_ newState: DownloadState) {
        let changed = guarded.withLock { guarded -> Bool in
            guard guarded.state != newState else { return false }
            guarded.state = newState
            if case .downloading = newState {} else { guarded.speedSample = nil }
            return true
        }
        guard changed else { return }
        center.post(name: Self.stateDidChangeNotification, object: self)
        switch newState {
        case .downloaded: center.post(name: Self.downloadDidFinishNotification, object: self)
        case .failed: center.post(name: Self.downloadDidFailNotification, object: self)
        default: break
        }
    }

    /// Records bytes on disk; posts progress at most every 100 ms, and always when complete.
    func updateProgress(received: Int64, total: Int64?) {
        let now = DispatchTime.now().uptimeNanoseconds
        let post = guarded.withLock { guarded -> Bool in
            guard case .downloading = guarded.state else { return false }
            if let sample = guarded.speedSample {
                let elapsed = Double(now - sample.time) / 1e9
                if elapsed >= 0.5 {
                    let rate = Double(received - sample.bytes) / elapsed
                    guarded.bytesPerSecond = guarded.bytesPerSecond == 0 ? rate : 0.5 * guarded.bytesPerSecond + 0.5 * rate
                    guarded.speedSample = (now, received)
                }
            } else {
                guarded.speedSample = (now, received)
            }
            let resolvedTotal = total ?? guarded.entry.size
            guarded.state = .downloading(DownloadProgress(received: received, total: resolvedTotal, bytesPerSecond: max(0, guarded.bytesPerSecond)))
            let complete = resolvedTotal.map { received >= $0 } ?? false
            guard complete || now - guarded.lastProgressPost >= 100_000_000 else { return false }
            guarded.lastProgressPost = now
            return true
        }
        if post { center.post(name: Self.downloadDidProgressNotification, object: self) }
    }
}
