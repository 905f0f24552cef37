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
        let bare = mimeType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch bare {
        case "application/pdf", "application/x-pdf": self = .pdf
        case "application/epub+zip": self = .epub
        case "application/vnd.comicbook+zip", "application/x-cbz": self = .cbz
        case "application/zip", "application/x-zip-compressed", "application/hpub+zip": self = .hpub
        default: return nil
        }
    }

    /// The type a URL's path extension names, or nil when it names none of ours.
    public init?(address: String) {
        var path = Substring(address)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "pdf": self = .pdf
        case "epub": self = .epub
        case "cbz": self = .cbz
        case "hpub", "zip": self = .hpub
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
