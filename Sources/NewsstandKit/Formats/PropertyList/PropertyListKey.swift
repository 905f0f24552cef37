import Foundation

/// The keys an issue dictionary of a property-list catalog may have.
enum PropertyListKey: Int, CaseIterable {
    case id, title, releaseDate, coverURL, downloadURL, free, size, advertisedSize, sha256, summary, mediaType, price, authors, localKey,
         webPage, alternatives

    init?(_ key: String) {
        var key = key
        guard let known = key.withUTF8({ PropertyListKey(utf8: $0) }) else { return nil }
        self = known
    }

    /// Checks the length and first letter before comparing: one comparison per key.
    init?(utf8 key: UnsafeBufferPointer<UInt8>) {
        func matches(_ name: StaticString) -> Bool { key.equals(name) }
        switch (key.count, key.first) {
        case (2, UInt8(ascii: "I")) where matches("ID"): self = .id
        case (5, UInt8(ascii: "T")) where matches("Title"): self = .title
        case (12, UInt8(ascii: "R")) where matches("Release date"): self = .releaseDate
        case (9, UInt8(ascii: "C")) where matches("Cover URL"): self = .coverURL
        case (12, UInt8(ascii: "D")) where matches("Download URL"): self = .downloadURL
        case (4, UInt8(ascii: "F")) where matches("Free"): self = .free
        case (4, UInt8(ascii: "S")) where matches("Size"): self = .size
        case (15, UInt8(ascii: "A")) where matches("Advertised size"): self = .advertisedSize
        case (8, UInt8(ascii: "W")) where matches("Web page"): self = .webPage
        case (6, UInt8(ascii: "S")) where matches("SHA256"): self = .sha256
        case (7, UInt8(ascii: "S")) where matches("Summary"): self = .summary
        case (10, UInt8(ascii: "M")) where matches("Media type"): self = .mediaType
        case (5, UInt8(ascii: "P")) where matches("Price"): self = .price
        case (7, UInt8(ascii: "A")) where matches("Authors"): self = .authors
        case (9, UInt8(ascii: "L")) where matches("Local key"): self = .localKey
        case (12, UInt8(ascii: "A")) where matches("Alternatives"): self = .alternatives
        default: return nil
        }
    }
}

/// An issue's values by key; a repeated key keeps its last value.
struct PropertyListFields {
    var id, title, releaseDate, coverURL, downloadURL, free, size, advertisedSize, sha256, summary, mediaType, price, authors, localKey,
        webPage, alternatives: PropertyListValue?

    /// The keys of one way to get the issue.
    struct Offer {
        var downloadURL: String
        var mediaType, size, advertisedSize, sha256, webPage: PropertyListValue?
    }

    mutating func set(_ key: PropertyListKey, _ value: PropertyListValue) {
        switch key {
        case .id: id = value
        case .title: title = value
        case .releaseDate: releaseDate = value
        case .coverURL: coverURL = value
        case .downloadURL: downloadURL = value
        case .free: free = value
        case .size: size = value
        case .advertisedSize: advertisedSize = value
        case .webPage: webPage = value
        case .sha256: sha256 = value
        case .summary: summary = value
        case .mediaType: mediaType = value
        case .price: price = value
        case .authors: authors = value
        case .localKey: localKey = value
        case .alternatives: alternatives = value
        }
    }
}
