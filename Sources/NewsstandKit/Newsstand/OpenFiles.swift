import Foundation

/// The files processes hold open, from `/proc/*/fd`: a reader showing an issue keeps it.
enum OpenFiles {
    /// Every open file whose path starts with `prefix`, in one pass over `/proc`.
    static func paths(under prefix: String) -> Set<String> {
        guard let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var open: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        for pid in processes where pid.first?.isNumber == true {
            let folder = "/proc/\(pid)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for descriptor in descriptors {
                let count = readlink(folder + "/" + descriptor, &buffer, buffer.count - 1)
                guard count > 0 else { continue }
                let path = String(decoding: buffer[0..<count], as: UTF8.self)
                if path.hasPrefix(prefix) { open.insert(path) }
            }
        }
        return open
    }
}
