import Foundation

/// Finds the demo catalog shipped in `Resources/demo`.
enum BundledDemo {
    /// `$NEWSSTAND_RESOURCES/demo`, an installed `share/newsstand/demo` beside the binary, or the
    /// source tree the binary was built from.
    static var catalogURL: URL? {
        var candidates: [String] = []
        if let resources = ProcessInfo.processInfo.environment["NEWSSTAND_RESOURCES"], !resources.isEmpty {
            candidates.append(resources + "/demo/catalog.plist")
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("../share/newsstand/demo/catalog.plist").path)
        let sourceRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(sourceRoot.appendingPathComponent("Resources/demo/catalog.plist").path)
        for path in candidates where FileManager.default.fileExists(atPath: path) {
            return URL(fileURLWithPath: path).standardizedFileURL
        }
        return nil
    }
}
