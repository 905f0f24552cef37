import Foundation

/// Where one subscription's issues and covers live on disk, and how a download becomes an
/// installed issue.
///
/// Layout: `<data>/<subscription>/<key>/<key>.<type>` (`.pdf`, `.epub`, `.cbz`, `.hpub`), beside
/// `<key>.<type>.part` while downloading, which carries what its bytes are (``PartInfo``) in an
/// extended attribute (or, where the file system keeps none, `<key>.<type>.part.json`); covers
/// in `<data>/<subscription>/.covers/<key>`, so that an issue has a folder only once it has been
/// downloaded. Keys come from ``LocalKey`` and never start with a dot, so `.covers`
/// is never an issue's folder; every key is checked again before it becomes a path.
public struct Library: Sendable {
    /// The folder of this subscription's issues.
    public let root: String
    /// The user's newsstand data folder, which may be a link; nothing below it may be.
    private let base: String

    /// The extended attribute of a `.part` file that holds its ``PartInfo``; nil keeps it in a
    /// file beside the part instead, as on a file system without user attributes.
    var partInfoAttribute: String? = Self.partInfoAttributeName

    public init(directories: Directories, subscriptionName: String) {
        precondition(Subscription.isValidName(subscriptionName) || LocalKey.isValid(subscriptionName), "unsafe subscription name")
        base = directories.data
        root = directories.data + "/" + subscriptionName
    }

    /// The folder name earlier versions gave a catalog: a readable slug and a hash of its URL.
    public static func legacyKey(for catalogURL: URL) -> String {
        let stem = catalogURL.deletingPathExtension().lastPathComponent
        let slug = String(stem.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
            .prefix(32).map(Character.init))
        let hex = Hex.string(Digest.sha256(catalogURL.absoluteString).prefix(5))
        return (slug.isEmpty ? "catalog" : slug) + "-" + hex
    }

    public func folder(for key: String) -> String {
        precondition(LocalKey.isValid(key), "unsafe local key reached the library")
        return root + "/" + key
    }

    /// The installed file: it exists only once complete and verified.
    public func filePath(for key: String, as type: MediaType) -> String { folder(for: key) + "/" + key + "." + type.fileExtension }
    /// The bytes received so far.
    public func partPath(for key: String, as type: MediaType) -> String { filePath(for: key, as: type) + ".part" }
    /// The server's name for the installed file, as it sent it (Content-Disposition).
    func serverNamePath(for key: String) -> String { folder(for: key) + "/" + key + ".server-name" }

    /// The file name the server gave the installed issue, when it gave one.
    public func serverFileName(for key: String) -> String? {
        guard let data = FileManager.default.contents(atPath: serverNamePath(for: key)), data.count <= 1024 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Where an HPub is unpacked when first opened.
    public func pagesPath(for key: String) -> String { folder(for: key) + "/" + key + ".pages" }
    /// Where what the partial bytes are (``PartInfo``) is kept when their file cannot carry it.
    func partInfoPath(for key: String, as type: MediaType) -> String { partPath(for: key, as: type) + ".json" }
    public func coverPath(for key: String) -> String {
        precondition(LocalKey.isValid(key), "unsafe local key reached the library")
        return coversFolder + "/" + key
    }

    private var coversFolder: String { root + "/.covers" }

    /// Beside a cover made from the issue rather than fetched from the catalog's address.
    public func madeCoverMarkerPath(for key: String) -> String {
        coverPath(for: key) + ".made"
    }

    /// Creates the folder (and the library's), refusing links planted in the way.
    func prepareFolder(for key: String) throws(NewsstandError) {
        try FileOps.makeDirectory(folder(for: key), trusted: base)
    }

    /// Moves a cover kept where earlier versions kept it (`<key>/cover`) to its place, and
    /// removes the folder if that emptied it; says whether there was one. A reader who
    /// upgrades while offline keeps the covers already fetched.
    func adoptLegacyCover(for key: String) -> Bool {
        let legacy = folder(for: key) + "/cover"
        guard FileOps.regularFileSize(legacy) != nil, rename(legacy, coverPath(for: key)) == 0 else { return false }
        // Fails, as it should, when the folder still holds the issue.
        rmdir(folder(for: key))
        return true
    }

    /// Creates the covers' folder (and the library's), refusing links planted in the way.
    func prepareCoversFolder() throws(NewsstandError) {
        try FileOps.makeDirectory(coversFolder, trusted: base)
    }

    /// What is on disk for an issue.
    public enum DiskState: Sendable, Equatable {
        case none
        case partial(bytes: Int64, type: MediaType)
        case installed(path: String, type: MediaType)
    }

    /// The keys that have a folder in the library: one directory read instead of a look per issue.
    func keysWithFolders() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
    }

    /// What is on disk for `key`: an installed file of any type first, else a partial one of `preferred`'s type.
    public func diskState(for key: String, preferred: MediaType) -> DiskState {
        for type in [preferred] + MediaType.allCases.filter({ $0 != preferred }) {
            let path = filePath(for: key, as: type)
            if FileOps.regularFileSize(path) != nil { return .installed(path: path, type: type) }
        }
        if let size = FileOps.regularFileSize(partPath(for: key, as: preferred)) { return .partial(bytes: size, type: preferred) }
        return .none
    }

    /// Removes every installed file and partial download of the issue, and its folder when empty.
    public func delete(key: String) throws(NewsstandError) {
        for type in MediaType.allCases {
            Self.waitForPartInfo(at: partInfoPath(for: key, as: type))
            try FileOps.remove(filePath(for: key, as: type))
            try FileOps.remove(partPath(for: key, as: type))
            try FileOps.remove(partInfoPath(for: key, as: type))
        }
        HPubArchive.removeTree(pagesPath(for: key))
        try FileOps.remove(serverNamePath(for: key))
        // The folder goes only when no download holds its lock (a writer in another process
        // may be about to make its part); the lock file of versions before folder locks with it.
        let folder = folder(for: key)
        if let lock = try? FileLock(folder: folder, whenHeld: NewsstandError(.busy, "")) {
            unlink(folder + "/.lock")
            rmdir(folder)
            _ = consume lock
        }
    }

    func discardPart(key: String, type: MediaType) throws(NewsstandError) {
        Self.waitForPartInfo(at: partInfoPath(for: key, as: type))
        try FileOps.remove(partPath(for: key, as: type))
        try FileOps.remove(partInfoPath(for: key, as: type))
    }

    /// Checks the partial file against what the catalog promises: its type's signature, its size
    /// and digest. `digest`, computed as the file was written, spares reading it all back.
    func verify(key: String, entry: CatalogEntry, digest: GrowingFileDigest? = nil) throws(NewsstandError) {
        let type = entry.mediaType
        let path = partPath(for: key, as: type)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw FileOps.error(errno, "open", path) }
        defer { close(descriptor) }
        let size = FileOps.regularFileSize(path) ?? 0
        if let expected = entry.promisedSize, expected != size {
            throw NewsstandError(.verificationFailed, "The download is \(size) bytes but the catalog says \(expected); it was discarded.")
        }
        var leading = [UInt8](repeating: 0, count: 12)
        let count = try Self.read(descriptor, into: &leading, at: 0, path: path)
        if count == 0 {
            throw NewsstandError(.verificationFailed, "The server sent an empty file; it was discarded.")
        }
        guard type.matchesSignature(leading.prefix(count)) else {
            let article = type == .epub ? "an" : "a"
            throw NewsstandError(.verificationFailed, "The server sent something that is not \(article) \(type.name) (a web page?); it was discarded.")
        }
        guard let expected = entry.sha256 else { return }
        var actual = try digest?.hexDigest(ofFirst: size)
        if actual == nil { actual = try Self.sha256(of: descriptor, path: path) }
        guard actual == expected else {
            throw NewsstandError(.verificationFailed, "The download's SHA-256 does not match the catalog's; it was discarded.")
        }
    }

    /// Reads up to `bytes.count` bytes at `offset`; returns how many.
    private static func read(_ descriptor: Int32, into bytes: inout [UInt8], at offset: off_t, path: String) throws(NewsstandError) -> Int {
        while true {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count >= 0 { return count }
            if errno != EINTR { throw FileOps.error(errno, "read", path) }
        }
    }

    /// The file's SHA-256, read from its start: for a file no transfer wrote just now (a part a
    /// server says is already complete).
    private static func sha256(of descriptor: Int32, path: String) throws(NewsstandError) -> String {
        let chunkSize = 1 << 20
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 4096)
        defer { chunk.deallocate() }
        var hasher = Digest.SHA256Stream()
        var offset: off_t = 0
        while true {
            let count = pread(descriptor, chunk.baseAddress, chunkSize, offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileOps.error(errno, "read", path)
            }
            if count == 0 { break }
            hasher.add(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
            offset += off_t(count)
        }
        return hasher.hex()
    }

    /// Makes the verified partial file the installed issue: flushed, then renamed, so the final
    /// name never holds an incomplete file.
    func install(key: String, type: MediaType) throws(NewsstandError) {
        let part = partPath(for: key, as: type)
        let serverName = readPartInfo(key: key, type: type)?.serverFileName
        // The installed issue does not carry what its part was.
        if let partInfoAttribute { FileOps.removeAttribute(partInfoAttribute, of: part) }
        try FileOps.sync(part)
        if rename(part, filePath(for: key, as: type)) != 0 { throw FileOps.error(errno, "install", filePath(for: key, as: type)) }
        if let serverName { try? FileOps.writeAtomically(Data(serverName.utf8), to: serverNamePath(for: key), durable: false) }
        FileOps.syncDirectory(folder(for: key))
        try? FileOps.remove(partInfoPath(for: key, as: type))
    }

    /// The bytes on disk under the library: issues installed and partial, and the covers.
    public func sizeOnDisk() -> Int64 {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return 0 }
        var total: Int64 = 0
        while let name = enumerator.nextObject() as? String {
            if let size = FileOps.regularFileSize(root + "/" + name) { total += size }
        }
        return total
    }

    /// The bytes of the covers kept for the shelf (part of ``sizeOnDisk()``).
    public func coversSizeOnDisk() -> Int64 {
        ((try? FileManager.default.contentsOfDirectory(atPath: coversFolder)) ?? [])
            .reduce(0) { $0 + (FileOps.regularFileSize(coversFolder + "/" + $1) ?? 0) }
    }

    /// The bytes of one issue's folder.
    public func sizeOnDisk(key: String) -> Int64 {
        let folder = folder(for: key)
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .reduce(0) { $0 + (FileOps.regularFileSize(folder + "/" + $1) ?? 0) }
    }

    // MARK: Moving a library made by an earlier version

    /// Moves the folder an earlier version made for `catalogURL` (a hash of the URL) to this
    /// library's place, without the network: renamed whole when this one does not exist yet,
    /// else entry by entry, never over anything already here. Returns whether anything moved.
    @discardableResult
    public func adoptLegacyLibrary(of catalogURL: URL) throws(NewsstandError) -> Bool {
        let legacy = base + "/" + Self.legacyKey(for: catalogURL)
        guard legacy != root else { return false }
        var info = stat()
        guard lstat(legacy, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return false }
        try FileOps.makeDirectory(base, trusted: base)
        if lstat(root, &info) != 0 {
            if rename(legacy, root) != 0 { throw FileOps.error(errno, "move", legacy) }
            FileOps.syncDirectory(base)
            return true
        }
        var moved = false
        func merge(_ from: String, _ to: String) throws(NewsstandError) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: from)) ?? [] {
                let source = from + "/" + name, target = to + "/" + name
                var sourceInfo = stat(), targetInfo = stat()
                guard lstat(source, &sourceInfo) == 0 else { continue }
                if lstat(target, &targetInfo) != 0 {
                    if rename(source, target) != 0 { throw FileOps.error(errno, "move", source) }
                    moved = true
                } else if (sourceInfo.st_mode & S_IFMT) == S_IFDIR && (targetInfo.st_mode & S_IFMT) == S_IFDIR {
                    try merge(source, target)
                }
            }
            rmdir(from)
        }
        try merge(legacy, root)
        FileOps.syncDirectory(base)
        return moved
    }
}
