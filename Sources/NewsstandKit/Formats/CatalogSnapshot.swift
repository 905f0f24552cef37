import Foundation

/// A checked catalog written as a property list: how a feed is cached once read.
///
/// A feed of many pages becomes one file, read back by ``CatalogDecoder`` and so opened offline
/// as fast as a property-list catalog (the feed's search link is kept in the cache's info).
public enum CatalogSnapshot {
    /// The catalog as an XML property list, written here rather than by Foundation, whose
    /// property-list writer fails in the statically linked build (as measured: "An error occurred
    /// in the destination for the data" for any catalog).
    public static func data(of catalog: Catalog) throws(NewsstandError) -> Data {
        var writer = Writer()
        writer.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n")
        if let title = catalog.title { writer.pair("Title", string: title) }
        writer.raw("<key>Issues</key>\n<array>\n")
        for entry in catalog.entries {
            let fields = entry.fields
            writer.raw("<dict>")
            writer.pair("ID", string: fields.id)
            writer.pair("Title", string: fields.title)
            writer.pair("Download URL", string: fields.acquisition.address)
            writer.pair("Media type", string: fields.acquisition.mediaType.mimeTypeForSnapshot)
            writer.raw(fields.isFree ? "<key>Free</key><true/>" : "<key>Free</key><false/>")
            if let date = fields.releaseDate { writer.pair("Release date", date: date) }
            if let cover = fields.coverAddress { writer.pair("Cover URL", string: cover) }
            if let size = fields.acquisition.size { writer.raw("<key>Size</key><integer>\(size)</integer>") }
            if let digest = fields.acquisition.sha256 { writer.pair("SHA256", string: digest) }
            if let summary = fields.summary { writer.pair("Summary", string: summary) }
            if let price = fields.price { writer.pair("Price", string: price) }
            if let authors = fields.authors { writer.pair("Authors", string: authors) }
            writer.raw("</dict>\n")
        }
        writer.raw("</array>\n</dict>\n</plist>\n")
        return Data(writer.bytes)
    }

    private struct Writer {
        var bytes: [UInt8] = []

        init() {
            bytes.reserveCapacity(1 << 16)
        }

        mutating func raw(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }

        mutating func pair(_ key: String, string: String) {
            raw("<key>")
            escaped(key)
            raw("</key><string>")
            escaped(string)
            raw("</string>")
        }

        mutating func pair(_ key: String, date: Date) {
            // Whole seconds in UTC, the form the property-list reader takes; digits written here
            // (String(format:) was a tenth of caching a feed).
            var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
            var parts = tm()
            gmtime_r(&seconds, &parts)
            raw("<key>")
            escaped(key)
            raw("</key><date>")
            digits(Int(parts.tm_year) + 1900, 4)
            bytes.append(UInt8(ascii: "-"))
            digits(Int(parts.tm_mon) + 1, 2)
            bytes.append(UInt8(ascii: "-"))
            digits(Int(parts.tm_mday), 2)
            bytes.append(UInt8(ascii: "T"))
            digits(Int(parts.tm_hour), 2)
            bytes.append(UInt8(ascii: ":"))
            digits(Int(parts.tm_min), 2)
            bytes.append(UInt8(ascii: ":"))
            digits(Int(parts.tm_sec), 2)
            raw("Z</date>")
        }

        mutating func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = max(0, value)
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8((rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }

        /// Markup characters as references; control characters (which XML cannot hold as they
        /// are) as numeric references this package's reader takes back; NUL, which nothing can
        /// hold, as U+FFFD.
        mutating func escaped(_ text: String) {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "&"): raw("&amp;")
                case UInt8(ascii: "<"): raw("&lt;")
                case UInt8(ascii: ">"): raw("&gt;")
                case 0: raw("\u{FFFD}")
                case 0x01...0x08, 0x0B, 0x0C, 0x0E...0x1F, 0x7F: raw("&#\(byte);")
                default: bytes.append(byte)
                }
            }
        }
    }
}

extension MediaType {
    /// The media type written into a snapshot: one that reads back as this same type.
    var mimeTypeForSnapshot: String { self == .hpub ? "application/hpub+zip" : mimeType }
}
