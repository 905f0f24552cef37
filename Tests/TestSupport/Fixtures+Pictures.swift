import Foundation

extension Fixtures {
    /// A picture of one colour, 240 × 160 pixels, made by real tools: a PDF page of that colour
    /// rendered by poppler's `pdftoppm` (JPEG, PNG), then encoded by libwebp's `cwebp` (WebP).
    public static func picture(_ format: String, red: Double, green: Double, blue: Double) throws -> Data {
        let folder = NSTemporaryDirectory() + "newsstand-picture-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try pagePDF(red: red, green: green, blue: blue).write(to: URL(fileURLWithPath: folder + "/page.pdf"))
        let rendered = format == "jpeg" ? "jpeg" : "png"
        try run(["pdftoppm", "-singlefile", "-scale-to-x", "240", "-scale-to-y", "160", "-\(rendered)", folder + "/page.pdf", folder + "/page"])
        var output = folder + (format == "jpeg" ? "/page.jpg" : "/page.png")
        if format == "webp" {
            try run(["cwebp", "-quiet", folder + "/page.png", "-o", folder + "/page.webp"])
            output = folder + "/page.webp"
        }
        guard let data = FileManager.default.contents(atPath: output) else { throw CocoaError(.fileNoSuchFile) }
        return data
    }

    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: arguments.joined(separator: " ")]) }
    }
}
