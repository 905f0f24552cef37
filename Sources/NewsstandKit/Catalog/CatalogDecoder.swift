import Foundation

/// Turns the bytes of a catalog property list into a ``Catalog``.
///
/// The root is either an array of issue dictionaries or a dictionary with an `Issues` array
/// and an optional `Title`. Entries with a missing or mistyped required key, an unsafe ID,
/// a duplicate ID or a URL that may not be fetched are skipped with a warning; the rest load.
public struct CatalogDecoder: Sendable {
    /// The largest catalog accepted, in bytes.
    public var maximumSize: Int
    /// The deepest nesting of arrays and dictionaries accepted.
    public var maximumDepth: Int

    public init(maximumSize: Int = 128 << 20, maximumDepth: Int = 16) {
        self.maximumSize = maximumSize
        self.maximumDepth = maximumDepth
    }

    /// Decodes `data`, resolving relative URLs against `baseURL`.
    ///
    /// `file` URLs are accepted only when `baseURL` is itself a file, that is for a catalog the
    /// user named on this machine.
    public func decode(_ data: Data, baseURL: URL) throws(NewsstandError) -> Catalog {
        guard data.count <= maximumSize else {
            throw NewsstandError(.invalidCatalog, "The catalog is \(data.count) bytes, more than the \(maximumSize) allowed.")
        }
        let root = try Self.parse(data, maximumDepth: maximumDepth)

        let title: String?
        let items: [PropertyListValue]
        switch root {
        case .array(let array):
            title = nil
            items = array
        case .dictionary(let dictionary):
            guard case .array(let array)? = dictionary["Issues"] else {
                throw NewsstandError(.invalidCatalog, "The catalog's root dictionary has no `Issues` array.")
            }
            if case .string(let string)? = dictionary["Title"] { title = string } else { title = nil }
            items = array
        default:
            throw NewsstandError(.invalidCatalog, "The catalog's root must be an array of issues or a dictionary with `Issues`.")
        }

        let allowFiles = baseURL.isFileURL
        let resolver = URLResolver(base: baseURL)
        var entries: [CatalogEntry] = []
        entries.reserveCapacity(items.count)
        var warnings: [String] = []
        var seen = Set<String>(minimumCapacity: items.count)
        for (index, result) in Self.entries(items, resolver: resolver, allowFiles: allowFiles).enumerated() {
            switch result {
            case .success(let entry):
                if seen.insert(entry.id).inserted {
                    entries.append(entry)
                } else {
                    warnings.append("Skipped issue \(index + 1) (ID \(Self.quoted(entry.id))): the ID is used twice.")
                }
            case .failure(let warning):
                warnings.append(warning.message)
            }
        }
        return Catalog(title: title, entries: entries, warnings: warnings)
    }

    private struct Warning: Error {
        let message: String
    }

    /// Each item's entry or warning, in order. Parsing URLs is most of the cost, and entries
    /// are independent: a large catalog is cut into pieces checked on every core at once.
    private static func entries(_ items: [PropertyListValue], resolver: URLResolver, allowFiles: Bool) -> [Result<CatalogEntry, Warning>] {
        let pieces = items.count < 8_192 ? 1 : min(16, ProcessInfo.processInfo.activeProcessorCount * 2)
        if pieces == 1 {
            return items.indices.map { entry(from: items[$0], index: $0, resolver: resolver, allowFiles: allowFiles) }
        }
        let results = Locked<[[Result<CatalogEntry, Warning>]]>(Array(repeating: [], count: pieces))
        let pieceSize = (items.count + pieces - 1) / pieces
        DispatchQueue.concurrentPerform(iterations: pieces) { piece in
            let range = (piece * pieceSize)..<min(items.count, (piece + 1) * pieceSize)
            let checked = range.map { entry(from: items[$0], index: $0, resolver: resolver, allowFiles: allowFiles) }
            results.withLock { $0[piece] = checked }
        }
        return results.withLock { $0.flatMap { $0 } }
    }

    /// The keys an issue dictionary may have.
    private enum Key {
        case id, title, releaseDate, coverURL, downloadURL, free, size, sha256, summary

        /// Checks the length and first letter before comparing: one comparison per key.
        init?(_ key: String) {
            let utf8 = key.utf8
            switch (utf8.count, utf8.first) {
            case (2, UInt8(ascii: "I")) where key == "ID": self = .id
            case (5, UInt8(ascii: "T")) where key == "Title": self = .title
            case (12, UInt8(ascii: "R")) where key == "Release date": self = .releaseDate
            case (9, UInt8(ascii: "C")) where key == "Cover URL": self = .coverURL
            case (12, UInt8(ascii: "D")) where key == "Download URL": self = .downloadURL
            case (4, UInt8(ascii: "F")) where key == "Free": self = .free
            case (4, UInt8(ascii: "S")) where key == "Size": self = .size
            case (6, UInt8(ascii: "S")) where key == "SHA256": self = .sha256
            case (7, UInt8(ascii: "S")) where key == "Summary": self = .summary
            default: return nil
            }
        }
    }

    private static func entry(from item: PropertyListValue, index: Int, resolver: URLResolver, allowFiles: Bool) -> Result<CatalogEntry, Warning> {
        guard case .dictionary(let dictionary) = item else {
            return .failure(Warning(message: "Skipped issue \(index + 1): it is not a dictionary."))
        }
        // One pass over the pairs; a repeated key keeps its last value.
        var id, title, releaseDate, coverURL, downloadURL, free, size, sha256, summary: PropertyListValue?
        for pair in dictionary.pairs {
            switch Key(pair.key) {
            case .id?: id = pair.value
            case .title?: title = pair.value
            case .releaseDate?: releaseDate = pair.value
            case .coverURL?: coverURL = pair.value
            case .downloadURL?: downloadURL = pair.value
            case .free?: free = pair.value
            case .size?: size = pair.value
            case .sha256?: sha256 = pair.value
            case .summary?: summary = pair.value
            case nil: break
            }
        }
        guard case .string(let issueID)? = id else {
            return .failure(Warning(message: "Skipped issue \(index + 1): `ID` is missing or not a string."))
        }
        // Messages are made only for entries that are skipped.
        func skip(_ reason: String) -> Result<CatalogEntry, Warning> {
            .failure(Warning(message: "Skipped issue \(index + 1) (ID \(quoted(issueID))): \(reason)"))
        }
        guard IssueID.isValid(issueID) else { return skip("the ID is not a safe file name (letters, digits, . _ - only).") }
        guard case .string(let issueTitle)? = title else { return skip("`Title` is missing or not a string.") }
        guard case .string(let downloadString)? = downloadURL else { return skip("`Download URL` is missing or not a string.") }
        guard let download = resolver.resolve(downloadString, allowFiles: allowFiles) else {
            return skip("`Download URL` is not an http or https URL.")
        }
        var cover: URL?
        if let coverURL {
            guard case .string(let string) = coverURL, let url = resolver.resolve(string, allowFiles: allowFiles) else {
                return skip("`Cover URL` is not an http or https URL.")
            }
            cover = url
        }
        var date: Date?
        if let releaseDate {
            guard case .date(let value) = releaseDate else { return skip("`Release date` is not a date.") }
            date = value
        }
        var isFree = false
        if let free {
            guard case .boolean(let value) = free else { return skip("`Free` is not a boolean.") }
            isFree = value
        }
        var bytes: Int64?
        if let size {
            guard case .integer(let value) = size, value >= 0 else { return skip("`Size` is not a non-negative integer.") }
            bytes = value
        }
        var digest: String?
        if let sha256 {
            guard case .string(let string) = sha256, let value = normalizedDigest(string) else {
                return skip("`SHA256` is not 64 hex digits.")
            }
            digest = value
        }
        var text: String?
        if let summary {
            guard case .string(let value) = summary else { return skip("`Summary` is not a string.") }
            text = value
        }
        return .success(CatalogEntry(
            id: issueID, title: issueTitle, releaseDate: date, coverURL: cover, downloadURL: download,
            isFree: isFree, size: bytes, sha256: digest, summary: text
        ))
    }

    private static func normalizedDigest(_ string: String) -> String? {
        let lower = string.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        return lower
    }

    /// Lets through only what a catalog can be: an XML property list without entity declarations
    /// (which can make a small file expand into gigabytes), or a binary one.
    private static func parse(_ data: Data, maximumDepth: Int) throws(NewsstandError) -> PropertyListValue {
        do {
            if data.starts(with: Array("bplist00".utf8)) {
                return try BinaryPropertyListParser.parse(data, maximumDepth: maximumDepth)
            }
            let start = data.prefix(64).drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
            guard start.first == UInt8(ascii: "<") else {
                throw NewsstandError(.invalidCatalog, "The catalog is not a property list (neither XML nor binary).")
            }
            return try XMLPropertyListParser.parse(data, maximumDepth: maximumDepth)
        } catch let error as PropertyListError {
            if error.reason == XMLPropertyListParser.entityReason {
                throw NewsstandError(.invalidCatalog, "The catalog declares XML entities, which are not allowed.")
            }
            if error.reason.contains("nests deeper") {
                throw NewsstandError(.invalidCatalog, "The catalog nests deeper than \(maximumDepth) levels.")
            }
            let kind = data.starts(with: Array("bplist00".utf8)) ? "binary property list" : "property list"
            throw NewsstandError(.invalidCatalog, "The catalog is not a valid \(kind) (\(error.reason)).")
        } catch let error as NewsstandError {
            throw error
        } catch {
            throw NewsstandError(.invalidCatalog, "The catalog is not a valid property list.")
        }
    }

    static func quoted(_ id: String) -> String {
        "\"" + TextSanitizer.inert(String(id.prefix(60))) + "\""
    }
}
