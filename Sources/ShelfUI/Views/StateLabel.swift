import NewsstandKit

/// The one word a card or a line gives a download's state; nil while it downloads, when a
/// progress bar says more.
enum StateLabel {
    static func of(_ state: DownloadState, theme: Theme) -> (text: String, style: Style)? {
        switch state {
        case .remote:
            return ("DOWNLOAD", theme.download)
        case .partial(let received, let total):
            if let total, total > 0 { return ("RESUME \(Int(Double(received) * 100 / Double(total)))%", theme.download) }
            return ("RESUME", theme.download)
        case .queued:
            return ("QUEUED", theme.queued)
        case .verifying:
            return ("VERIFYING", theme.queued)
        case .retrying(_, _, let delay):
            return ("RETRY in \(Int(delay.rounded()))s", theme.queued)
        case .waitingForNetwork:
            return ("WAITING FOR NET", theme.queued)
        case .downloaded:
            return ("READ", theme.read)
        case .failed(let error):
            return (error.needsCredentials ? "LOCKED" : "RETRY", theme.failure)
        case .downloading:
            return nil
        }
    }

    /// A bar of `width` cells ending in its percentage, or what has arrived when the size is unknown.
    static func progress(_ progress: DownloadProgress, width: Int) -> (bar: String, percent: String) {
        guard let fraction = progress.fraction else { return ("↓ " + Formatting.bytes(progress.received), "") }
        let percent = "\(Int(fraction * 100))%"
        let barWidth = max(1, width - 5)
        let filled = Int(fraction * Double(barWidth))
        return (String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled), percent)
    }
}
