import Crypto
import Foundation

/// Test data: PDFs, catalogs and temporary folders.
public enum Fixtures {
    /// A PDF-signed file of `size` bytes whose content depends on `seed`.
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

    public static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
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
