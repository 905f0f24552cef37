import Foundation
import TOMLKit

/// Turns a folder of issues (PDF, EPUB, CBZ, HPub) into catalogs a static web server serves:
/// `catalog.plist`, `opds-root.xml` and `opds.xml` (paged), `opds.json`, `feed.rss`, `feed.json`,
/// with a cover per issue in `covers/`.
///
/// Incremental and stable: `.newsstand-publish.json` remembers each file read (its size, time,
/// hash, ID and metadata), so a run reads only new or changed files; an ID, once given, stays;
/// an output whose bytes would not change is not written again (its time stays, and so do the
/// ETags of the server in front of it). Every file is written to a temporary name and renamed.
public struct Publisher {
    /// What a run did.
    public struct Report: Sendable, Equatable {
        public var issues = 0
        /// Files read (hashed, their metadata taken) this run; the others came from the manifest.
        public var read: [String] = []
        /// Outputs written; the others had the same bytes already.
        public var written: [String] = []
        /// Covers made from issues this run.
        public var coversMade = 0
        /// Files that could not be published, with why.
        public var problems: [String] = []
    }

    public let folder: String
    public let baseURL: URL
    public var pageSize = 100

    public init(folder: String, baseURL: URL) {
        self.folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        self.baseURL = baseURL
    }

    static let manifestName = ".newsstand-publish.json"
    static let settingsName = "newsstand-publish.toml"
    static let outputs: Set<String> = ["catalog.plist", "opds-root.xml", "opds.json", "feed.rss", "feed.json"]

    /// The folder's settings: the publication's title and language, and per-file titles,
    /// summaries and prices.
    struct Settings {
        var title: String?
        var language: String?
        var issues: [String: (title: String?, summary: String?, free: Bool?)] = [:]
    }

    public func publish() throws(NewsstandError) -> Report {
        guard let scheme = baseURL.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw NewsstandError(.configuration, "--base-url must be an http or https address.")
        }
        let settings = try readSettings()
        var manifest = readManifest()
        var report = Report()
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        let present = Set(names)
        var issues: [PublishedIssue] = []
        try FileOps.makeDirectory(folder + "/covers", trusted: folder)
        for name in names where !name.hasPrefix(".") {
            // By its extension alone: a name may hold `?` or `#`, which an address would cut at.
            // Pictures here are covers, not issues.
            guard let type = MediaType(address: "issue." + FileName.pathExtension(name)), !type.isPicture else { continue }
            let path = folder + "/" + name
            var info = stat()
            // Only regular files of the folder itself: a link could lead anywhere.
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            var issue: PublishedIssue
            if let known = manifest[name], known.size == Int64(info.st_size), known.modified == modified {
                issue = known
            } else {
                guard let sha256 = Self.sha256(of: path) else {
                    report.problems.append("\(TextSanitizer.inert(name)): it cannot be read.")
                    continue
                }
                let metadata = IssueMetadata.read(path: path, name: name, type: type, modified: Date(timeIntervalSince1970: Double(modified / 1_000_000_000)))
                // The ID given the first time stays, whatever the file becomes.
                let id = manifest[name]?.id ?? Self.uniqueID(String(sha256.prefix(16)), taken: Set(manifest.values.map(\.id)))
                issue = PublishedIssue(file: name, id: id, size: Int64(info.st_size), modified: modified, sha256: sha256,
                                       mediaType: type.mimeType, metadata: metadata)
                report.read.append(name)
            }
            // A picture beside the issue with the same name is its cover; else one made from it.
            let stem = FileName.stem(name)
            if let beside = ["png", "jpg", "jpeg", "webp"].map({ stem + "." + $0 }).first(where: present.contains) {
                issue.cover = beside
            } else {
                let made = "covers/\(issue.id).png"
                if FileOps.regularFileSize(folder + "/" + made) == nil {
                    do throws(NewsstandError) {
                        try IssueCoverMaker.make(from: path, type: type, into: folder + "/" + made)
                        report.coversMade += 1
                    } catch {
                        report.problems.append("\(TextSanitizer.inert(name)): no cover (\(error.message))")
                    }
                }
                issue.cover = FileOps.regularFileSize(folder + "/" + made) == nil ? nil : made
            }
            var shown = issue
            if let override = settings.issues[name] {
                if let title = override.title { shown.metadata.title = TextSanitizer.inert(title) }
                if let summary = override.summary { shown.metadata.summary = TextSanitizer.inert(summary) }
                if let free = override.free { shown.free = free }
            }
            manifest[name] = issue
            issues.append(shown)
        }
        // Files gone from the folder leave the manifest (their IDs could come back with them: kept below).
        manifest = manifest.filter { present.contains($0.key) }
        issues.sort { ($0.metadata.date, $1.file) > ($1.metadata.date, $0.file) }
        report.issues = issues.count
        let title = settings.title ?? (folder as NSString).lastPathComponent
        let writer = CatalogWriter(title: TextSanitizer.inert(title), language: settings.language, baseURL: baseURL, issues: issues, pageSize: pageSize)
        for (name, data) in writer.documents() where try writeIfChanged(data, to: folder + "/" + name) {
            report.written.append(name)
        }
        try writeManifest(manifest)
        return report
    }

    // MARK: Files

    private static func uniqueID(_ id: String, taken: Set<String>) -> String {
        var candidate = id, suffix = 2
        while taken.contains(candidate) {
            candidate = "\(id)-\(suffix)"
            suffix += 1
        }
        return candidate
    }

    static func sha256(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = Digest.SHA256Stream()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { chunk.withUnsafeBytes { hasher.add($0) } }
        return hasher.hex()
    }

    /// Writes `data` unless the file holds the same bytes already; says whether it wrote.
    private func writeIfChanged(_ data: Data, to path: String) throws(NewsstandError) -> Bool {
        if let existing = FileManager.default.contents(atPath: path), existing == data { return false }
        try FileOps.writeAtomically(data, to: path, durable: false)
        return true
    }

    /// The manifest, read with JSONSerialization: a folder of 10,000 issues is read in a blink,
    /// where Codable took a second.
    private func readManifest() -> [String: PublishedIssue] {
        // Decoded straight into rows (JSONSerialization made an NSNumber and a dictionary of
        // each, a seventh of a re-run over 10,000 files); a row that lacks a field is skipped.
        guard let data = FileManager.default.contents(atPath: folder + "/" + Self.manifestName),
              let rows = try? JSONDecoder().decode([ManifestRow.Lenient].self, from: data)
        else { return [:] }
        var manifest: [String: PublishedIssue] = [:]
        manifest.reserveCapacity(rows.count)
        for case let row? in rows.map(\.row) {
            let metadata = IssueMetadata(title: row.title, date: Date(timeIntervalSince1970: row.date), summary: row.summary)
            manifest[row.file] = PublishedIssue(file: row.file, id: row.id, size: row.size, modified: row.modified, sha256: row.sha256,
                                                mediaType: row.mediaType, metadata: metadata)
        }
        return manifest
    }

    /// One file as the manifest records it.
    private struct ManifestRow: Decodable {
        var file: String
        var id: String
        var size: Int64
        var modified: Int64
        var sha256: String
        var mediaType: String
        var title: String
        var date: Double
        var summary: String?

        /// A row, or nil for one that lacks a field (the other rows are read all the same).
        struct Lenient: Decodable {
            var row: ManifestRow?
            init(from decoder: any Decoder) throws { row = try? ManifestRow(from: decoder) }
        }
    }

    private func writeManifest(_ manifest: [String: PublishedIssue]) throws(NewsstandError) {
        var json = JSONWriter(capacity: manifest.count * 300)
        json.beginArray()
        for issue in manifest.values.sorted(by: { $0.file < $1.file }) {
            json.beginObject()
            json.key("date")
            json.number(issue.metadata.date.timeIntervalSince1970)
            json.field("file", issue.file)
            json.field("id", issue.id)
            json.field("mediaType", issue.mediaType)
            json.field("modified", issue.modified)
            json.field("sha256", issue.sha256)
            json.field("size", issue.size)
            json.field("summary", issue.metadata.summary)
            json.field("title", issue.metadata.title)
            json.endObject()
        }
        json.endArray()
        _ = try writeIfChanged(Data(json.bytes + [0x0A]), to: folder + "/" + Self.manifestName)
    }

    private func readSettings() throws(NewsstandError) -> Settings {
        let path = folder + "/" + Self.settingsName
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return Settings() }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch {
            throw NewsstandError(.configuration, "\(path): not valid TOML (\(error)).")
        }
        var settings = Settings()
        settings.title = root["title"]?.string
        settings.language = root["language"]?.string
        if let table = root["issues"]?.table {
            for name in table.keys {
                guard let issue = table[name]?.table else {
                    throw NewsstandError(.configuration, "\(path): issues.\(name): expected a table with title, summary or free.")
                }
                settings.issues[name] = (issue["title"]?.string, issue["summary"]?.string, issue["free"]?.bool)
            }
        }
        return settings
    }
}
