import Foundation
import NewsstandKit

/// One fuzz input: read by every format (property list, OPDS 1.2 / Atom, RSS, OPDS 2, Baker)
/// against an http and a file base URL and checked by the one validator, converted to
/// UTF-8 as served with several charsets (iconv, the byte order marks, the declaration), and used
/// as a publisher's ID (its local key must be safe), a title, a date and a Content-Disposition header.
/// Any crash, hang or sanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func catalogFuzzerTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    for base in ["https://news.example/opds/feed", "file:///srv/feeds/catalog.plist"] {
        let url = URL(string: base)!
        for format in CatalogReader.formats {
            guard let page = try? format.read(data, url: url, limits: CatalogLimits()) else { continue }
            let catalog = CatalogValidator(allowFiles: url.isFileURL).catalog(from: [page])
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
            // What the cache keeps must read back as the same entries, every form of each.
            if let back = try? CatalogReader().catalog(CatalogSnapshot.data(of: catalog), url: url) {
                precondition(back.entries.map(\.localKey) == catalog.entries.map(\.localKey), "a snapshot that reads back differently")
                precondition(back.entries.map(\.acquisitions) == catalog.entries.map(\.acquisitions), "a snapshot that loses an acquisition")
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
