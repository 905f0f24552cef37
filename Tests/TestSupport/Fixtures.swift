import Foundation

/// Test data: PDFs, catalogs and temporary folders.
public enum Fixtures {
    /// A PDF-signed file of `size` bytes whose content depends on `seed`.
    /// A real one-page PDF, 200 × 300 points of one colour (RGB 0–1), that poppler renders; with
    /// a title and a creation date in its Info dictionary when given, and an XMP metadata stream
    /// (the packet's text) in its catalog.
    public static func pagePDF(red: Double, green: Double, blue: Double, title: String? = nil, created: String? = nil, xmp: String? = nil) -> Data {
        let content = "\(red) \(green) \(blue) rg 0 0 200 300 re f"
        let metadata = xmp.map { _ in " /Metadata 6 0 R" } ?? ""
        var objects = ["<< /Type /Catalog /Pages 2 0 R\(metadata) >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                       "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R >>",
                       "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"]
        if title != nil || created != nil || xmp != nil {
            objects.append("<< " + (title.map { "/Title (\($0)) " } ?? "") + (created.map { "/CreationDate (\($0)) " } ?? "") + ">>")
        }
        if let xmp {
            objects.append("<< /Type /Metadata /Subtype /XML /Length \(xmp.utf8.count) >>\nstream\n\(xmp)\nendstream")
        }
        var out = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { out += String(format: "%010d 00000 n \n", offset) }
        let info = objects.count > 4 ? " /Info 5 0 R" : ""
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R\(info) >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(out.utf8)
    }

    public static func pdf(size: Int, seed: UInt8 = 1) -> Data {
        precondition(size >= 8)
        var data = Data("%PDF-1.4\n".utf8)
        data.reserveCapacity(size)
        var value = UInt32(seed) &* 2_654_435_761 | 1
        var bytes = [UInt8](repeating: 0, count: size - data.count)
        for index in bytes.indices {
            value ^= value << 13
            value ^= value >> 17
            value ^= value << 5
            bytes[index] = UInt8(truncatingIfNeeded: value)
        }
        data.append(contentsOf: bytes)
        return data.prefix(size)
    }

    /// By `sha256sum`, not by newsstand's own code, which the tests check against it.
    public static func sha256(_ data: Data) -> String {
        ReferenceDigest.sha256(data)
    }

    /// One catalog entry as a property-list dictionary.
    public static func entry(
        id: String, title: String? = nil, download: String, cover: String? = nil, free: Bool = true,
        date: Date = Date(timeIntervalSince1970: 1_767_225_600), size: Int? = nil, sha256: String? = nil
    ) -> [String: Any] {
        var entry: [String: Any] = ["ID": id, "Title": title ?? "Issue \(id)", "Download URL": download, "Free": free, "Release date": date]
        if let cover { entry["Cover URL"] = cover }
        if let size { entry["Size"] = size }
        if let sha256 { entry["SHA256"] = sha256 }
        return entry
    }

    /// A catalog property list: a dictionary with `Title` and `Issues`, or a bare array.
    /// A binary property list (`bplist00`) of `objects`, each given as its encoded bytes, with
    /// one-byte references and four-byte offsets; the last object is the top.
    public static func binaryPropertyList(_ objects: [[UInt8]]) -> Data {
        var file = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(file.count)
            file += object
        }
        let table = file.count
        var trailer = [UInt8](repeating: 0, count: 32)
        trailer[6] = 4
        trailer[7] = 1
        trailer[15] = UInt8(objects.count)
        trailer[23] = UInt8(objects.count - 1)
        for (index, byte) in withUnsafeBytes(of: UInt64(table).bigEndian, Array.init).enumerated() { trailer[24 + index] = byte }
        for offset in offsets { file += withUnsafeBytes(of: UInt32(offset).bigEndian, Array.init) }
        return Data(file + trailer)
    }

    public static func catalog(_ entries: [Any], title: String? = "Test Monthly", format: PropertyListSerialization.PropertyListFormat = .xml) -> Data {
        let root: Any = title.map { ["Title": $0, "Issues": entries] as [String: Any] } ?? entries
        return try! PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0)
    }
}

/// A folder under the system's temporary folder, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init() {
        let template = NSTemporaryDirectory() + "newsstand-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        path = bytes.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// XDG variables that put every newsstand file under this folder.
    public var environment: [String: String] {
        ["XDG_DATA_HOME": path + "/data", "XDG_CACHE_HOME": path + "/cache", "XDG_STATE_HOME": path + "/state",
         "XDG_CONFIG_HOME": path + "/config", "HOME": path + "/home"]
    }
}

extension Fixtures {
    /// A feed fixture from `Tests/Fixtures/Feeds`, modelled on what a real server sends.
    /// A zip archive of `files` (name inside → bytes), deflated by Python's zipfile.
    public static func zip(_ files: [(String, Data)], to path: String) throws {
        let staging = NSTemporaryDirectory() + "zip-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: staging) }
        for (name, data) in files {
            let file = URL(fileURLWithPath: staging + "/" + name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n    [z.write(n) for n in sys.argv[2:]]",
                             path] + files.map(\.0)
        process.currentDirectoryURL = URL(fileURLWithPath: staging)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// An OPML file of `Fixtures/OPML`, as feed readers export them.
    public static func opml(_ name: String) -> String {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        guard let text = try? String(contentsOfFile: folder.appendingPathComponent("Fixtures/OPML/\(name)").path, encoding: .utf8) else {
            preconditionFailure("no OPML fixture \(name)")
        }
        return text
    }

    /// An Atom feed of one entry per number in `ids`: ID `urn:issue:<n>`, a PDF at
    /// `/issues/<n>.pdf`, titled `title(n)`; `next` links the feed's next page.
    public static func atomFeed(_ ids: Range<Int>, next: String? = nil, title: (Int) -> String = { "Issue \($0)" }) -> Data {
        let entries = ids.map { index in
            "<entry><id>urn:issue:\(index)</id><title>\(title(index))</title>"
                + #"<link rel="http://opds-spec.org/acquisition" type="application/pdf" href="/issues/\#(index).pdf"/></entry>"#
        }.joined()
        let link = next.map { #"<link rel="next" href="\#($0)"/>"# } ?? ""
        return Data((#"<feed xmlns="http://www.w3.org/2005/Atom"><id>f</id><title>Harbour</title>"# + link + entries + "</feed>").utf8)
    }

    public static func feed(_ name: String) -> Data {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let url = folder.appendingPathComponent("Fixtures/Feeds/\(name)")
        guard let data = FileManager.default.contents(atPath: url.path) else { preconditionFailure("no fixture \(url.path)") }
        return data
    }

    /// A zip file holding `files` uncompressed (stored), for HPub and CBZ tests.
    public static func zip(_ files: [(name: String, data: Data)]) -> Data {
        var archive = Data()
        var central = Data()
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        for file in files {
            let offset = UInt32(archive.count)
            let crc = crc32(file.data)
            let name = Array(file.name.utf8)
            var header: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21)
            header += le32(crc) + le32(UInt32(file.data.count)) + le32(UInt32(file.data.count)) + le16(name.count) + le16(0)
            archive.append(contentsOf: header + name)
            archive.append(file.data)
            var entry: [UInt8] = [0x50, 0x4B, 0x01, 0x02] + le16(0x031E) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21)
            entry += le32(crc) + le32(UInt32(file.data.count)) + le32(UInt32(file.data.count)) + le16(name.count)
            entry += le16(0) + le16(0) + le16(0) + le16(0) + le32(0o100644 << 16) + le32(offset)
            central.append(contentsOf: entry + name)
        }
        let centralOffset = UInt32(archive.count)
        archive.append(central)
        let end: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + le16(0) + le16(0) + le16(files.count) + le16(files.count)
            + le32(UInt32(central.count)) + le32(centralOffset) + le16(0)
        archive.append(contentsOf: end)
        return archive
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}

extension Fixtures {
    /// A zip of exactly `size` bytes (one stored file padded to fit): a CBZ or EPUB whose size a feed states.
    public static func zip(exactly size: Int, seed: UInt8 = 1) -> Data {
        let overhead = zip([("page.bin", Data())]).count
        precondition(size > overhead)
        let padding = pdf(size: max(8, size - overhead), seed: seed)
        let archive = zip([("page.bin", padding)])
        precondition(archive.count == size)
        return archive
    }
}
