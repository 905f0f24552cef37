import Foundation
import NewsstandKit

/// Fetches and decodes covers in the background, a few at a time, and keeps them.
///
/// `request` may be called every frame for the visible cards: work starts once per cover.
/// `onChange` runs on a background thread when a cover arrives.
final class CoverLoader: Sendable {
    private struct State: Sendable {
        var images: [String: CoverImage] = [:]
        var started: Set<String> = []
        var pending: [Issue] = []
        var running = 0
    }

    private let state = Locked(State())
    private let store: Store
    private let onChange: @Sendable () -> Void
    private let maximumRunning = 6
    private let decoding = DispatchQueue(label: "newsstand.covers", attributes: .concurrent)

    init(store: Store, onChange: @escaping @Sendable () -> Void) {
        self.store = store
        self.onChange = onChange
    }

    func image(for id: String) -> CoverImage? {
        state.withLock { $0.images[id] }
    }

    /// Asks for covers; the most recently asked-for go first (they are the ones on screen).
    func request(_ issues: [Issue]) {
        let start = state.withLock { state -> [Issue] in
            for issue in issues.reversed() where !state.started.contains(issue.localKey) && issue.entry.coverAddress != nil {
                state.started.insert(issue.localKey)
                state.pending.append(issue)
            }
            return takeRunnable(&state)
        }
        start.forEach(fetch)
    }

    private func takeRunnable(_ state: inout State) -> [Issue] {
        var runnable: [Issue] = []
        while state.running < maximumRunning, let issue = state.pending.popLast() {
            state.running += 1
            runnable.append(issue)
        }
        return runnable
    }

    private func fetch(_ issue: Issue) {
        store.fetchCover(for: issue) { [self] result in
            decoding.async { [self] in
                var image: CoverImage?
                if case .success(let path) = result, let data = FileManager.default.contents(atPath: path) {
                    image = CoverDecoder.decode(data, columns: CardView.coverColumns, rows: CardView.coverRows)
                }
                let next = state.withLock { state -> [Issue] in
                    if let image { state.images[issue.localKey] = image }
                    state.running -= 1
                    return takeRunnable(&state)
                }
                if image != nil { onChange() }
                next.forEach(fetch)
            }
        }
    }
}
