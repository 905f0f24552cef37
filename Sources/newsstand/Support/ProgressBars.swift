import Foundation
import NewsstandKit

/// Progress bars on a terminal: one line per issue, redrawn in place.
final class ProgressBars: Sendable {
    private let issues: [Issue]
    private let drawnLines = Locked(0)

    init(issues: [Issue]) {
        self.issues = issues
    }

    func draw() {
        let width = Output.terminalWidth ?? 80
        var text = ""
        let previous = drawnLines.withLock { $0 }
        if previous > 0 { text += "\u{1B}[\(previous)A" }
        for issue in issues {
            text += "\r\u{1B}[2K" + line(for: issue, width: width) + "\n"
        }
        drawnLines.withLock { $0 = issues.count }
        Output.write(text, to: STDOUT_FILENO)
    }

    private func line(for issue: Issue, width: Int) -> String {
        let status: String
        switch issue.state {
        case .remote: status = "not downloaded"
        case .partial(let received, _): status = "stopped at \(Formatting.bytes(received))"
        case .queued: status = "queued"
        case .retrying(let error, _, let delay): status = "retrying in \(Formatting.duration(delay)): \(TextSanitizer.inert(error.message))"
        case .waitingForNetwork(let error): status = "waiting for the network: \(TextSanitizer.inert(error.message))"
        case .verifying: status = "verifying…"
        case .downloaded: status = "done"
        case .failed(let error): status = "failed: \(TextSanitizer.inert(error.message))"
        case .downloading(let progress):
            var parts: [String] = []
            if let fraction = progress.fraction {
                let barWidth = 20
                let filled = Int(fraction * Double(barWidth))
                parts.append("[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]")
                parts.append(String(format: "%3d%%", Int(fraction * 100)))
                parts.append("\(Formatting.bytes(progress.received))/\(Formatting.bytes(progress.total ?? 0))")
            } else {
                parts.append(Formatting.bytes(progress.received))
            }
            parts.append("\(Formatting.bytes(Int64(progress.bytesPerSecond)))/s")
            if let eta = progress.secondsRemaining { parts.append("ETA \(Formatting.duration(eta))") }
            status = parts.joined(separator: "  ")
        }
        let titleWidth = max(10, min(30, width - DisplayWidth.of(status) - 3))
        let title = DisplayWidth.pad(TextSanitizer.inert(issue.title), to: titleWidth)
        return DisplayWidth.truncate(title + "  " + status, to: max(1, width - 1))
    }
}
