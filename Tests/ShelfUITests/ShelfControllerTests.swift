import Foundation
import NewsstandKit
import ShelfUI
import TestSupport
import XCTest

/// A terminal double: plays a script of events, each once the screen shows what it waits for.
final class ScriptedTerminal: Terminal {
    struct Step {
        var waitFor: String?
        /// Waits until the screen satisfies this, as well as showing `waitFor`.
        var until: (@Sendable (String) -> Bool)?
        var event: InputEvent

        init(waitFor: String? = nil, until: (@Sendable (String) -> Bool)? = nil, event: InputEvent) {
            self.waitFor = waitFor
            self.until = until
            self.event = event
        }
    }

    var width: Int
    var height: Int
    let colorSupport = ColorSupport.none
    private var steps: [Step]
    private(set) var frames: [Buffer] = []
    /// When each frame was drawn, in nanoseconds of uptime.
    private(set) var frameTimes: [UInt64] = []
    private let deadline = Date().addingTimeInterval(20)
    /// How many frames there were when the last scripted event was handed out.
    private var framesAtLastEvent = Int.max
    /// Indices of the frames drawn right after an event was handed out: a key is drawn at once,
    /// so only the other frames are held to the frame interval.
    private(set) var framesAfterEvents: Set<Int> = []

    init(width: Int, height: Int, steps: [Step]) {
        self.width = width
        self.height = height
        self.steps = steps
    }

    var screen: String { frames.last?.lines().joined(separator: "\n") ?? "" }

    func draw(_ buffer: Buffer) {
        frames.append(buffer)
        frameTimes.append(DispatchTime.now().uptimeNanoseconds)
    }

    func nextEvent(timeout: Double?, wakeDescriptor: Int32) -> InputEvent? {
        guard let step = steps.first else {
            // Quit once the last event's effect has been drawn.
            if frames.count > framesAtLastEvent || Date() > deadline { return .key(.character("q")) }
            var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(timeout ?? 0.2, 0.2) * 1000))
            return nil
        }
        let shown = step.waitFor.map(screen.contains) ?? true
        if !(shown && step.until?(screen) != false), Date() < deadline {
            // Not there yet: wait for the controller to be woken (a notification) or a frame to be due.
            var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(timeout ?? 0.2, 0.2) * 1000))
            return nil
        }
        steps.removeFirst()
        framesAtLastEvent = frames.count
        framesAfterEvents.insert(frames.count)
        if case .resize(let width, let height) = step.event {
            self.width = width
            self.height = height
        }
        return step.event
    }

    func suspend() {}
    func resume() {}
    func end() {}
}

final class ShelfControllerTests: XCTestCase {
    private func makeStore(count: Int) throws -> (Newsstand, Store, String) {
        try makeStore(entries: (1...count).map { number in
            ["ID": String(format: "n%02d", number), "Title": String(format: "Number %02d", number), "Download URL": "x.pdf",
             "Free": true, "Release date": Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 86_400)]
        })
    }

    private func makeStore(entries: [[String: Any]]) throws -> (Newsstand, Store, String) {
        let folder = NSTemporaryDirectory() + "newsstand-shelf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let data = try PropertyListSerialization.data(fromPropertyList: ["Title": "Mag", "Issues": entries], format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: folder + "/catalog.plist"))
        var configuration = Newsstand.Configuration(
            directories: Directories(data: folder + "/data", cache: folder + "/cache", state: folder + "/state"))
        configuration.notificationCenter = NotificationCenter()
        let newsstand = try Newsstand(
            configuration: configuration, subscriptions: [Subscription(name: "mag", url: URL(fileURLWithPath: folder + "/catalog.plist"))])
        return (newsstand, newsstand.stores[0], folder)
    }

    private func selectedTitle(_ terminal: ScriptedTerminal) -> String? {
        // The selected card has the heavy frame; its title is on the card's tenth line.
        guard let buffer = terminal.frames.last else { return nil }
        for y in 0..<buffer.height {
            for x in 0..<buffer.width where buffer[x, y].text == "┏" {
                return String(buffer.lines()[y + 9].dropFirst(x + 1).prefix(16)).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    func testMouseClickSelectsWheelScrollsAndKeysPage() throws {
        let (newsstand, store, folder) = try makeStore(count: 12)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 60×20: three cards a row, one row visible; newest first (Number 12, 11, 10 …).
        let terminal = ScriptedTerminal(width: 60, height: 20, steps: [
            .init(waitFor: "Number 12", event: .mouse(.click, x: 25, y: 5)),
        ])
        _ = ShelfController(newsstand: newsstand, store: store, terminal: terminal).run()
        XCTAssertEqual(selectedTitle(terminal), "Number 11")

        let scroll = ScriptedTerminal(width: 60, height: 20, steps: [
            .init(waitFor: "Number 12", event: .mouse(.scrollDown, x: 5, y: 5)),
            .init(waitFor: "Number 09", event: .key(.pageDown)),
            .init(waitFor: "Number 06", event: .key(.end)),
        ])
        _ = ShelfController(newsstand: newsstand, store: store, terminal: scroll).run()
        XCTAssertEqual(selectedTitle(scroll), "Number 01")
        XCTAssertTrue(scroll.screen.contains("Number 03"), "the last row is scrolled into view")
    }

    func testFilterAsYouTypeAndEscapeClears() throws {
        let (newsstand, store, folder) = try makeStore(count: 12)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let terminal = ScriptedTerminal(width: 80, height: 20, steps: [
            .init(waitFor: "12 of 12", event: .key(.character("/"))),
            .init(waitFor: "Esc clear", event: .key(.character("0"))),
            .init(waitFor: "10 of 12", event: .key(.character("7"))),
            .init(waitFor: "1 of 12", event: .key(.enter)),
        ])
        _ = ShelfController(newsstand: newsstand, store: store, terminal: terminal).run()
        XCTAssertTrue(terminal.screen.contains("filter: 07"), terminal.screen)
        XCTAssertEqual(selectedTitle(terminal), "Number 07")

        let cleared = ScriptedTerminal(width: 80, height: 20, steps: [
            .init(waitFor: "12 of 12", event: .key(.character("/"))),
            .init(waitFor: "Esc clear", event: .key(.character("1"))),
            .init(waitFor: "4 of 12", event: .key(.escape)),
        ])
        _ = ShelfController(newsstand: newsstand, store: store, terminal: cleared).run()
        XCTAssertTrue(cleared.screen.contains("12 of 12"), cleared.screen)
    }

    func testDoubleClickDownloadsAndAResizeRelaysOut() throws {
        let (newsstand, store, folder) = try makeStore(count: 3)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("%PDF-1.4\nhello".utf8).write(to: URL(fileURLWithPath: folder + "/x.pdf"))
        let terminal = ScriptedTerminal(width: 60, height: 20, steps: [
            .init(waitFor: "Number 03", event: .mouse(.doubleClick, x: 5, y: 5)),
            .init(waitFor: "READ", event: .resize(width: 100, height: 30)),
            .init(waitFor: "Details", event: .key(.character("s"))),
        ])
        _ = ShelfController(newsstand: newsstand, store: store, terminal: terminal).run()
        XCTAssertEqual(store.issue(withID: "n03")?.installedPath, store.library.filePath(for: "n03", as: .pdf))
        XCTAssertTrue(terminal.screen.contains("sort: title"), terminal.screen)
        XCTAssertEqual(terminal.frames.last?.width, 100)
    }

    func testDateOrderIsNewestFirstWithTitlesBreakingTiesAndUndatedLast() throws {
        func day(_ number: Double) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + number * 86_400) }
        // Neither oldest nor newest first, with a tie and an issue without a date.
        let (newsstand, store, folder) = try makeStore(entries: [
            ["ID": "a", "Title": "Third day", "Download URL": "x.pdf", "Release date": day(3)],
            ["ID": "b", "Title": "First day", "Download URL": "x.pdf", "Release date": day(1)],
            ["ID": "c", "Title": "Bee", "Download URL": "x.pdf", "Release date": day(2)],
            ["ID": "d", "Title": "Ant", "Download URL": "x.pdf", "Release date": day(2)],
            ["ID": "e", "Title": "Undated", "Download URL": "x.pdf"],
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let terminal = ScriptedTerminal(width: 100, height: 40, steps: [.init(waitFor: "Undated", event: .key(.character("?")))])
        _ = ShelfController(newsstand: newsstand, store: store, terminal: terminal).run()
        let screen = try XCTUnwrap(terminal.frames.first { $0.lines().joined().contains("Undated") }).lines().joined(separator: "\n")
        let positions = ["Third day", "Ant", "Bee", "First day", "Undated"].map { screen.range(of: $0)?.lowerBound }
        XCTAssertFalse(positions.contains(nil), screen)
        XCTAssertEqual(positions.compactMap { $0 }, positions.compactMap { $0 }.sorted(), screen)
    }

    func testManyDownloadsRedrawAtMostTwentyTimesASecondAndACancelLeavesTheOthers() throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = TemporaryDirectory()
        var entries: [[String: Any]] = []
        for number in 1...4 {
            let data = Fixtures.pdf(size: 1_500_000, seed: UInt8(number))
            // Progress arrives many times a second from each of the four.
            server.serve("/issues/\(number).pdf", .init(body: data, etag: "\"\(number)\"", throttle: 1_000_000))
            entries.append(Fixtures.entry(id: "n\(number)", title: "Number \(number)", download: "issues/\(number).pdf",
                                          date: Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 86_400),
                                          size: data.count, sha256: Fixtures.sha256(data)))
        }
        server.serve("/catalog.plist", .init(body: Fixtures.catalog(entries), contentType: "application/xml", etag: "\"c\""))
        var configuration = Newsstand.Configuration(directories: Directories.fromEnvironment(folder.environment))
        configuration.notificationCenter = NotificationCenter()
        configuration.policy.maximumConcurrentDownloads = 4
        let newsstand = try Newsstand(configuration: configuration, subscriptions: [Subscription(name: "mag", url: server.url("/catalog.plist"))])
        let store = newsstand.stores[0]

        // Newest first: Number 4, 3, 2, 1 in one row. Download all four, cancel Number 1.
        let d = InputEvent.key(.character("d")), right = InputEvent.key(.character("l"))
        let terminal = ScriptedTerminal(width: 100, height: 30, steps: [
            .init(waitFor: "Number 1", event: d), .init(event: right), .init(event: d), .init(event: right), .init(event: d),
            .init(event: right), .init(event: d),
            // All four under way (a percentage each) before Number 1 is cancelled: it keeps its part.
            .init(until: { $0.components(separatedBy: "%").count - 1 >= 4 }, event: .key(.character("x"))),
            .init(until: { $0.components(separatedBy: "READ").count - 1 == 3 }, event: .key(.character("q"))),
        ])
        _ = ShelfController(newsstand: newsstand, store: store, terminal: terminal).run()

        for id in ["n2", "n3", "n4"] {
            XCTAssertEqual(store.issue(withID: id)?.installedPath, store.library.filePath(for: id, as: .pdf), id)
        }
        guard case .partial? = store.issue(withID: "n1")?.state else {
            return XCTFail("the cancelled issue keeps its part: \(String(describing: store.issue(withID: "n1")?.state))")
        }
        // Keys are drawn at once; progress alone is drawn at most twenty times a second.
        let gaps = terminal.frameTimes.indices.dropFirst().filter { !terminal.framesAfterEvents.contains($0) }
            .map { Double(terminal.frameTimes[$0] - terminal.frameTimes[$0 - 1]) / 1e6 }
        print("\(terminal.frames.count) frames; shortest gap without a key \(gaps.min() ?? 0) ms")
        XCTAssertGreaterThan(gaps.count, 10, "progress is drawn while it changes")
        XCTAssertGreaterThanOrEqual(gaps.min() ?? 0, 40, "never more than 20 frames a second")
    }

    /// Two publications: the newsstand view first, Enter into one, a rebound key, Backspace back.
    func testTheNewsstandViewWithReboundKeys() throws {
        let folder = NSTemporaryDirectory() + "newsstand-shelf-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var subscriptions: [Subscription] = []
        for name in ["alpha", "beta"] {
            let entries = (1...3).map { ["ID": "\(name)\($0)", "Title": "\(name.capitalized) \($0)", "Download URL": "x.pdf", "Free": true] as [String: Any] }
            let data = try PropertyListSerialization.data(fromPropertyList: ["Title": name.capitalized + " Magazine", "Issues": entries],
                                                          format: .xml, options: 0)
            try data.write(to: URL(fileURLWithPath: folder + "/\(name).plist"))
            subscriptions.append(Subscription(name: name, url: URL(fileURLWithPath: folder + "/\(name).plist")))
        }
        var configuration = Newsstand.Configuration(
            directories: Directories(data: folder + "/data", cache: folder + "/cache", state: folder + "/state"))
        configuration.notificationCenter = NotificationCenter()
        let newsstand = try Newsstand(configuration: configuration, subscriptions: subscriptions)
        var settings = ShelfSettings()
        XCTAssertNil(settings.bind(.toggleRead, to: ["u"]))
        let terminal = ScriptedTerminal(width: 100, height: 30, steps: [
            .init(waitFor: "2 publications", until: { $0.contains("Alpha Magazine") && $0.contains("Beta Magazine") }, event: .key(.right)),
            .init(waitFor: "Beta Magazine", event: .key(.enter)),
            .init(waitFor: "Beta 3", event: .key(.character("m"))),
            .init(waitFor: "Beta 3", event: .key(.character("u"))),
            .init(waitFor: "Marked read.", event: .key(.backspace)),
            .init(waitFor: "2 publications", event: .key(.character("?"))),
        ])
        _ = ShelfController(newsstand: newsstand, terminal: terminal, settings: settings).run()
        let screens = terminal.frames.map { $0.lines().joined(separator: "\n") }
        XCTAssertTrue(screens.contains { $0.contains("newsstand · Beta Magazine") }, "Enter opened Beta")
        XCTAssertTrue(screens.contains { $0.contains("Marked read.") }, "u is toggle-read now")
        // m does nothing now (had it toggled, u would have toggled back): exactly one is read.
        XCTAssertEqual(newsstand.store(named: "beta")?.issues.filter { $0.reading?.isRead == true }.count, 1)
        XCTAssertTrue(screens.contains { $0.contains("mark all of its issues read") }, "the help overlay of the newsstand view")
    }

    func testBrowsingAServerAsFoldersSubscribingToASectionAndSearching() throws {
        let server = try TestServer()
        defer { server.stop() }
        server.serve("/opds", .init(body: Fixtures.feed("calibre-root.xml"), contentType: "application/atom+xml"))
        server.serve("/opds/navcatalog/4f6e6577657374", .init(body: Fixtures.feed("calibre-newest-1.xml"), contentType: "application/atom+xml"))
        server.serve("/opds/navcatalog/4f6e6577657374?offset=2", .init(body: Fixtures.feed("calibre-newest-2.xml"), contentType: "application/atom+xml"))
        server.serve("/opds/search/linux", .init(body: Fixtures.feed("calibre-web-books-2.xml"), contentType: "application/atom+xml"))
        server.requireAuthorization(TestServer.basic("ann", "pw-1234"))
        let folder = NSTemporaryDirectory() + "newsstand-browse-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = Newsstand.Configuration(
            directories: Directories(data: folder + "/data", cache: folder + "/cache", state: folder + "/state"))
        configuration.notificationCenter = NotificationCenter()
        var calibre = Subscription(name: "cal", url: server.url("/opds"))
        calibre.credentials = .basic(user: "ann", password: .command("echo pw-1234"))
        let newsstand = try Newsstand(configuration: configuration, subscriptions: [calibre])
        let added = Locked<[Subscription]>([])
        let terminal = ScriptedTerminal(width: 110, height: 34, steps: [
            .init(waitFor: "No issues yet", event: .key(.character("b"))),
            .init(waitFor: "By Newest", until: { $0.contains("By Author") && $0.contains("3 sections") }, event: .key(.enter)),
            .init(waitFor: "Byte Review", until: { $0.contains("0 sections · 2 issues") }, event: .key(.backspace)),
            .init(waitFor: "3 sections", event: .key(.character("+"))),
            .init(waitFor: "Subscribed as", event: .key(.character("/"))),
            .init(waitFor: "search the server:", event: .key(.character("l"))),
            .init(event: .key(.character("i"))),
            .init(event: .key(.character("n"))),
            .init(event: .key(.character("u"))),
            .init(event: .key(.character("x"))),
            .init(waitFor: "search the server: linux", event: .key(.enter)),
            .init(waitFor: "Linux Magazine 299", event: .key(.enter)),
            .init(waitFor: "subscribe to a section that lists it", event: .key(.escape)),
            .init(waitFor: "3 sections", event: .key(.escape)),
        ])
        let started = Date()
        let controller = ShelfController(newsstand: newsstand, terminal: terminal) { (subscription: Subscription) throws(NewsstandError) in
            added.withLock { $0.append(subscription) }
        }
        _ = controller.run()
        let screens = terminal.frames.map { $0.lines().joined(separator: "\n") }
        XCTAssertTrue(screens.contains { $0.contains("newsstand · Browse · cal") || $0.contains("newsstand · Browse · calibre Library") }, screens.last ?? "")
        XCTAssertTrue(screens.contains { $0.contains("issues · + subs") }, "a section that lists issues says so")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "every step was reached: \(screens.last ?? "")")
        XCTAssertTrue(screens.contains { $0.contains("Search “linux”") })
        XCTAssertTrue(screens.last?.contains("No issues yet") == true, "Esc at the first level returns to the publication")
        let subscription = try XCTUnwrap(added.withLock { $0 }.first)
        XCTAssertEqual(subscription.url.absoluteString, server.url("/opds/navcatalog/4f6e6577657374").absoluteString)
        XCTAssertEqual(subscription.name, "4f6e6577657374")
        XCTAssertEqual(subscription.credentials, calibre.credentials, "the same server's credentials go with the section")
        // Over http the password waits for the server's challenge; then every request carries it.
        // The catalog's refresh and the first browse start together, so each may be asked once.
        XCTAssertLessThanOrEqual(server.requests.filter { $0.headers["authorization"] == nil }.count, 2)
        XCTAssertEqual(server.requests.last?.headers["authorization"], TestServer.basic("ann", "pw-1234"))
        XCTAssertTrue(server.requests.allSatisfy { $0.headers["authorization"] == nil || $0.headers["authorization"] == TestServer.basic("ann", "pw-1234") })
    }
}
