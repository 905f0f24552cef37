/// The formats a catalog can be in, by the name shown to a person and kept in the cache.
public enum CatalogFormatKind: String, Sendable, CaseIterable, Codable {
    case propertyList = "property list"
    case opds1 = "OPDS 1.2"
    case opds2 = "OPDS 2.0"
    case atom = "Atom"
    case rss = "RSS 2.0"
    case baker = "Baker shelf.json"
    case jsonFeed = "JSON Feed"
    case bingArchive = "Bing image archive"
    case apod = "NASA APOD"

    /// What the format calls an item's ID, as warnings name it.
    public var idField: String { self == .propertyList ? "ID" : "id" }
    /// What the format calls the link a download fetches, as warnings name it.
    public var downloadField: String { self == .propertyList ? "Download URL" : "acquisition" }
}
