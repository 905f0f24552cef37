import Foundation

/// The last good copy of one catalog, kept under `$XDG_CACHE_HOME/newsstand/catalogs/`.
///
/// The copy is a property list as the server sent it, or a feed's pages written as one snapshot
/// (``CatalogSnapshot``) with the secrets of its subscription's URL masked; either is read back
/// through the same reader and validator as any catalog (a snapshot of this version as written).
/// The copy is written into a file beside it, whose room on the disk was set aside before the
/// catalog was read (``reserve(_:)``), and renamed into place, so that a crash or a full disk
/// leaves the previous copy whole. What is known of it (validators, when it was fetched) is an
/// extended attribute of the copy, set before the rename, so that the two move into place
/// together; a check that finds the copy unchanged only sets the copy's time
/// (``recordCheck(_:previous:)``). Where the file system refuses the attribute (no user
/// attributes, an info larger than it keeps), the info is the `.json` file beside the copy, as
/// versions before kept it, and is read there.
public struct CatalogCache: Sendable {
    /// What is known of the cached copy.
    public struct Info: Codable, Sendable, Equatable {
        public var url: String
        public var etag: String?
        public var lastModified: String?
        public var fetchedAt: Date
        /// Until when the server said the copy is fresh (Cache-Control max-age): a sync before
        /// then asks nothing.
        public var freshUntil: Date?
        /// The server asked not to be asked again before this (Retry-After on a busy answer).
        public var retryNotBefore: Date?
        /// Issues in the copy, so that an unchanged catalog need not be read to be counted.
        public var issueCount: Int?
        /// The catalog's own title, for a newsstand's first frame before any catalog is read.
        public var title: String?
        /// The format the catalog came in; the copy itself is a property list.
        public var format: CatalogFormatKind?
        /// How the feed said to search its server.
        public var search: FeedSearch?
        /// A navigation feed's sections, so that an offline start can still show them.
        public var navigation: [FeedLink]?
        /// How the catalog's origin last asked to be authenticated (its scheme and Digest nonce,
        /// never a credential), so that the next process answers in its first request.
        public var authentication: HTTPAuthenticator.Known?
        /// The copy's size in bytes as installed: a copy of another size was cut short (see
        /// ``CatalogCache/installDownload(info:)``), and its validators are not trusted.
        public var copySize: Int64?
    }

    /// The extended attribute of the copy that holds its ``Info``; nil keeps the info in the file
    /// beside the copy instead, as on a file system without user attributes.
    var infoAttribute: String? = Self.infoAttributeName
    static let infoAttributeName = "user.newsstand.info"

    public let folder: String
    /// The cached catalog: a snapshot of the catalog as read (a copy made by a version before
    /// snapshots holds a property list as the server sent it, read the same way).
    public let catalogPath: String
    let infoPath: String
    /// Where a fresh copy is written before it is moved into place.
    let downloadPath: String

    /// The cache of one subscription, named after it so that a new URL keeps it.
    public init(directories: Directories, subscriptionName: String) {
        folder = directories.cache + "/catalogs"
        catalogPath = folder + "/" + subscriptionName + ".catalog"
        infoPath = folder + "/" + subscriptionName + ".json"
        downloadPath = folder + "/" + subscriptionName + ".catalog.download"
    }

    /// Whether an earlier version left a copy that ``adoptLegacyCopy(of:)`` would take.
    func hasLegacyCopy(of catalogURL: URL) -> Bool {
        let legacy = folder + "/" + Library.legacyKey(for: catalogURL)
        return [".plist", ".catalog"].contains { FileOps.regularFileSize(legacy + $0) != nil } && legacy + ".catalog" != catalogPath
    }

    /// Moves the copy an earlier version kept under a hash of `catalogURL` to this cache's names,
    /// unless this cache has one already.
    func adoptLegacyCopy(of catalogURL: URL) {
        let legacy = folder + "/" + Library.legacyKey(for: catalogURL)
        guard FileOps.regularFileSize(catalogPath) == nil, legacy + ".catalog" != catalogPath else { return }
        // `.plist` from versions before subscriptions; `.catalog` from a one-off `--catalog` run.
        for suffix in [".plist", ".catalog"] where FileOps.regularFileSize(legacy + suffix) != nil {
            // The info moves with the copy: as its attribute, or as the file an earlier version wrote.
            rename(legacy + ".json", infoPath)
            rename(legacy + suffix, catalogPath)
            return
        }
    }

    func prepare() throws(NewsstandError) {
        try FileOps.makeDirectory(folder, trusted: folder)
    }

    /// What is known of the cached copy, without reading the copy; nil when there is no copy.
    ///
    /// An info that is missing or does not decode (a power cut can lose it or leave it empty: it
    /// is written without waiting for the disk) does not hide a good copy: the copy is then known
    /// only by the time it was written, with no validators, so the next refresh fetches the
    /// catalog whole. So is a copy whose size is not the one installed (a power cut can cut it
    /// short too): a server's 304 would otherwise keep it. An empty copy is none.
    func readInfo() -> Info? {
        guard let size = FileOps.regularFileSize(catalogPath), size > 0 else { return nil }
        guard let (infoData, attached) = infoRecord.read(),
              var info = try? Self.decoder.decode(Info.self, from: infoData),
              info.copySize.map({ $0 == size }) ?? true else {
            return FileOps.modificationDate(catalogPath).map { Info(url: "", fetchedAt: $0) }
        }
        // The copy's modification time is the last check (see ``recordCheck(_:previous:)``), to
        // the second like every date the info keeps; an info file's may be later, where an
        // earlier version recorded its checks there.
        let holders = attached ? [catalogPath] : [catalogPath, infoPath]
        for modified in holders.compactMap(FileOps.modificationDate) {
            let checked = Date(timeIntervalSince1970: modified.timeIntervalSince1970.rounded(.down))
            if checked > info.fetchedAt { info.fetchedAt = checked }
        }
        return info
    }

    /// The cached bytes and their info, or nil when there is no complete copy.
    func read() -> (data: Data, info: Info)? {
        // Mapped rather than read: the pages are the page cache's own, not copied into fresh
        // memory (a 4 MB snapshot was a thousand page faults and a copy). Copies are only ever
        // replaced by a rename, never truncated in place, so the mapping stays whole.
        guard let info = readInfo(), let data = try? Data(contentsOf: URL(fileURLWithPath: catalogPath), options: .alwaysMapped) else { return nil }
        return (data, info)
    }

    /// Sets aside room on the disk for a copy of `bytes` bytes, before the catalog fetched is read
    /// and shown: a disk too full to keep the copy fails the refresh, and the old copy stays the
    /// catalog, as when the fetch itself wrote to the disk.
    func reserve(_ bytes: Int) throws(NewsstandError) {
        try FileOps.reserve(bytes, at: downloadPath, mode: 0o600)
    }

    /// Keeps `catalog` as the copy, with what is known of it: the catalog's own title, count,
    /// format, search and sections are taken from it, and `secrets` are masked in every link.
    /// `original` is the document the catalog was read from; the copy is written into the room
    /// ``reserve(_:)`` set aside.
    func save(_ catalog: Catalog, original: Data, info: Info, masking secrets: [String]) throws(NewsstandError) {
        var info = info
        info.issueCount = catalog.entries.count
        info.title = catalog.title
        info.format = catalog.format
        info.search = catalog.search.map { SecretMask.mask($0, secrets: secrets) }
        info.navigation = catalog.navigation.isEmpty ? nil : catalog.navigation.map { SecretMask.mask($0, secrets: secrets) }
        // A property list is kept as it came: its bytes are already one lossless file, and writing
        // a snapshot of it doubled the CPU of a sync of 100 changed catalogs. Not when its URL
        // holds a secret, which its links may repeat: only a snapshot masks them. A feed's pages
        // become one snapshot: what an offline start opens.
        let asItCame = catalog.format == .propertyList && secrets.isEmpty
        do throws(NewsstandError) {
            try FileOps.overwrite(downloadPath, with: asItCame ? original : CatalogSnapshot.data(of: catalog, masking: secrets))
        } catch {
            unlink(downloadPath)
            throw error
        }
        try installDownload(info: info)
    }

    /// The copy, read back as a catalog of `subscriptionURL` with its secrets put back; nil when
    /// there is no complete copy. A copy that no longer reads (or whose stand-ins no longer match
    /// the URL's secrets) is set aside, so that the next refresh fetches the catalog anew.
    func loadCatalog(of subscriptionURL: URL, secrets: [String], limits: CatalogLimits) -> (catalog: Catalog, info: Info)? {
        guard let (data, info) = read() else { return nil }
        // This version's snapshot opens as it was written; any other copy is read like a catalog.
        let opened = CatalogSnapshot.read(data, allowFiles: subscriptionURL.isFileURL, limits: limits)
            ?? (try? CatalogReader(limits: limits).catalog(data, url: subscriptionURL, contentType: nil))
        guard var catalog = opened, SecretMask.unmask(&catalog, secrets: secrets) else {
            setAside()
            return nil
        }
        catalog.format = info.format ?? .propertyList
        catalog.search = info.search.flatMap { SecretMask.unmask($0, secrets: secrets) }
        catalog.navigation = (info.navigation ?? []).compactMap { SecretMask.unmask($0, secrets: secrets) }
        return (catalog, info)
    }

    /// Moves a freshly downloaded and checked catalog into place.
    ///
    /// Complete before the rename, so a process killed or a disk full never leaves less than the
    /// old copy. Not waited onto the disk: a sync of 100 changed catalogs spent 90 ms of its
    /// 570 waiting for a flush per catalog. A power cut can then leave the new copy cut short
    /// where the file system does not write a replaced file's data first (ext4 does): it is a
    /// cache, fetched again whole, as its recorded size tells (see ``readInfo()``), and one that
    /// no longer reads is set aside. Downloads, which are not fetched again, do wait for the disk.
    ///
    /// The info goes in as an attribute of the new copy, so that copy and info are replaced in one
    /// rename; the old copy is removed afterwards, on another thread (``RetiredFiles``). A file
    /// per catalog written and renamed beside it cost more than its bytes: on a file system
    /// without a journal, making a file scans the inode table past the files deleted in the last
    /// minutes (a sync of 100 changed catalogs with nothing to download: 454 → 422 ms, 15 runs).
    func installDownload(info: Info) throws(NewsstandError) {
        var info = info
        info.copySize = FileOps.regularFileSize(downloadPath)
        let data = try? Self.encoder.encode(info)
        let onDownload = AttachedRecord(holder: downloadPath, attribute: infoAttribute, fallback: infoPath)
        let attached = data.map(onDownload.attach) ?? false
        if attached { try? FileOps.setModificationDate(downloadPath, to: info.fetchedAt) }
        let failure = RetiredFiles.replace(catalogPath, with: downloadPath)
        if failure != 0 { throw FileOps.error(failure, "save", catalogPath) }
        if attached {
            // An info file of an earlier version (or of a copy that could not carry it) is stale now.
            unlink(infoPath)
        } else if let data {
            // After the copy, never before: an info left with the copy it does not describe
            // would lend that copy its validators. Not waited for either: lost, it costs one
            // whole fetch (see ``readInfo()``).
            try infoRecord.keepBeside(data)
            try? FileOps.setModificationDate(infoPath, to: info.fetchedAt)
        }
    }

    /// Saves what is known of the copy, without waiting for the disk: news that may be lost. A
    /// power cut can then leave no info, and the next refresh fetches the catalog whole, which is
    /// safe; the copy stays usable offline meanwhile.
    func writeInfo(_ info: Info) throws(NewsstandError) {
        guard let data = try? Self.encoder.encode(info) else { return }
        let attached = try infoRecord.write(data)
        try? FileOps.setModificationDate(attached ? catalogPath : infoPath, to: info.fetchedAt)
    }

    /// Where the copy's info is kept: the copy's attribute, else the file beside it.
    private var infoRecord: AttachedRecord {
        AttachedRecord(holder: catalogPath, attribute: infoAttribute, fallback: infoPath)
    }

    /// Records a check that found the copy unchanged (a 304). When only the time of the check is
    /// new, that time becomes the copy's modification time and nothing is written, wherever the
    /// info is kept: a new info file renamed over the old one cost ext4 an inode and a flush of
    /// its blocks, 0.3 ms a catalog, most of a sync of a hundred unchanged ones. Anything else
    /// new (a max-age, a pause lifted) is written whole.
    func recordCheck(_ info: Info, previous: Info) throws(NewsstandError) {
        var unchanged = info
        unchanged.fetchedAt = previous.fetchedAt
        if unchanged == previous, (try? FileOps.setModificationDate(catalogPath, to: info.fetchedAt)) != nil { return }
        try writeInfo(info)
    }

    /// Tells the process-wide authenticator what an earlier process learned of how `url`'s
    /// origin authenticates, so that the first request already answers its challenge.
    func seedAuthentication(for url: URL) {
        if let known = readInfo()?.authentication, let origin = RequestProfile.origin(of: url) {
            HTTPAuthenticator.shared.seed(known, for: origin)
        }
    }

    /// Moves an unreadable copy aside (kept for a look, not used again) so that it is fetched afresh.
    func setAside() {
        rename(catalogPath, catalogPath + ".corrupt")
        unlink(infoPath)
    }

    // Dates as `2026-11-24T23:10:05Z`, written and read by hand: Foundation's `.iso8601` goes
    // through a Calendar, whose first use loads the time zone database from ICU's data (0.7 MB
    // of it paged in by every command that refreshes a catalog, a download's included).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(utcTimestamp(date))
        }
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = FeedDate.iso8601(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }()

    /// `date` in UTC to the second, as ISO 8601 writes it.
    static func utcTimestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(fields.tm_year + 1900)-\(two(fields.tm_mon + 1))-\(two(fields.tm_mday))T\(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec))Z"
    }
}
