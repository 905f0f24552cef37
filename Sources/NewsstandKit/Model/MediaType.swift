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
        // As bytes, without Foundation's trimming or a lowercased copy: this runs for every entry
        // of every catalog.
        var text = mimeType
        guard let type = text.withUTF8({ Self.fromMIMEBytes($0) }) else { return nil }
        self = type
    }

    private static func fromMIMEBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> MediaType? {
        var start = 0
        var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        let bare = UnsafeBufferPointer(rebasing: bytes[start..<end])
        func matches(_ name: StaticString) -> Bool {
            guard name.utf8CodeUnitCount == bare.count else { return false }
            let expected = name.utf8Start
            for offset in 0..<bare.count where bare[offset] | (bare[offset] >= 65 && bare[offset] <= 90 ? 0x20 : 0) != expected[offset] {
                return false
            }
            return true
        }
        if matches("application/pdf") || matches("application/x-pdf") { return .pdf }
        if matches("application/epub+zip") { return .epub }
        if matches("application/vnd.comicbook+zip") || matches("application/x-cbz") { return .cbz }
        if matches("application/zip") || matches("application/x-zip-compressed") || matches("application/hpub+zip") { return .hpub }
        return nil
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
