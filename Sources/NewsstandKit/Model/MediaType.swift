/// The kinds of file an issue can be, told apart by media type, by the URL's extension and by
/// the file's first bytes.
public enum MediaType: String, Sendable, CaseIterable {
    case pdf
    case epub
    /// A comic book: a zip of images.
    case cbz
    /// Baker's HPub: a zip of HTML pages.
    case hpub
    /// A picture as an issue (a daily picture's publication): its own cover.
    case jpeg
    case png
    case webp

    /// The extension of the installed file.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Whether the issue is a picture, shown by a picture viewer and its own cover.
    public var isPicture: Bool { self == .jpeg || self == .png || self == .webp }

    /// The registered (or customary) media type.
    public var mimeType: String {
        switch self {
        case .pdf: return "application/pdf"
        case .epub: return "application/epub+zip"
        case .cbz: return "application/vnd.comicbook+zip"
        case .hpub: return "application/zip"
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .webp: return "image/webp"
        }
    }

    /// What a person calls it.
    public var name: String {
        switch self {
        case .pdf: return "PDF"
        case .epub: return "EPUB"
        case .cbz: return "CBZ"
        case .hpub: return "HPub"
        case .jpeg: return "JPEG"
        case .png: return "PNG"
        case .webp: return "WebP"
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
        func matches(_ name: StaticString) -> Bool { bare.equalsIgnoringASCIICase(name) }
        if matches("application/pdf") || matches("application/x-pdf") { return .pdf }
        if matches("application/epub+zip") { return .epub }
        if matches("application/vnd.comicbook+zip") || matches("application/x-cbz") { return .cbz }
        if matches("application/zip") || matches("application/x-zip-compressed") || matches("application/hpub+zip") { return .hpub }
        if matches("image/jpeg") || matches("image/jpg") || matches("image/pjpeg") { return .jpeg }
        if matches("image/png") { return .png }
        if matches("image/webp") { return .webp }
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
        case (3, 0x6A_70_67), (4, 0x6A_70_65_67): return .jpeg   // jpg, jpeg
        case (3, 0x70_6E_67): return .png            // png
        case (4, 0x77_65_62_70): return .webp        // webp
        default: return nil
        }
    }

    /// Whether a file that starts with `bytes` can be of this type: a PDF's `%PDF-`, a zip's
    /// local header for the archives, each picture format's magic. An HTML error page passes none of them.
    public func matchesSignature(_ bytes: some Collection<UInt8>) -> Bool {
        switch self {
        case .pdf: return bytes.starts(with: Array("%PDF-".utf8))
        case .epub, .cbz, .hpub: return bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
        case .jpeg: return bytes.starts(with: [0xFF, 0xD8, 0xFF])
        case .png: return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .webp:
            let head = Array(bytes.prefix(12))
            return head.count == 12 && head.starts(with: Array("RIFF".utf8)) && Array(head[8..<12]) == Array("WEBP".utf8)
        }
    }
}
