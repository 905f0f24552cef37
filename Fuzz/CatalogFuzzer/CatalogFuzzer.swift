import Foundation
import NewsstandKit

/// One fuzz input: decoded as a catalog against an http and a file base URL, and used as a
/// publisher's ID (its local key must be safe) and a title. Any crash, hang or sanitizer report is a bug.
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
    let text = String(decoding: data, as: UTF8.self)
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
