import Foundation

/// Finds the demo catalog shipped in `Resources/demo`.
enum BundledDemo {
    /// `$NEWSSTAND_RESOURCES/demo`, else `share/newsstand/demo` beside the binary's `bin` (where
    /// `make install` and the Debian package put it), else — for a binary still in a `.build*`
    /// folder of a checkout — the checkout's `Resources/demo`.
    static var catalogURL: URL? {
        // argv[0] is only "newsstand" when the shell found it on PATH; the kernel knows the file.
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return candidates(executable: executable, environment: ProcessInfo.processInfo.environment)
            .first { FileManager.default.fileExists(atPath: $0) }
            .map { URL(fileURLWithPath: $0).standardizedFileURL }
    }

    static func candidates(executable: String, environment: [String: String]) -> [String] {
        var candidates: [String] = []
        if let resources = environment["NEWSSTAND_RESOURCES"], !resources.isEmpty {
            candidates.append(resources + "/demo/catalog.plist")
        }
        // Run through a symlink (/usr/local/bin/newsstand -> /opt/newsstand/bin/newsstand), the
        // share folder is the target's.
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        let prefix = binary.deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(prefix.appendingPathComponent("share/newsstand/demo/catalog.plist").path)
        // Only a build folder of a checkout looks above itself, so an installed binary never reads
        // a Resources folder that happens to sit near its prefix.
        var folder = binary.deletingLastPathComponent()
        while folder.path != "/" {
            if folder.lastPathComponent.hasPrefix(".build") {
                candidates.append(folder.deletingLastPathComponent().appendingPathComponent("Resources/demo/catalog.plist").path)
                break
            }
            folder = folder.deletingLastPathComponent()
        }
        return candidates
    }
}
