import CStb
import Foundation
import NewsstandKit

/// Decodes PNG and JPEG covers with stb_image. The only file that imports it.
enum CoverDecoder {
    /// libstb's entry points, looked up the first time a cover is decoded (see CStb's shim).
    private struct Library: @unchecked Sendable {
        let entryPoints: UnsafePointer<cstb_library>

        /// The process's libstb; nil when it cannot be opened, and then no cover is decoded.
        static let shared = try? EntryPointTable.load("libstb.so.0", empty: cstb_library(), { cstb_library_open($0, $1) }).map(Library.init).get()
    }

    /// Covers larger than this (in pixels) are not decoded: a small file can claim a huge image.
    static let maximumPixels = 4096 * 4096

    /// The cover in `data`, kept at most `maximumSide` pixels a side, or nil when it cannot be decoded.
    static func decode(_ data: Data, maximumSide: Int = CoverPixels.maximumSide) -> CoverPixels? {
        guard !data.isEmpty, data.count < Int(Int32.max), let stb = Library.shared?.entryPoints else { return nil }
        return data.withUnsafeBytes { bytes -> CoverPixels? in
            let base = bytes.bindMemory(to: UInt8.self).baseAddress!
            var width: Int32 = 0, height: Int32 = 0, channels: Int32 = 0
            guard cstb_info(stb, base, Int32(bytes.count), &width, &height, &channels) == 1,
                  width > 0, height > 0, Int(width) * Int(height) <= maximumPixels
            else { return nil }
            guard let pixels = cstb_decode_rgb(stb, base, Int32(bytes.count), &width, &height) else { return nil }
            defer { cstb_free(stb, pixels) }
            let buffer = UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 3)
            return CoverPixels(scaling: buffer, width: Int(width), height: Int(height), maximumSide: maximumSide)
        }
    }
}
