import Crypto
import Foundation

/// Where one catalog's issues and covers live on disk, and how a download becomes an installed issue.
///
/// Layout: `<data>/<catalog key>/<issue ID>/<issue ID>.pdf`, beside `<issue ID>.pdf.part` while
/// downloading and `<issue ID>.pdf.part.json` (what the partial bytes are); covers in
/// `<data>/<catalog key>/.covers/<issue ID>`, so that an issue has a folder only once it has
/// been downloaded (a cover costs one new file, not a folder too; a start looks only at issues
/// with folders). No ID starts with a dot, so `.covers` is never an issue's folder.
/// Every ID is checked by ``IssueID/isValid(_:)`` before it becomes a path.
public struct Library: Sendable {
    /// The folder of this catalog's issues.
    public let root: String
    /// The user's newsstand data folder, which may be a link; nothing below it may be.
    private let base: String

    public init(directories: Directories, catalogURL: URL) {
        base = directories.data
        root = directories.data + "/" + Self.key(for: catalogURL)
    }

    /// A stable, safe folder name for a catalog URL: a readable slug and a hash of the whole URL.
    public static func key(for catalogURL: URL) -> String {
        let stem = catalogURL.deletingPathExtension().lastPathComponent
        let slug = String(stem.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
            .prefix(32).map(Character.init))
        let digest = SHA256.hash(data: Data(catalogURL.absoluteString.utf8))
        let hex = digest.prefix(5).map { String(format: "%02x", $0) }.joined()
        return (slug.isEmpty ? "catalog" : slug) + "-" + hex
    }

    public func folder(for id: String) -> String {
        precondition(IssueID.isValid(id), "unsafe issue ID reached the library")
        return root + "/" + id
    }

    /// The installed PDF: it exists only once complete and verified.
    public func pdfPath(for id: String) -> String { folder(for: id) + "/" + id + ".pdf" }
    /// The bytes received so far.
    public func partPath(for id: String) -> String { pdfPath(for: id) + ".part" }
    /// What the partial bytes are: their URL and validator.
    func partInfoPath(for id: String) -> String { partPath(for: id) + ".json" }
    public func coverPath(for id: String) -> String {
        precondition(IssueID.isValid(id), "unsafe issue ID reached the library")
        return coversFolder + "/" + id
    }

    private var coversFolder: String { root + "/.covers" }

    /// Creates the issue's folder (and the library's), refusing links planted in the way.
    func prepareFolder(for id: String) throws(NewsstandError) {
        try FileOps.makeDirectory(folder(for: id), trusted: base)
    }

    /// Moves a cover kept where earlier versions kept it (`<issue ID>/cover`) to its place, and
    /// removes the issue's folder if that emptied it; says whether there was one. A reader who
    /// upgrades while offline keeps the covers already fetched.
    func adoptLegacyCover(for id: String) -> Bool {
        let legacy = folder(for: id) + "/cover"
        guard FileOps.regularFileSize(legacy) != nil, rename(legacy, coverPath(for: id)) == 0 else { return false }
        // Fails, as it should, when the folder still holds the issue.
        rmdir(folder(for: id))
        return true
    }

    /// Creates the covers' folder (and the library's), refusing links planted in the way.
    func prepareCoversFolder() throws(NewsstandError) {
        try FileOps.makeDirectory(coversFolder, trusted: base)
    }

    /// What is on disk for an issue.
    public enum DiskState: Sendable, Equatable {
        case none
        case partial(bytes: Int64)
        case installed(path: String)
    }

    /// The IDs that have a folder in the library: one directory read instead of a look per issue.
    func idsWithFolders() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
    }

    public func diskState(for id: String) -> DiskState {
        if FileOps.regularFileSize(pdfPath(for: id)) != nil { return .installed(path: pdfPath(for: id)) }
        if let size = FileOps.regularFileSize(partPath(for: id)) { return .partial(bytes: size) }
        return .none
    }

    /// Removes the installed PDF and any partial download.
    public func delete(id: String) throws(NewsstandError) {
        try FileOps.remove(pdfPath(for: id))
        try discardPart(id: id)
    }

    func discardPart(id: String) throws(NewsstandError) {
        try FileOps.remove(partPath(for: id))
        try FileOps.remove(partInfoPath(for: id))
    }

    /// Checks the partial file against what the catalog promises: a PDF, of the given size and digest.
    func verify(id: String, entry: CatalogEntry) throws(NewsstandError) {
        let path = partPath(for: id)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw FileOps.error(errno, "open", path) }
        defer { close(descriptor) }
        let size = FileOps.regularFileSize(path) ?? 0
        if let expected = entry.size, expected != size {
            throw NewsstandError(.verificationFailed, "The download is \(size) bytes but the catalog says \(expected); it was discarded.")
        }
        let chunkSize = 1 << 20
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 4096)
        defer { chunk.deallocate() }
        var hasher = SHA256()
        var first = true
        while true {
            let count = read(descriptor, chunk.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileOps.error(errno, "read", path)
            }
            if count == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
            if first {
                first = false
                guard bytes.starts(with: Array("%PDF-".utf8)) else {
                    throw NewsstandError(.verificationFailed, "The server sent something that is not a PDF (a web page?); it was discarded.")
                }
                if entry.sha256 == nil { return }
            }
            hasher.update(bufferPointer: bytes)
        }
        if first {
            throw NewsstandError(.verificationFailed, "The server sent an empty file; it was discarded.")
        }
        if let expected = entry.sha256 {
            let actual = hasher.finalize().map { String(format: "%02x", $0) }.joined()
            guard actual == expected else {
                throw NewsstandError(.verificationFailed, "The download's SHA-256 does not match the catalog's; it was discarded.")
            }
        }
    }

    /// Makes the verified partial file the installed PDF: flushed, then renamed, so the final name
    /// never holds an incomplete file.
    func install(id: String) throws(NewsstandError) {
        let part = partPath(for: id)
        try FileOps.sync(part)
        if rename(part, pdfPath(for: id)) != 0 { throw FileOps.error(errno, "install", pdfPath(for: id)) }
        FileOps.syncDirectory(folder(for: id))
        try? FileOps.remove(partInfoPath(for: id))
    }

    /// The bytes on disk under the library, installed and partial.
    public func sizeOnDisk() -> Int64 {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return 0 }
        var total: Int64 = 0
        while let name = enumerator.nextObject() as? String {
            if let size = FileOps.regularFileSize(root + "/" + name) { total += size }
        }
        return total
    }
}

/// What a `.part` file holds, saved beside it so that a later run can resume it safely.
struct PartInfo: Codable, Equatable {
    var url: String
    /// The ETag or Last-Modified of the response the bytes came from.
    var validator: String?
}

extension Library {
    func readPartInfo(id: String) -> PartInfo? {
        guard let data = FileManager.default.contents(atPath: partInfoPath(for: id)) else { return nil }
        return try? JSONDecoder().decode(PartInfo.self, from: data)
    }

    func writePartInfo(_ info: PartInfo, id: String) {
        guard let data = try? JSONEncoder().encode(info) else { return }
        try? FileOps.writeAtomically(data, to: partInfoPath(for: id))
    }
}
