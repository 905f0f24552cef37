import Foundation
import Logging

/// A swift-log handler that appends one line per message to a file: unattended runs (`sync`
/// from a timer) leave their story in `$XDG_STATE_HOME/newsstand/newsstand.log`, never on a screen.
///
/// Lines are appended with `O_APPEND`, whole, so two processes may share the file.
public struct FileLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let file: LogFile

    /// A handler writing to `path` (its folder is made); nil when it cannot be opened.
    public init?(label: String, path: String) {
        guard let file = LogFile(path: path) else { return nil }
        self.label = label
        self.file = file
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let stamp = Formatting.timestamp(Date())
        var text = "\(stamp) \(event.level) \(label): \(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if !merged.isEmpty { text += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        file.append(TextSanitizer.inert(text) + "\n")
    }

    /// The open file, shared by every copy of the handler.
    private final class LogFile: Sendable {
        private let descriptor: Int32

        init?(path: String) {
            let folder = (path as NSString).deletingLastPathComponent
            guard (try? FileOps.makeDirectory(folder, trusted: folder)) != nil else { return nil }
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { return nil }
        }

        deinit { close(descriptor) }

        func append(_ line: String) {
            var bytes = Array(line.utf8)
            _ = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }
}
