import Foundation
import NewsstandKit

/// One fuzz input: decoded as a catalog against an http and a file base URL, read by every feed
/// format (OPDS 1.2 / Atom, RSS, OPDS 2, Baker) and checked by the one validator, converted to
/// UTF-8 as served with several charsets (iconv, the byte order marks, the declaration), and used
/// as a publisher's ID (its local key must be safe), a title, a date and a Content-Disposition header.
/// Any crash, hang or sanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func catalogFuzzerTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    for base in ["https://news.example/catalogs/catalog.plist", "file:///srv/demo/catalog.plist"] {
        if let catalog = try? CatalogDecoder().decode(data, baseURL: URL(string: base)!) {
            for entry in catalog.entries {
                precondition(LocalKey.isValid(entry.localKey), "an unsafe local key passed the decoder")
                let scheme = entry.downloadURL.scheme?.lowercased()
                precondition(scheme == "http" || scheme == "https" || (scheme == "file" && base.hasPrefix("file:")))
            }
        }
    }
    let formats: [any CatalogFormat] = [AtomFeedFormat(), RSSFeedFormat(), OPDS2Format(), BakerShelfFormat()]
    for base in ["https://news.example/opds/feed", "file:///srv/feeds/feed.xml"] {
        let url = URL(string: base)!
        for format in formats {
            guard let page = try? format.read(data, url: url, limits: FeedLimits()) else { continue }
            let catalog = FeedValidator(allowFiles: url.isFileURL).catalog(from: [page])
            for entry in catalog.entries {
                precondition(LocalKey.isValid(entry.localKey), "an unsafe local key passed the validator")
                for acquisition in entry.acquisitions {
                    let scheme = acquisition.url.scheme?.lowercased()
                    precondition(scheme == "http" || scheme == "https" || (scheme == "file" && url.isFileURL))
                }
                if let cover = entry.coverAddress {
                    precondition(cover.hasPrefix("http") || cover.hasPrefix("data:image/") || (cover.hasPrefix("file:") && url.isFileURL))
                }
            }
            // What the store caches must read back as the same entries.
            if let snapshot = try? CatalogSnapshot.data(of: catalog), let back = try? CatalogDecoder().decode(snapshot, baseURL: url) {
                precondition(back.entries.map(\.localKey) == catalog.entries.map(\.localKey), "a snapshot that reads back differently")
            }
        }
    }
    _ = try? CatalogReader().format(of: data, contentType: nil)
    // Every encoding path: as declared, and as served with a charset that wins over the declaration.
    for charset in [nil, "utf-16", "koi8-r", "shift_jis", "big5", "windows-1252", "x-unknown"] as [String?] {
        let type = charset.map { "application/atom+xml; charset=\($0)" }
        if let converted = try? DocumentEncoding.utf8(data, contentType: type) {
            // A converted document says UTF-8: reading it again changes nothing.
            if charset == nil { precondition((try? DocumentEncoding.utf8(converted)) == converted, "a document converted twice") }
            _ = try? CatalogReader().page(converted, url: URL(string: "http://news.example/feed")!, contentType: type)
        }
    }
    let text = String(decoding: data, as: UTF8.self)
    _ = FeedDate.iso8601(text)
    _ = FeedDate.rfc822(text)
    if let name = ContentDisposition.fileName("attachment; " + text) {
        precondition(!name.contains("/") && name != ".." && name != ".", "a server file name that could be a path")
    }
    precondition(LocalKey.isValid(LocalKey.make(for: text)), "a local key that is not a safe name")
    let inert = TextSanitizer.inert(text)
    precondition(!inert.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    let cut = DisplayWidth.truncate(inert, to: 12)
    precondition(DisplayWidth.of(cut) <= 12)
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafeRawPointer, Int) -> CInt
) -> CInt

/// SwiftPM links an executable's entry point under this name; libFuzzer's driver takes over from here.
@_cdecl("CatalogFuzzer_main")
public func catalogFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { start, length in catalogFuzzerTestOneInput(start, length) }
}
