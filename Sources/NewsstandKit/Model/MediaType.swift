/// The kinds of file an issue can be, told apart by media type, by the URL's extension and by
/// the file's first bytes.
public enum MediaType: String, Sendable, CaseIterable {
    case pdf
    case epub
    /// A comic book: a zip of images.
    case cbz
    /// Baker's HPub: a zip of HTML pages.
    case hpub

    /// The extension of the installed file.
    public var fileExtension: String { rawValue }

    /// The registered (or customary) media type.
    public var mimeType: String {
        switch self {
        case .pdf: return "application/pdf"
        case .epub: return "application/epub+zip"
        case .cbz: return "application/vnd.comicbook+zip"
        case .hpub: return "application/zip"
        }
    }

    /// What a person calls it.
    public var name: String {
        switch self {
        case .pdf: return "PDF"
        case .epub: return "EPUB"
        case .cbz: return "CBZ"
        case .hpub: return "HPub"
        }
    }

    /// The type of a media type string (parameters ignored), or nil when it is none of ours.
    public init?(mimeType: String) {
        // Without Foundation's trimming: this runs for every entry of a feed.
        var bare = Substring(mimeType)
        if let semicolon = bare.firstIndex(of: ";") { bare = bare[..<semicolon] }
        while bare.first == " " || bare.first == "\t" { bare = bare.dropFirst() }
        while bare.last == " " || bare.last == "\t" { bare = bare.dropLast() }
        switch bare.lowercased() {
        case "application/pdf", "application/x-pdf": self = .pdf
        case "application/epub+zip": self = .epub
        case "application/vnd.comicbook+zip", "application/x-cbz": self = .cbz
        case "application/zip", "application/x-zip-compressed", "application/hpub+zip": self = .hpub
        default: return nil
        }
    }

    /// The type a URL's path extension names, or nil when it names none of ours.
    public init?(address: String) {
        // Read as bytes: this runs for every entry of every catalog load.
        let utf8 = address.utf8
        guard let type = utf8.withContiguousStorageIfAvailable(Self.fromExtension) ?? Self.fromExtension(Array(utf8)) else {
            return nil
        }
        self = type
    }

    private static func fromExtension(_ bytes: some RandomAccessCollection<UInt8>) -> MediaType? {
        var end = bytes.endIndex
        if let cut = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { end = cut }
        var dot = end
        var index = end
        while index > bytes.startIndex {
            index = bytes.index(before: index)
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") { return nil }
            if byte == UInt8(ascii: ".") {
                dot = index
                break
            }
        }
        guard dot != end else { return nil }
        let count = bytes.distance(from: dot, to: end) - 1
        guard (3...4).contains(count) else { return nil }
        var word: UInt32 = 0
        var position = bytes.index(after: dot)
        while position != end {
            word = word << 8 | UInt32(bytes[position] | 0x20)  // ASCII lower case
            position = bytes.index(after: position)
        }
        switch (count, word) {
        case (3, 0x70_64_66): return .pdf            // pdf
        case (4, 0x65_70_75_62): return .epub        // epub
        case (3, 0x63_62_7A): return .cbz            // cbz
        case (4, 0x68_70_75_62), (3, 0x7A_69_70): return .hpub  // hpub, zip
        default: return nil
        }
    }

    /// Whether a file that starts with `bytes` can be of this type: a PDF's `%PDF-`, a zip's
    /// local header for the rest. An HTML error page passes none of them.
    public func matchesSignature(_ bytes: some Collection<UInt8>) -> Bool {
        switch self {
        case .pdf: return bytes.starts(with: Array("%PDF-".utf8))
        case .epub, .cbz, .hpub: return bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
        }
    }
}
