import Foundation
import NewsstandKit
@testable import ShelfUI
import TestSupport
import XCTest

final class ShelfControllerTests: XCTestCase {
    /// Runs the shelf on the scripted terminal; fails at the step whose screen never came.
    private func run(_ controller: ShelfController, on terminal: ScriptedTerminal, file: StaticString = #filePath, line: UInt = #line) {
        _ = controller.run()
        if let unmet = terminal.unmetStep { XCTFail(unmet, file: file, line: line) }
    }

    private func makeStore(count: Int) throws -> (Newsstand, Store, String) {
        try makeStore(entries: (1...count).map { number in
            ["ID": String(format: "n%02d", number), "Title": String(format: "Number %02d", number), "Download URL": "x.pdf",
             "Free": true, "Release date": Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 86_400)]
        })
    }

    private func makeStore(entries: [[String: Any]]) throws -> (Newsstand, Store, String) {
        try LocalNewsstand.make(entries: entries)
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
        run(ShelfController(newsstand: newsstand, store: store, terminal: terminal), on: terminal)
        XCTAssertEqual(selectedTitle(terminal), "Number 11")

        let scroll = ScriptedTerminal(width: 60, height: 20, steps: [
            .init(waitFor: "Number 12", event: .mouse(.scrollDown, x: 5, y: 5)),
            .init(waitFor: "Number 09", event: .key(.pageDown)),
            .init(waitFor: "Number 06", event: .key(.end)),
        ])
        run(ShelfController(newsstand: newsstand, store: store, terminal: scroll), on: scroll)
        XCTAssertEqual(selectedTitle(scroll), "Number 01")
        XCTAssertTrue(scroll.screen.contains("Number 03"), "the last row is scrolled into view")
    }

    func testControlDQuitsFromEveryPageButNotFromAPrompt() throws {
        let (newsstand, store, folder) = try makeStore(count: 3)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let controlD = InputEvent.key(.character("\u{4}"))
        // From a publication's issues, and from the newsstand and a browse page.
        for opening in [["Number 03"], ["Number 03", "escape"], ["Number 03", "escape", "b"]] {
            var steps: [ScriptedTerminal.Step] = []
            for (index, key) in opening.enumerated() where index > 0 {
                steps.append(.init(waitFor: index == 1 ? "Number 03" : nil, event: key == "escape" ? .key(.escape) : .key(.character(Character(key)))))
            }
            steps.append(.init(waitFor: opening.count == 1 ? "Number 03" : nil, event: controlD))
            steps.append(.init(waitFor: "a screen that never comes", event: .key(.character("q"))))
            let terminal = ScriptedTerminal(width: 80, height: 24, steps: steps)
            run(ShelfController(newsstand: newsstand, store: store, terminal: terminal), on: terminal)
            XCTAssertEqual(terminal.remainingSteps, 1, "Ctrl-D quit after \(opening)")
        }
        // In the filter prompt it is a key of the prompt.
        let prompt = ScriptedTerminal(width: 80, height: 24, steps: [
            .init(waitFor: "Number 03", event: .key(.character("/"))), .init(event: controlD), .init(event: .key(.escape)),
        ])
        run(ShelfController(newsstand: newsstand, store: store, terminal: prompt), on: prompt)
        XCTAssertEqual(prompt.remainingSteps, 0, "the prompt kept Ctrl-D")
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
        run(ShelfController(newsstand: newsstand, store: store, terminal: terminal), on: terminal)
        XCTAssertTrue(terminal.screen.contains("filter: 07"), terminal.screen)
        XCTAssertEqual(selectedTitle(terminal), "Number 07")

        let cleared = ScriptedTerminal(width: 80, height: 20, steps: [
            .init(waitFor: "12 of 12", event: .key(.character("/"))),
            .init(waitFor: "Esc clear", event: .key(.character("1"))),
            .init(waitFor: "4 of 12", event: .key(.escape)),
        ])
        run(ShelfController(newsstand: newsstand, store: store, terminal: cleared), on: cleared)
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
        run(ShelfController(newsstand: newsstand, store: store, terminal: terminal), on: terminal)
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
        run(ShelfController(newsstand: newsstand, store: store, terminal: terminal), on: terminal)
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
        // Four downloads at once from one server: no host limit here.
        configuration.engine = TransferEngine(hostConnections: 0)
        let newsstand = try Newsstand(configuration: configuration, subscriptions: [Subscription(name: "mag", url: server.url("/catalog.plist"))])
        let store = newsstand.stores[0]

        // Newest first: Number 4, 3, 2, 1 in one row. Download all four, cancel Number 1.
        let d = InputEvent.key(.character("d")), right = InputEvent.key(.character("l"))
        let terminal = ScriptedTerminal(width: 100, height: 30, steps: [
            .init(waitFor: "Number 1", event: d), .init(event: right), .init(event: d), .init(event: right), .init(event: d),
            .init(event: right), .init(event: d),
            // All four under way (a percentage each) before Number 1 is cancelled: it keeps its part.
            .init(until: { $0.components(separatedBy: "%").count - 1 >= 4 }, event: .key(.character("x"))),
            // Three READ labels.
            .init(until: { $0.components(separatedBy: "  READ  ").count - 1 == 3 }, event: .key(.character("q"))),
        ])
        run(ShelfController(newsstand: newsstand, store: store, terminal: terminal), on: terminal)

        for id in ["n2", "n3", "n4"] {
            XCTAssertEqual(store.issue(withID: id)?.installedPath, store.library.filePath(for: id, as: .pdf), id)
        }
        guard case .partial? = store.issue(withID: "n1")?.state else {
            return XCTFail("the cancelled issue keeps its part: \(String(describing: store.issue(withID: "n1")?.state))")
        }
        // Keys are drawn at once, and so is a download's change of state (four started, three
        // finished, one cancelled), which can come at any moment after a progress frame: under
        // ThreadSanitizer one came 37 ms after one. Progress alone is drawn at most twenty times a
        // second: drawn as it arrives (the limit taken out), it made fifteen short gaps here.
        let stateChanges = 8
        let gaps = terminal.frameTimes.indices.dropFirst().filter { !terminal.framesAfterEvents.contains($0) }
            .map { Double(terminal.frameTimes[$0] - terminal.frameTimes[$0 - 1]) / 1e6 }
        let short = gaps.filter { $0 < 40 }
        print("\(terminal.frames.count) frames; gaps without a key under 40 ms: \(short)")
        XCTAssertGreaterThan(gaps.count, 10, "progress is drawn while it changes")
        XCTAssertLessThanOrEqual(short.count, stateChanges, "never more than 20 frames a second but for a change of state")
    }

    /// Alpha Magazine and Beta Magazine, three issues each, as local catalogs in `folder`.
    private func twoPublications(in folder: String) throws -> [Subscription] {
        try ["alpha", "beta"].map { name in
            let entries = (1...3).map { ["ID": "\(name)\($0)", "Title": "\(name.capitalized) \($0)", "Download URL": "x.pdf", "Free": true] as [String: Any] }
            let data = try PropertyListSerialization.data(fromPropertyList: ["Title": name.capitalized + " Magazine", "Issues": entries],
                                                          format: .xml, options: 0)
            try data.write(to: URL(fileURLWithPath: folder + "/\(name).plist"))
            return Subscription(name: name, url: URL(fileURLWithPath: folder + "/\(name).plist"))
        }
    }

    /// Two publications: the newsstand view first, Enter into one, a rebound key, Backspace back.
    func testTheNewsstandViewWithReboundKeys() throws {
        let folder = NSTemporaryDirectory() + "newsstand-shelf-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let subscriptions = try twoPublications(in: folder)
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
        run(ShelfController(newsstand: newsstand, terminal: terminal, settings: settings), on: terminal)
        let screens = terminal.frames.map { $0.lines().joined(separator: "\n") }
        XCTAssertTrue(screens.contains { $0.contains("newsstand · Beta Magazine") }, "Enter opened Beta")
        XCTAssertTrue(screens.contains { $0.contains("Marked read.") }, "u is toggle-read now")
        // m does nothing now (had it toggled, u would have toggled back): exactly one is read.
        XCTAssertEqual(newsstand.store(named: "beta")?.issues.filter { $0.reading?.isRead == true }.count, 1)
        XCTAssertTrue(screens.contains { $0.contains("mark every issue read") }, "the help overlay of the newsstand view")
    }

    /// `M` asks before it marks a whole publication read, and says it did in the style of a
    /// success, not of an error.
    func testMarkingAPublicationReadAsksFirstAndSaysSoAsASuccess() throws {
        let folder = NSTemporaryDirectory() + "newsstand-mark-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let entries = (1...3).map { ["ID": "a\($0)", "Title": "Alpha \($0)", "Download URL": "x.pdf", "Free": true] as [String: Any] }
        let data = try PropertyListSerialization.data(fromPropertyList: ["Title": "Alpha Magazine", "Issues": entries], format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: folder + "/alpha.plist"))
        var configuration = Newsstand.Configuration(
            directories: Directories(data: folder + "/data", cache: folder + "/cache", state: folder + "/state"))
        configuration.notificationCenter = NotificationCenter()
        let newsstand = try Newsstand(configuration: configuration,
                                      subscriptions: [Subscription(name: "alpha", url: URL(fileURLWithPath: folder + "/alpha.plist"))])
        let question = "Mark 3 unread issues of “Alpha Magazine” read?"
        let terminal = ScriptedTerminal(width: 100, height: 30, steps: [
            .init(waitFor: "Alpha 3", event: .key(.character("M"))),
            .init(waitFor: question, event: .key(.character("n"))),
            .init(until: { !$0.contains(question) }, event: .key(.character("M"))),
            .init(waitFor: question, event: .key(.character("y"))),
            .init(waitFor: "Marked 3 issues read.", event: .key(.character("M"))),
            .init(waitFor: "Every issue of “Alpha Magazine” is read already.", event: .key(.character("q"))),
        ])
        run(ShelfController(newsstand: newsstand, terminal: terminal, settings: ShelfSettings()), on: terminal)
        XCTAssertEqual(newsstand.store(named: "alpha")?.issues.filter { $0.reading?.isRead == true }.count, 3)
        let theme = Theme(colors: terminal.colorSupport)
        let marked = try XCTUnwrap(terminal.frames.last { $0.lines().joined().contains("Marked 3 issues read.") })
        XCTAssertEqual(marked[1, marked.height - 1].style, theme.statusSuccess)
        XCTAssertNotEqual(theme.statusSuccess, theme.statusError)
        let refused = terminal.frames.filter { $0.lines().joined().contains("Mark 3 unread issues") }
        XCTAssertEqual(refused.count >= 2, true, "asked twice: once refused, once accepted")
    }

    /// `v` turns every page into a list and back; the choice outlives the shelf, over the
    /// configuration's `view`.
    func testTheListViewIsAKeyAwayOnEveryPageAndRemembered() throws {
        let folder = NSTemporaryDirectory() + "newsstand-list-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let subscriptions = try twoPublications(in: folder)
        let directories = Directories(data: folder + "/data", cache: folder + "/cache", state: folder + "/state")
        func makeNewsstand() throws -> Newsstand {
            var configuration = Newsstand.Configuration(directories: directories)
            configuration.notificationCenter = NotificationCenter()
            return try Newsstand(configuration: configuration, subscriptions: subscriptions)
        }
        // A list line of a publication: its title, then its counts on the same line.
        let publicationLine: @Sendable (String) -> Bool = { $0.split(separator: "\n").contains { $0.contains("Beta Magazine") && $0.contains("0/3 kept") } }
        let terminal = ScriptedTerminal(width: 100, height: 30, steps: [
            .init(waitFor: "2 publications", until: { $0.contains("Beta Magazine") }, event: .key(.character("v"))),
            .init(until: publicationLine, event: .key(.down)),
            .init(until: publicationLine, event: .key(.enter)),
            .init(waitFor: "newsstand · Beta Magazine", until: { $0.split(separator: "\n").contains { $0.contains("Beta 3") && $0.contains("DOWNLOAD") } },
                  event: .key(.character("q"))),
        ])
        run(ShelfController(newsstand: try makeNewsstand(), terminal: terminal, settings: ShelfSettings()), on: terminal)
        XCTAssertEqual(directories.stateNote("shelf-view"), "list")

        // The next shelf opens in the list, though the configuration says grid; v goes back.
        var settings = ShelfSettings()
        settings.view = .grid
        let next = ScriptedTerminal(width: 100, height: 30, steps: [
            .init(waitFor: "2 publications", until: publicationLine, event: .key(.character("v"))),
            .init(until: { $0.contains("┌────") && !$0.contains("0/3 kept") }, event: .key(.character("q"))),
        ])
        run(ShelfController(newsstand: try makeNewsstand(), terminal: next, settings: settings), on: next)
        XCTAssertEqual(directories.stateNote("shelf-view"), "grid")
    }

    /// `]` and `[` page the details pane through a long summary, the wheel over the pane scrolls
    /// it, and another issue's details start at their top.
    func testTheDetailsPaneScrollsByKeysAndTheWheel() throws {
        let summary = (1...90).map { "Sentence \($0) of the summary." }.joined(separator: " ")
        let (newsstand, store, folder) = try makeStore(entries: [
            ["ID": "long", "Title": "A long read", "Download URL": "x.pdf", "Free": true, "Summary": summary,
             "Release date": Date(timeIntervalSince1970: 1_700_086_400)],
            ["ID": "short", "Title": "A short one", "Download URL": "y.pdf", "Free": true, "Summary": "Two lines.",
             "Release date": Date(timeIntervalSince1970: 1_700_000_000)],
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let shows: (String) -> @Sendable (String) -> Bool = { sentence in { $0.contains(sentence + " of") } }
        let terminal = ScriptedTerminal(width: 120, height: 36, steps: [
            .init(until: shows("Sentence 1"), event: .key(.character("]"))),
            .init(until: { !$0.contains("Sentence 1 of") && $0.contains("↑") }, event: .key(.character("]"))),
            // A page is the pane's height less two lines: 90 sentences are three of them.
            .init(until: shows("Sentence 60"), event: .key(.character("]"))),
            .init(until: shows("Sentence 90"), event: .key(.character("["))),
            .init(until: { !$0.contains("Sentence 90 of") }, event: .key(.character("["))),
            .init(until: shows("Sentence 1"), event: .mouse(.scrollDown, x: 110, y: 10)),
            .init(until: { !$0.contains("Sentence 1 of") && $0.contains("A long read") }, event: .key(.right)),
            .init(until: { $0.contains("Two lines.") }, event: .key(.left)),
            .init(until: shows("Sentence 1"), event: .key(.character("q"))),
        ])
        run(ShelfController(newsstand: newsstand, store: store, terminal: terminal), on: terminal)
        XCTAssertEqual(selectedTitle(terminal), "A long read", "the wheel over the pane scrolled the pane, not the cards")
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
        run(controller, on: terminal)
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
