import Foundation
import NewsstandKit

/// Fetches, decodes and renders covers in the background, a few at a time, and keeps them: the
/// decoded pixels of recent covers, and every rendered size, so that a redraw costs nothing.
///
/// `request` may be called every frame for the visible cards: work starts once per cover and
/// size. `onChange` runs on a background thread when a cover is ready.
final class CoverLoader: Sendable {
    private struct Size: Hashable, Sendable {
        let columns: Int
        let rows: Int
    }

    private struct RenderKey: Hashable, Sendable {
        let address: String
        let size: Size
    }

    private struct State: Sendable {
        var images: [RenderKey: CoverImage] = [:]
        /// The cover each picture was made for: a picture let go takes its cover's cells with it.
        var pictureKeys: [UInt32: RenderKey] = [:]
        var pixels: [String: CoverPixels] = [:]
        /// Addresses of ``pixels`` by last use, oldest first.
        var pixelUse: [String] = []
        var rendering: Set<RenderKey> = []
        /// Covers that are being fetched or decoded, with the sizes wanted once they are.
        var fetching: [String: Set<Size>] = [:]
        /// Covers that could not be fetched or decoded, and whether the issue was downloaded
        /// then: their cards stay text cards, until a download gives a cover to make.
        var failed: [String: Bool] = [:]
        var pending: [(Issue, Size)] = []
        var running = 0
    }

    /// Renders with libchafa on one lane per core; a lane has its own queue and its own canvas
    /// per size (a canvas is not thread-safe).
    private final class Renderer: @unchecked Sendable {
        final class Lane: @unchecked Sendable {
            let queue: DispatchQueue
            /// Touched only on ``queue``.
            private var canvases: [Size: ChafaCanvas] = [:]

            init(_ index: Int) { queue = DispatchQueue(label: "newsstand.covers.render.\(index)") }

            /// The cover's cells, and the pictures let go to keep this one (for a terminal that
            /// shows pictures).
            func render(_ pixels: CoverPixels, _ size: Size, colors: ColorSupport, pictures: PictureStore?) -> (CoverImage?, [UInt32]) {
                if let pictures { return Self.picture(pixels, size, store: pictures) }
                if canvases[size] == nil { canvases[size] = ChafaCanvas(columns: size.columns, rows: size.rows, colors: colors) }
                return (canvases[size]?.render(pixels), [])
            }

            /// The cover as a picture over the card's cells: made for the terminal's protocol and
            /// cell size, kept in the store under a fresh ID, and the cells that name it.
            static func picture(_ pixels: CoverPixels, _ size: Size, store: PictureStore) -> (CoverImage?, [UInt32]) {
                let support = store.support
                let width = size.columns * support.cellWidth, height = size.rows * support.cellHeight
                guard width > 0, height > 0 else { return (nil, []) }
                let rgba = pixels.fitted(width: width, height: height)
                let id = store.nextID()
                let payload: [UInt8] = switch support.pictureProtocol {
                case .kittyPlaceholders, .kittyDirect: KittyGraphics.transmit(id: id, rgba: rgba, width: width, height: height)
                case .sixel, .iterm2:
                    ChafaCanvas.picture(rgba: rgba, width: width, height: height, columns: size.columns, rows: size.rows,
                                        cellWidth: support.cellWidth, cellHeight: support.cellHeight, sixel: support.pictureProtocol == .sixel)
                }
                guard !payload.isEmpty else { return (nil, []) }
                let evicted = store.add(PictureStore.Picture(id: id, columns: size.columns, rows: size.rows, payload: payload))
                return (CoverImage.picture(id: id, columns: size.columns, rows: size.rows), evicted)
            }
        }

        let colors: ColorSupport
        let pictures: PictureStore?
        let lanes: [Lane]
        private let next = Locked(0)

        init(colors: ColorSupport, pictures: PictureStore?) {
            self.colors = colors
            self.pictures = pictures
            lanes = (0..<max(1, ProcessInfo.processInfo.activeProcessorCount)).map(Lane.init)
        }

        /// The lane for the next render, in turn.
        func lane() -> Lane {
            lanes[next.withLock { next -> Int in
                defer { next = (next + 1) % lanes.count }
                return next
            }]
        }
    }

    private let state = Locked(State())
    private let newsstand: Newsstand
    private let renderer: Renderer
    private let onChange: @Sendable () -> Void
    private let maximumRunning = 6
    private let maximumKeptPixels = 256
    private let decoding = DispatchQueue(label: "newsstand.covers", attributes: .concurrent)

    /// Nothing is fetched for a terminal without 256 colours, unless it shows pictures: it
    /// shows text cards. Nor when covers are turned off.
    var isDrawingCovers: Bool { enabled && (renderer.pictures != nil || renderer.colors >= .palette256) }
    private let enabled: Bool
    /// How large covers are decoded: a picture's pixels for the largest card, else enough for symbols.
    private let decodedSide: Int

    init(newsstand: Newsstand, colors: ColorSupport, pictures: PictureStore? = nil, enabled: Bool = true,
         onChange: @escaping @Sendable () -> Void) {
        self.newsstand = newsstand
        renderer = Renderer(colors: colors, pictures: pictures)
        self.enabled = enabled
        decodedSide = pictures.map { min(1024, max(CardView.coverColumns * $0.support.cellWidth, CardView.coverRows * $0.support.cellHeight)) }
            ?? CoverPixels.maximumSide
        self.onChange = onChange
    }

    /// The cover of `issue` at `columns` × `rows`, when it is ready.
    func image(for issue: Issue, columns: Int, rows: Int) -> CoverImage? {
        state.withLock { $0.images[RenderKey(address: issue.address, size: Size(columns: columns, rows: rows))] }
    }

    /// Asks for covers at one size; the most recently asked-for go first (they are on screen).
    func request(_ issues: [Issue], columns: Int, rows: Int) {
        guard isDrawingCovers, columns > 0, rows > 0 else { return }
        let size = Size(columns: columns, rows: rows)
        var renders: [(RenderKey, CoverPixels)] = []
        let start = state.withLock { state -> [(Issue, Size)] in
            for issue in issues.reversed() {
                // A downloaded issue without a cover in its catalog has one made from it.
                let downloaded: Bool = if case .downloaded = issue.state { true } else { false }
                guard issue.entry.coverAddress != nil || downloaded else { continue }
                let address = issue.address
                let key = RenderKey(address: address, size: size)
                if state.images[key] != nil || state.rendering.contains(key) { continue }
                if let failedDownloaded = state.failed[address] {
                    if failedDownloaded || !downloaded { continue }
                    state.failed[address] = nil
                }
                if let pixels = state.pixels[address] {
                    state.rendering.insert(key)
                    renders.append((key, pixels))
                } else if state.fetching[address] != nil {
                    state.fetching[address]!.insert(size)
                } else {
                    state.fetching[address] = [size]
                    state.pending.append((issue, size))
                }
            }
            return takeRunnable(&state)
        }
        for (key, pixels) in renders { render(pixels, key) }
        for (issue, _) in start { fetch(issue) }
    }

    private func takeRunnable(_ state: inout State) -> [(Issue, Size)] {
        var runnable: [(Issue, Size)] = []
        while state.running < maximumRunning, let next = state.pending.popLast() {
            state.running += 1
            runnable.append(next)
        }
        return runnable
    }

    private func fetch(_ issue: Issue) {
        guard let store = newsstand.store(for: issue) else { return }
        let downloaded: Bool = if case .downloaded = issue.state { true } else { false }
        store.fetchCover(for: issue) { [self] result in
            decoding.async { [self] in
                var pixels: CoverPixels?
                if case .success(let path) = result, let data = FileManager.default.contents(atPath: path) {
                    pixels = CoverDecoder.decode(data, maximumSide: decodedSide)
                }
                let address = issue.address
                let (sizes, next) = state.withLock { state -> (Set<Size>, [(Issue, Size)]) in
                    let sizes = state.fetching.removeValue(forKey: address) ?? []
                    if let pixels {
                        state.pixels[address] = pixels
                        state.pixelUse.append(address)
                        if state.pixelUse.count > maximumKeptPixels {
                            state.pixels[state.pixelUse.removeFirst()] = nil
                        }
                        for size in sizes { state.rendering.insert(RenderKey(address: address, size: size)) }
                    } else {
                        state.failed[address] = downloaded
                    }
                    state.running -= 1
                    return (pixels == nil ? [] : sizes, takeRunnable(&state))
                }
                if let pixels {
                    for size in sizes { render(pixels, RenderKey(address: address, size: size)) }
                }
                for (issue, _) in next { fetch(issue) }
            }
        }
    }

    private func render(_ pixels: CoverPixels, _ key: RenderKey) {
        let lane = renderer.lane()
        lane.queue.async { [self] in
            let (image, evicted) = lane.render(pixels, key.size, colors: renderer.colors, pictures: renderer.pictures)
            state.withLock { state in
                state.rendering.remove(key)
                for id in evicted {
                    if let gone = state.pictureKeys.removeValue(forKey: id) { state.images[gone] = nil }
                }
                if let image {
                    state.images[key] = image
                    if image.isPicture, let id = KittyGraphics.id(of: image.cells[0].style.foreground) { state.pictureKeys[id] = key }
                }
            }
            if image != nil { onChange() }
        }
    }
}
