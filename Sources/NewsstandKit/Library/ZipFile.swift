import Foundation
import ZIPFoundation

/// Reads single files out of a zip archive (an EPUB, a CBZ, an HPub) without unpacking it:
/// names listed, one entry read whole but never beyond a cap, whatever its header claims.
struct ZipFile {
    private let archive: Archive

    init(path: String) throws(NewsstandError) {
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw NewsstandError(.verificationFailed, "It is not a readable zip archive.")
        }
    }

    /// The names of its files (not folders, not links), at most `limit` of them.
    func fileNames(limit: Int = 20_000) -> [String] {
        var names: [String] = []
        for entry in archive where entry.type == .file {
            names.append(entry.path)
            if names.count >= limit { break }
        }
        return names
    }

    /// The bytes of `name` (matched exactly, or case-insensitively when no entry matches
    /// exactly), refused when they would pass `limit`.
    func read(_ name: String, limit: Int) throws(NewsstandError) -> Data {
        guard let entry = archive[name] ?? archive.first(where: { $0.path.lowercased() == name.lowercased() }), entry.type == .file else {
            throw NewsstandError(.notFound, "The archive has no \(TextSanitizer.inert(name)).")
        }
        guard entry.uncompressedSize <= UInt64(limit) else {
            throw NewsstandError(.verificationFailed, "\(TextSanitizer.inert(name)) is larger than \(Formatting.bytes(Int64(limit))).")
        }
        var data = Data()
        do {
            // The header's size may lie: stop at the cap whatever it says.
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                data.append(chunk)
                if data.count > limit { throw CocoaError(.fileReadTooLarge) }
            }
        } catch {
            throw NewsstandError(.verificationFailed, "\(TextSanitizer.inert(name)) could not be read from the archive (larger than it says, or damaged).")
        }
        return data
    }
}
