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
        try Self.refuseDangerousXML(data)
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw NewsstandError(.invalidCatalog, "The catalog is not a valid property list (\(Self.reason(of: error))).")
        }
        guard Self.depth(of: root, limit: maximumDepth) <= maximumDepth else {
            throw NewsstandError(.invalidCatalog, "The catalog nests deeper than \(maximumDepth) levels.")
        }

        let title: String?
        let items: [Any]
        if let array = root as? [Any] {
            title = nil
            items = array
        } else if let dictionary = root as? [String: Any] {
            guard let array = dictionary["Issues"] as? [Any] else {
                throw NewsstandError(.invalidCatalog, "The catalog's root dictionary has no `Issues` array.")
            }
            title = dictionary["Title"] as? String
            items = array
        } else {
            throw NewsstandError(.invalidCatalog, "The catalog's root must be an array of issues or a dictionary with `Issues`.")
        }

        let allowFiles = baseURL.isFileURL
        var entries: [CatalogEntry] = []
        entries.reserveCapacity(items.count)
        var warnings: [String] = []
        var seen = Set<String>()
        for (index, item) in items.enumerated() {
            switch Self.entry(from: item, index: index, baseURL: baseURL, allowFiles: allowFiles) {
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

    private static func entry(from item: Any, index: Int, baseURL: URL, allowFiles: Bool) -> Result<CatalogEntry, Warning> {
        let position = "Skipped issue \(index + 1)"
        guard let dictionary = item as? [String: Any] else {
            return .failure(Warning(message: "\(position): it is not a dictionary."))
        }
        guard let id = dictionary["ID"] as? String else {
            return .failure(Warning(message: "\(position): `ID` is missing or not a string."))
        }
        let name = "\(position) (ID \(quoted(id)))"
        guard IssueID.isValid(id) else {
            return .failure(Warning(message: "\(name): the ID is not a safe file name (letters, digits, . _ - only)."))
        }
        guard let title = dictionary["Title"] as? String else {
            return .failure(Warning(message: "\(name): `Title` is missing or not a string."))
        }
        guard let downloadString = dictionary["Download URL"] as? String else {
            return .failure(Warning(message: "\(name): `Download URL` is missing or not a string."))
        }
        guard let downloadURL = resolve(downloadString, against: baseURL, allowFiles: allowFiles) else {
            return .failure(Warning(message: "\(name): `Download URL` is not an http or https URL."))
        }
        var coverURL: URL?
        if let value = dictionary["Cover URL"] {
            guard let string = value as? String, let url = resolve(string, against: baseURL, allowFiles: allowFiles) else {
                return .failure(Warning(message: "\(name): `Cover URL` is not an http or https URL."))
            }
            coverURL = url
        }
        var releaseDate: Date?
        if let value = dictionary["Release date"] {
            guard let date = value as? Date else {
                return .failure(Warning(message: "\(name): `Release date` is not a date."))
            }
            releaseDate = date
        }
        var isFree = false
        if let value = dictionary["Free"] {
            guard isBoolean(value), let bool = value as? Bool else {
                return .failure(Warning(message: "\(name): `Free` is not a boolean."))
            }
            isFree = bool
        }
        var size: Int64?
        if let value = dictionary["Size"] {
            guard let bytes = integer(value), bytes >= 0 else {
                return .failure(Warning(message: "\(name): `Size` is not a non-negative integer."))
            }
            size = bytes
        }
        var sha256: String?
        if let value = dictionary["SHA256"] {
            guard let string = value as? String, let digest = normalizedDigest(string) else {
                return .failure(Warning(message: "\(name): `SHA256` is not 64 hex digits."))
            }
            sha256 = digest
        }
        var summary: String?
        if let value = dictionary["Summary"] {
            guard let string = value as? String else {
                return .failure(Warning(message: "\(name): `Summary` is not a string."))
            }
            summary = string
        }
        return .success(CatalogEntry(
            id: id, title: title, releaseDate: releaseDate, coverURL: coverURL, downloadURL: downloadURL,
            isFree: isFree, size: size, sha256: sha256, summary: summary
        ))
    }

    /// Resolves a catalog URL; only http and https, or file for a local catalog.
    static func resolve(_ string: String, against baseURL: URL, allowFiles: Bool) -> URL? {
        guard !string.isEmpty, string.utf8.count <= 8192,
              !string.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              let url = URL(string: string, relativeTo: baseURL)?.absoluteURL,
              let scheme = url.scheme?.lowercased()
        else { return nil }
        switch scheme {
        case "http", "https":
            return url.host?.isEmpty == false ? url : nil
        case "file":
            return allowFiles ? url : nil
        default:
            return nil
        }
    }

    private static func normalizedDigest(_ string: String) -> String? {
        let lower = string.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        return lower
    }

    /// `<true/>` decodes as `Bool`, but an `<integer>` NSNumber also casts to `Bool`: tell them apart.
    private static func isBoolean(_ value: Any) -> Bool {
        type(of: value) == Bool.self
    }

    /// An `<integer>`, not a `<real>` nor a boolean.
    private static func integer(_ value: Any) -> Int64? {
        guard !isBoolean(value), let number = value as? NSNumber else { return nil }
        let type = String(cString: number.objCType)
        guard type != "d" && type != "f" else { return nil }
        return number.int64Value
    }

    /// Lets through only what a catalog can be: an XML property list without entity declarations
    /// (which can make a small file expand into gigabytes), or a well-formed binary one.
    /// Anything else never reaches Foundation's parser, whose old-style plist parser logs to stderr.
    private static func refuseDangerousXML(_ data: Data) throws(NewsstandError) {
        if data.starts(with: Array("bplist00".utf8)) {
            try BinaryPlistCheck.check(data)
            return
        }
        let start = data.prefix(64).drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        guard start.first == UInt8(ascii: "<") else {
            throw NewsstandError(.invalidCatalog, "The catalog is not a property list (neither XML nor binary).")
        }
        if data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw NewsstandError(.invalidCatalog, "The catalog declares XML entities, which are not allowed.")
        }
    }

    private static func depth(of value: Any, limit: Int) -> Int {
        if limit < 0 { return 1 }
        if let array = value as? [Any] {
            return 1 + (array.map { depth(of: $0, limit: limit - 1) }.max() ?? 0)
        }
        if let dictionary = value as? [String: Any] {
            return 1 + (dictionary.values.map { depth(of: $0, limit: limit - 1) }.max() ?? 0)
        }
        return 0
    }

    private static func reason(of error: any Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }

    static func quoted(_ id: String) -> String {
        "\"" + TextSanitizer.inert(String(id.prefix(60))) + "\""
    }
}
