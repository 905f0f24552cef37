import Foundation

/// What a `.part` file holds, kept with it so that a later run can resume it safely.
struct PartInfo: Codable, Equatable {
    var url: String
    /// The ETag or Last-Modified of the response the bytes came from.
    var validator: String?
    /// The file name the server gave the download, kept to be shown.
    var serverFileName: String?
}

/// A part's info is an ``AttachedRecord`` of the part: the extended attribute
/// `user.newsstand.part`, or the `.part.json` file beside the part where the file system refuses
/// the attribute, which is also where versions before this one kept it, and is still read.
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
        guard let (data, _) = partInfoRecord(for: key, as: type).read() else { return nil }
        return try? JSONDecoder().decode(PartInfo.self, from: data)
    }

    /// Saves what the partial bytes are, in the background. Not waited onto the disk: it is worth
    /// as much as the partial bytes it describes, which are not either until they are installed
    /// (a kill leaves both in the page cache; a power cut may take both).
    func writePartInfo(_ info: PartInfo, key: String, type: MediaType) {
        guard let data = try? JSONEncoder().encode(info) else { return }
        let path = partInfoPath(for: key, as: type)
        let record = partInfoRecord(for: key, as: type)
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
            // The transfer reports its response once the part is open, so the part is there to carry it.
            _ = try? record.write(data)
            pending.withLock { writes in
                guard var entry = writes[path] else { return }
                entry.count -= 1
                writes[path] = entry.count == 0 ? nil : entry
            }
            group.leave()
        }
    }

    /// Where the info of the part of `key` is kept.
    func partInfoRecord(for key: String, as type: MediaType) -> AttachedRecord {
        AttachedRecord(holder: partPath(for: key, as: type), attribute: partInfoAttribute, fallback: partInfoPath(for: key, as: type))
    }
}
