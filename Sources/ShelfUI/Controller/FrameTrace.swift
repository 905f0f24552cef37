import Foundation
import NewsstandKit

/// Lines of "milliseconds since start, event" appended to a file, from any thread: how the
/// benchmark sees when covers arrive and frames are drawn.
final class FrameTrace: Sendable {
    private let descriptor: Int32
    private let start = DispatchTime.now().uptimeNanoseconds

    init?(path: String) {
        guard !path.isEmpty else { return nil }
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
    }

    deinit {
        close(descriptor)
    }

    func write(_ event: String) {
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let line = String(format: "%.3f", milliseconds) + " " + event + "\n"
        _ = line.withCString { Glibc.write(descriptor, $0, strlen($0)) }
    }
}
