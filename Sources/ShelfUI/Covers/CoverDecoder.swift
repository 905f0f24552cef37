import CStb
import Foundation

/// Decodes PNG and JPEG covers with stb_image. The only file that imports it.
enum CoverDecoder {
    /// Covers larger than this (in pixels) are not decoded: a small file can claim a huge image.
    static let maximumPixels = 4096 * 4096

    /// The cover in `data`, kept at most `maximumSide` pixels a side, or nil when it cannot be decoded.
    static func decode(_ data: Data, maximumSide: Int = CoverPixels.maximumSide) -> CoverPixels? {
        guard !data.isEmpty, data.count < Int(Int32.max) else { return nil }
        return data.withUnsafeBytes { bytes -> CoverPixels? in
            let base = bytes.bindMemory(to: UInt8.self).baseAddress!
            var width: Int32 = 0, height: Int32 = 0, channels: Int32 = 0
            guard stbi_info_from_memory(base, Int32(bytes.count), &width, &height, &channels) == 1,
                  width > 0, height > 0, Int(width) * Int(height) <= maximumPixels
            else { return nil }
            guard let pixels = cstb_decode_rgb(base, Int32(bytes.count), &width, &height) else { return nil }
            defer { stbi_image_free(pixels) }
            let buffer = UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 3)
            return CoverPixels(scaling: buffer, width: Int(width), height: Int(height), maximumSide: maximumSide)
        }
    }
}
