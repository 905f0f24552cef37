import Foundation
import ZIPFoundation

// With ZipFile, the only files that import ZIPFoundation: unpacking here, single entries there.

/// Baker's HPub: a zip of HTML pages with a `book.json` naming them in order.
///
/// The downloaded zip stays the installed issue (sizes, the budget and deleting see one file);
/// it is unpacked next to it when first opened. Unpacking trusts nothing in the archive: a name
/// that is absolute or climbs out with `..`, a link, too many entries or too many bytes refuse
/// the whole archive, and files are written only inside a fresh folder that is renamed into
/// place once complete.
public enum HPubArchive {
    /// Entries in one archive at most.
    public static let maximumEntries = 20_000
    /// Bytes once unpacked, in all.
    public static let maximumBytes: Int64 = 4 << 30

    /// Checks that the archive can be read and unpacked safely, without writing anything.
    public static func check(_ path: String) throws(NewsstandError) {
        _ = try plan(path)
    }

    /// Unpacks the HPub at `path` into `folder` (unless an earlier unpacking finished) and returns
    /// the absolute path of its first page.
    public static func firstPage(of path: String, unpackingInto folder: String) throws(NewsstandError) -> String {
        if FileOps.regularFileSize(folder + "/" + completeMarker) == nil {
            try unpack(path, into: folder)
        }
        return try firstPage(in: folder)
    }

    /// Written last: a folder without it is an interrupted unpacking, done again.
    static let completeMarker = ".newsstand-unpacked"

    private struct Plan {
        var archive: Archive
        var entries: [(entry: Entry, path: [String])]
    }

    private static func plan(_ path: String) throws(NewsstandError) -> Plan {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw NewsstandError(.verificationFailed, "The HPub is not a readable zip archive.")
        }
        var entries: [(Entry, [String])] = []
        var total: Int64 = 0
        for entry in archive {
            guard entries.count < maximumEntries else {
                throw NewsstandError(.verificationFailed, "The HPub holds more than \(maximumEntries) files; it is not unpacked.")
            }
            guard entry.type != .symlink else {
                throw NewsstandError(.verificationFailed, "The HPub holds a link (\(TextSanitizer.inert(entry.path))); it is not unpacked.")
            }
            guard let components = safeComponents(entry.path) else {
                throw NewsstandError(.verificationFailed, "The HPub names a file outside its folder (\(TextSanitizer.inert(entry.path))); it is not unpacked.")
            }
            total += Int64(clamping: entry.uncompressedSize)
            guard total <= maximumBytes else {
                throw NewsstandError(.verificationFailed, "The HPub unpacks to more than \(Formatting.bytes(maximumBytes)); it is not unpacked.")
            }
            entries.append((entry, components))
        }
        guard entries.contains(where: { $0.1 == ["book.json"] }) else {
            throw NewsstandError(.verificationFailed, "The HPub has no book.json, so it has no first page.")
        }
        return Plan(archive: archive, entries: entries)
    }

    /// The path's components when it stays inside the folder: relative, no `..`, no empty or
    /// control-character names, no backslashes (which other systems read as separators).
    static func safeComponents(_ path: String) -> [String]? {
        guard !path.hasPrefix("/"), !path.contains("\\"), path.utf8.count <= 1024 else { return nil }
        let components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
        guard !components.isEmpty else { return nil }
        for component in components {
            if component == ".." || component.utf8.count > 255 { return nil }
            if component.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return nil }
        }
        return components
    }

    private static func unpack(_ path: String, into folder: String) throws(NewsstandError) {
        let plan = try plan(path)
        let temporary = folder + ".unpacking-\(getpid())"
        removeTree(temporary)
        guard mkdir(temporary, 0o755) == 0 else { throw FileOps.error(errno, "create", temporary) }
        var written: Int64 = 0
        do throws(NewsstandError) {
            for (entry, components) in plan.entries {
                var directory = temporary
                let isDirectory = entry.type == .directory
                for component in (isDirectory ? components : Array(components.dropLast())) {
                    directory += "/" + component
                    if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw FileOps.error(errno, "create", directory) }
                }
                if isDirectory { continue }
                let target = directory + "/" + components[components.count - 1]
                let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                guard descriptor >= 0 else { throw FileOps.error(errno, "create", target) }
                defer { close(descriptor) }
                let declared = Int64(clamping: entry.uncompressedSize)
                var entryBytes: Int64 = 0
                do {
                    _ = try plan.archive.extract(entry) { data in
                        // Counted as written: a zip's header may lie about the size.
                        entryBytes += Int64(data.count)
                        written += Int64(data.count)
                        guard entryBytes <= declared, written <= maximumBytes else { throw HPubTooLarge() }
                        let failure = data.withUnsafeBytes { FileOps.writeAll($0, to: descriptor) }
                        if failure != 0 { throw FileOps.error(failure, "write", target) }
                    }
                } catch let error as NewsstandError {
                    throw error
                } catch is HPubTooLarge {
                    throw NewsstandError(.verificationFailed, "The HPub holds more bytes than its index says; it is not unpacked.")
                } catch {
                    throw NewsstandError(.verificationFailed, "The HPub's \(TextSanitizer.inert(entry.path)) cannot be unpacked (it is damaged).")
                }
            }
            try FileOps.writeAtomically(Data(), to: temporary + "/" + completeMarker)
        } catch {
            removeTree(temporary)
            throw error
        }
        removeTree(folder)
        guard rename(temporary, folder) == 0 else {
            let error = FileOps.error(errno, "install", folder)
            removeTree(temporary)
            throw error
        }
    }

    private struct HPubTooLarge: Error {}

    /// The first page `book.json` names (its `contents`), else `index.html`.
    private static func firstPage(in folder: String) throws(NewsstandError) -> String {
        var candidates: [String] = []
        if let data = FileManager.default.contents(atPath: folder + "/book.json"),
           let book = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            for item in book["contents"] as? [Any] ?? [] {
                if let page = item as? String { candidates.append(page) }
                if let page = (item as? [String: Any])?["url"] as? String { candidates.append(page) }
            }
        }
        candidates.append("index.html")
        for candidate in candidates {
            let bare = candidate.split(separator: "#", maxSplits: 1).first.map(String.init) ?? candidate
            guard let components = safeComponents(bare.removingPercentEncoding ?? bare) else { continue }
            let path = folder + "/" + components.joined(separator: "/")
            if FileOps.regularFileSize(path) != nil { return path }
        }
        throw NewsstandError(.verificationFailed, "The HPub's book.json names no page that is in the archive.")
    }

    /// Removes a folder this code made, and everything in it (links are removed, never followed).
    static func removeTree(_ path: String) {
        guard let enumerator = FileManager.default.enumerator(atPath: path) else {
            unlink(path)
            return
        }
        var directories: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let full = path + "/" + relative
            var info = stat()
            guard lstat(full, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR { directories.append(full) } else { unlink(full) }
        }
        for directory in directories.reversed() { rmdir(directory) }
        rmdir(path)
    }
}
