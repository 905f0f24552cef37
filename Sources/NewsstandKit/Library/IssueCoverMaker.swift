import Foundation

/// Makes a cover from the issue itself when its catalog gives none (most feeds of PDFs) or the
/// one it names cannot be fetched, as calibre, KOReader and Komga do: a PDF's first page at its
/// crop box, an EPUB's cover image, a CBZ's first image, an HPub's cover or first image.
///
/// Files are not trusted: the PDF is rendered by poppler's `pdftoppm` in a process of its own,
/// killed when it takes too long; an archive's entry is read only up to a cap whatever its header
/// says; nothing outside the issue's own file is read.
public enum IssueCoverMaker {
    /// A cover's bytes at most.
    static let maximumBytes = 20 << 20
    /// How long a PDF's first page may take to render.
    public static let renderSeconds = 20.0
    /// The longest side of a cover made from a PDF, in pixels: sharp on a card of any terminal.
    static let renderedSide = 800

    /// Writes the cover of the issue at `path` (of `type`) to `destination`, atomically; a PDF's
    /// page renders for `renderSeconds` at most.
    public static func make(from path: String, type: MediaType, into destination: String,
                            renderSeconds: Double = renderSeconds) throws(NewsstandError) {
        let image: Data
        switch type {
        case .pdf: image = try firstPage(of: path, next: destination, seconds: renderSeconds)
        case .epub: image = try epubCover(ZipFile(path: path))
        case .cbz: image = try firstImage(ZipFile(path: path))
        case .hpub: image = try hpubCover(ZipFile(path: path))
        case .jpeg, .png: image = try picture(at: path)
        case .webp: image = try webpPicture(at: path, next: destination, seconds: renderSeconds)
        }
        guard isImage(image) else { throw NewsstandError(.verificationFailed, "The issue's cover is not a PNG, JPEG or GIF image.") }
        try FileOps.writeAtomically(image, to: destination, durable: false)
    }

    /// PNG, JPEG, GIF, BMP or WebP by their first bytes: what the shelf may be able to decode.
    static func isImage(_ data: Data) -> Bool {
        let head = [UInt8](data.prefix(12))
        return head.starts(with: [0x89, 0x50, 0x4E, 0x47]) || head.starts(with: [0xFF, 0xD8, 0xFF]) || head.starts(with: Array("GIF8".utf8))
            || head.starts(with: Array("BM".utf8)) || (head.starts(with: Array("RIFF".utf8)) && head.count == 12 && Array(head[8..<12]) == Array("WEBP".utf8))
    }

    // MARK: PDF

    /// The first page rendered by `pdftoppm` at its crop box (not its media box: a wraparound
    /// cover would show its back), next to `destination`, read back and removed.
    private static func firstPage(of path: String, next destination: String, seconds: Double) throws(NewsstandError) -> Data {
        let prefix = destination + ".render-\(getpid())"
        let output = prefix + ".png"
        defer { unlink(output) }
        guard Self.hasPdftoppm else {
            throw NewsstandError(.missingProgram, "Making a cover from a PDF needs pdftoppm (Debian's poppler-utils).")
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let rendered = Subprocess.output(of: ["pdftoppm", "-f", "1", "-l", "1", "-singlefile", "-cropbox", "-scale-to", "\(renderedSide)", "-png",
                                              "--", path, prefix], seconds: seconds) != nil
        guard rendered, let size = FileOps.regularFileSize(output), size > 0 else {
            if Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 >= seconds {
                throw NewsstandError(.verificationFailed, "The PDF's first page did not render within \(Int(seconds)) s.")
            }
            throw NewsstandError(.verificationFailed, "The PDF's first page could not be rendered.")
        }
        guard size <= Int64(maximumBytes), let data = FileManager.default.contents(atPath: output) else {
            throw NewsstandError(.verificationFailed, "The PDF's first page rendered larger than \(Formatting.bytes(Int64(maximumBytes))).")
        }
        return data
    }

    /// Whether poppler's renderer is on PATH.
    static var hasPdftoppm: Bool { Subprocess.isOnPath("pdftoppm") }

    // MARK: Pictures

    /// A JPEG or PNG issue is its own cover.
    private static func picture(at path: String) throws(NewsstandError) -> Data {
        guard let size = FileOps.regularFileSize(path), size <= Int64(maximumBytes), let data = FileManager.default.contents(atPath: path) else {
            throw NewsstandError(.verificationFailed, "The picture is larger than \(Formatting.bytes(Int64(maximumBytes))) to be its own cover.")
        }
        return data
    }

    /// A WebP issue, which the shelf's decoder does not read, made a PNG by libwebp's `dwebp`
    /// in a process of its own, like a PDF's page.
    private static func webpPicture(at path: String, next destination: String, seconds: Double) throws(NewsstandError) -> Data {
        let output = destination + ".render-\(getpid()).png"
        defer { unlink(output) }
        guard Subprocess.isOnPath("dwebp") else {
            throw NewsstandError(.missingProgram, "Making a cover from a WebP picture needs dwebp (Debian's webp).")
        }
        // The path is the library's own, absolute: never taken for an option.
        let converted = Subprocess.output(of: ["dwebp", "-quiet", "-resize", "\(renderedSide)", "0", path, "-o", output], seconds: seconds) != nil
        guard converted, let size = FileOps.regularFileSize(output), size > 0, size <= Int64(maximumBytes),
              let data = FileManager.default.contents(atPath: output) else {
            throw NewsstandError(.verificationFailed, "The WebP picture could not be decoded.")
        }
        return data
    }

    // MARK: Archives

    private static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "bmp"]

    private static func isImageName(_ name: String) -> Bool {
        imageExtensions.contains((name as NSString).pathExtension.lowercased())
    }

    /// The first image by natural order (`9.jpg` before `10.jpg`), folders and hidden files aside.
    private static func firstImage(_ zip: ZipFile) throws(NewsstandError) -> Data {
        let images = zip.fileNames().filter { name in
            isImageName(name) && !name.split(separator: "/").contains { $0.hasPrefix(".") || $0 == "__MACOSX" }
        }
        guard let first = images.sorted(by: { $0.localizedStandardCompare($1) == .orderedAscending }).first else {
            throw NewsstandError(.notFound, "The archive has no image.")
        }
        return try zip.read(first, limit: maximumBytes)
    }

    /// EPUB 3's `cover-image` item, then EPUB 2's `<meta name="cover">`, then an image item named
    /// like a cover, then the first image of the book.
    private static func epubCover(_ zip: ZipFile) throws(NewsstandError) -> Data {
        let container = try parse(zip.read("META-INF/container.xml", limit: 1 << 20))
        guard let rootfile = container.elements.indices.first(where: { container.isElement($0, "rootfile", in: nil) }),
              let opfPath = container.attribute("full-path", of: rootfile), let folder = HPubArchive.safeComponents(opfPath)?.dropLast()
        else { throw NewsstandError(.verificationFailed, "The EPUB names no package document.") }
        let package = try parse(zip.read(opfPath, limit: 4 << 20))
        var items: [(id: String, href: String, properties: String, mediaType: String)] = []
        var coverID: String?
        for index in package.elements.indices {
            switch package.name(of: index) {
            case "item":
                items.append((package.attribute("id", of: index) ?? "", package.attribute("href", of: index) ?? "",
                              package.attribute("properties", of: index) ?? "", package.attribute("media-type", of: index) ?? ""))
            case "meta" where package.attribute("name", of: index) == "cover":
                coverID = package.attribute("content", of: index)
            default:
                break
            }
        }
        let images = items.filter { $0.mediaType.hasPrefix("image/") || isImageName($0.href) }
        let chosen = images.first { $0.properties.split(separator: " ").contains("cover-image") }
            ?? images.first { coverID != nil && $0.id == coverID }
            ?? images.first { $0.id.lowercased().contains("cover") || $0.href.lowercased().contains("cover") }
            ?? images.first
        guard let chosen, let href = chosen.href.removingPercentEncoding else { throw NewsstandError(.notFound, "The EPUB has no cover image.") }
        guard let inside = resolved(href, in: Array(folder)) else {
            throw NewsstandError(.verificationFailed, "The EPUB's cover is named outside the book (\(TextSanitizer.inert(href))).")
        }
        return try zip.read(inside, limit: maximumBytes)
    }

    /// `book.json`'s `cover`, else the first image in the archive.
    private static func hpubCover(_ zip: ZipFile) throws(NewsstandError) -> Data {
        if let book = try? zip.read("book.json", limit: 1 << 20),
           let object = try? JSONSerialization.jsonObject(with: book) as? [String: Any],
           let cover = object["cover"] as? String, isImageName(cover), let inside = resolved(cover, in: []),
           let image = try? zip.read(inside, limit: maximumBytes) {
            return image
        }
        return try firstImage(zip)
    }

    /// `href` taken from `folder` inside the archive, `..` resolved; nil when it is absolute, has
    /// a name no file may have, or climbs above the archive's root.
    static func resolved(_ href: String, in folder: [String]) -> String? {
        guard !href.hasPrefix("/"), !href.contains("\\"), !href.contains("://") else { return nil }
        var result = folder
        for component in href.split(separator: "/", omittingEmptySubsequences: true) where component != "." {
            if component == ".." {
                guard result.popLast() != nil else { return nil }
            } else {
                result.append(String(component))
            }
        }
        let joined = result.joined(separator: "/")
        return result.isEmpty ? nil : HPubArchive.safeComponents(joined).map { $0.joined(separator: "/") }
    }

    private static func parse(_ data: Data) throws(NewsstandError) -> XMLTree {
        do {
            return try XMLTree.parse(data)
        } catch {
            throw NewsstandError(.verificationFailed, "The EPUB's package is not well-formed XML.")
        }
    }
}
