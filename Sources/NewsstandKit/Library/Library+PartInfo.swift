import Foundation

/// What a `.part` file holds, kept with it so that a later run can resume it safely.
struct PartInfo: Codable, Equatable {
    var url: String
    /// The ETag or Last-Modified of the response the bytes came from.
    var validator: String?
    /// The file name the server gave the download, kept to be shown.
    var serverFileName: String?
}

/// A part's info is an extended attribute of the part itself: no file is made, renamed or
/// removed for it. On a file system without a journal (as on the machine the bench runs on),
/// making a file scans the inode table past every file deleted in the last minutes: 100 info
/// files written through a temporary file and removed at install took 47 ms, the same 100
/// attributes set and removed 1.5 ms. A file system that refuses the attribute (one without
/// user attributes, or an info larger than it keeps) gets the `.part.json` file beside the part,
/// which is also where versions before this one kept it, and is still read.
extension Library {
    static let partInfoAttributeName = "user.newsstand.part"

    /// Writes of part infos, in order, off the transfer threads: a write there would stall every
    /// transfer on the thread. Installing, discarding or reading a part waits for the writes of
    /// that part only: waiting for every part's, as it once did, held each install of a sync
    /// behind the other downloads' writes.
    static let journal = DispatchQueue(label: "newsstand.part-info")
    /// For tests: runs in the journal before each write, given the part info's path (which names
    /// the info wherever it is kept).
    static let journalWillWrite = Locked<(@Sendable (String) -> Void)?>(nil)
    /// The writes queued for each part-info path and not yet done, and a group they are in.
    private static let pendingWrites = Locked<[String: (count: Int, group: DispatchGroup)]>([:])

    /// Returns once the writes queued for the part info at `path` are done.
    static func waitForPartInfo(at path: String) {
        pendingWrites.withLock { $0[path]?.group }?.wait()
    }

    func readPartInfo(key: String, type: MediaType) -> PartInfo? {
        let path = partInfoPath(for: key, as: type)
        Self.waitForPartInfo(at: path)
        let kept = partInfoAttribute.flatMap { FileOps.attribute($0, of: partPath(for: key, as: type)) }
        guard let data = kept ?? FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(PartInfo.self, from: data)
    }

    /// Saves what the partial bytes are, in the background. Not waited onto the disk: it is worth
    /// as much as the partial bytes it describes, which are not either until they are installed
    /// (a kill leaves both in the page cache; a power cut may take both).
    func writePartInfo(_ info: PartInfo, key: String, type: MediaType) {
        guard let data = try? JSONEncoder().encode(info) else { return }
        let path = partInfoPath(for: key, as: type)
        let part = partPath(for: key, as: type)
        let attribute = partInfoAttribute
        let pending = Self.pendingWrites
        let group = pending.withLock { writes -> DispatchGroup in
            var entry = writes[path] ?? (0, DispatchGroup())
            entry.count += 1
            entry.group.enter()
            writes[path] = entry
            return entry.group
        }
        Self.journal.async {
            Self.journalWillWrite.withLock { $0 }?(path)
            Self.keep(data, with: part, as: attribute, orIn: path)
            pending.withLock { writes in
                guard var entry = writes[path] else { return }
                entry.count -= 1
                writes[path] = entry.count == 0 ? nil : entry
            }
            group.leave()
        }
    }

    /// Keeps `data` as the part's `attribute`, or in the file at `path` when the part cannot
    /// carry it. Links are never followed.
    private static func keep(_ data: Data, with part: String, as attribute: String?, orIn path: String) {
        if let attribute {
            if FileOps.setAttribute(attribute, data, of: part) { return }
            if errno == ENOENT {
                // The transfer makes its part just after the response is reported: make it first
                // (the transfer opens it without truncating an empty file).
                let descriptor = open(part, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
                if descriptor >= 0 { close(descriptor) }
                if FileOps.setAttribute(attribute, data, of: part) { return }
            }
            // An attribute left by an earlier response would be read before the file.
            FileOps.removeAttribute(attribute, of: part)
        }
        try? FileOps.writeAtomically(data, to: path, durable: false)
    }
}
