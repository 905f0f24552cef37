import Foundation
import TestSupport
import XCTest

/// The newsstand view in a real terminal (tmux): three subscriptions served by the loopback server.
final class NewsstandTerminalTests: XCTestCase {
    var folder: TemporaryDirectory!
    var server: TestServer!
    var environment: [String: String] = [:]
    var openedRecord: String { folder.path + "/opened.txt" }
    let day: TimeInterval = 86_400
    let base = Date(timeIntervalSince1970: 1_767_225_600)

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        server = try TestServer()
        let opener = try FakeOpener(in: folder).path
        environment = folder.terminalEnvironment(opener: opener)
        let issue = Fixtures.pdf(size: 40_000, seed: 9)
        for name in ["weekly", "monthly", "flaky"] {
            server.serve("/\(name)/issue-1.pdf", .init(body: issue, etag: "\"1\""))
            server.serve("/\(name)/issue-2.pdf", .init(body: issue, etag: "\"2\""))
            publish(name, issues: 1)
        }
        let config = """
            max_storage = "100 MB"

            [subscriptions.weekly]
            url = "\(server.url("/weekly/catalog.plist").absoluteString)"

            [subscriptions.monthly]
            url = "\(server.url("/monthly/catalog.plist").absoluteString)"

            [subscriptions.flaky]
            url = "\(server.url("/flaky/catalog.plist").absoluteString)"
            """
        try FileManager.default.createDirectory(atPath: folder.path + "/config/newsstand", withIntermediateDirectories: true)
        try config.write(toFile: folder.path + "/config/newsstand/config.toml", atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        server.stop()
        server = nil
        folder = nil
    }

    private func publish(_ name: String, issues: Int) {
        let entries = (1...issues).map { number in
            Fixtures.entry(id: "\(name)-\(number)", title: "\(name.capitalized) No. \(number)", download: "issue-\(number).pdf",
                           date: base + Double(number) * day)
        }
        server.serve("/\(name)/catalog.plist", .init(body: Fixtures.catalog(entries, title: name.capitalized), contentType: "application/xml",
                                                     etag: "\"\(name)-\(issues)\""))
    }

    func testOpenOnThreePublicationsReadOneAndRefreshAllWithOneFailing() throws {
        // A first refresh records the back issues; the second issue of Weekly then arrives as new.
        let runner = CommandRunner(folder: folder)
        XCTAssertEqual(try runner.run("refresh").status, 0)
        publish("weekly", issues: 2)

        let shelf = try TmuxSession([CommandRunner.executable], environment: environment.merging(["COLORTERM": "truecolor"]) { $1 },
                                    width: 120, height: 34)
        XCTAssertTrue(shelf.waitFor("3 publications"), shelf.screen())
        XCTAssertTrue(shelf.waitFor("1 NEW"), shelf.screen())
        let first = shelf.screen()
        for title in ["Weekly", "Monthly", "Flaky"] { XCTAssertTrue(first.contains(title), first) }
        XCTAssertTrue(shelf.waitFor("of 100 MB"), "the budget is shown: \(shelf.screen())")
        XCTAssertFalse(TmuxSession.colors("38;2;", in: shelf.screen(escapes: true)).isEmpty, "COLORTERM=truecolor: 24-bit colour")

        // Into Weekly: the new issue is first, with its badge; download it, then read it.
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("Weekly No. 2"), shelf.screen())
        XCTAssertTrue(shelf.screen().contains(" NEW "), shelf.screen())
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("READ"), shelf.screen())
        try shelf.send("Enter")
        XCTAssertTrue(server.wait { _ in FileManager.default.fileExists(atPath: self.openedRecord) })
        XCTAssertTrue(shelf.waitForScreen { !$0.contains(" NEW ") && $0.contains("Read") }, "opening marks it read: \(shelf.screen())")
        let opened = try String(contentsOfFile: openedRecord, encoding: .utf8)
        XCTAssertTrue(opened.hasSuffix("weekly-2.pdf\n"), opened)

        // m marks it unread again, p pins it: the card says both.
        try shelf.send("m")
        XCTAssertTrue(shelf.waitFor(" ● "), shelf.screen())
        XCTAssertFalse(shelf.screen().contains("UNREAD"), "one word on the card: READ")
        try shelf.send("p")
        XCTAssertTrue(shelf.waitFor(" PIN "), shelf.screen())

        // Back to the newsstand: nothing new any more, one unread kept issue.
        try shelf.send("BSpace")
        XCTAssertTrue(shelf.waitFor("3 publications"), shelf.screen())
        XCTAssertTrue(shelf.waitFor("1 unread"), shelf.screen())
        XCTAssertFalse(shelf.screen().contains("1 NEW"), shelf.screen())

        // R refreshes all; Flaky's server fails, and its card and the status line say so.
        server.inject(.status(500), .status(500), .status(500), into: "/flaky/catalog.plist")
        try shelf.send("R")
        XCTAssertTrue(shelf.waitFor("1 offline"), shelf.screen())
        XCTAssertTrue(shelf.screen().contains("offline ·"), shelf.screen())
        XCTAssertGreaterThanOrEqual(server.requests(for: "/weekly/catalog.plist").count, 3, "R asked every server again")

        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }

    func testAPlainXtermGetsNo24BitColour() throws {
        var plain = environment
        plain["TERM"] = "xterm"
        plain["COLORTERM"] = nil
        let shelf = try TmuxSession([CommandRunner.executable], environment: plain, width: 100, height: 30)
        XCTAssertTrue(shelf.waitFor("3 publications"), shelf.screen())
        XCTAssertTrue(shelf.waitFor("Monthly"), shelf.screen())
        let escapes = shelf.screen(escapes: true)
        XCTAssertTrue(TmuxSession.colors("38;2;", in: escapes).isEmpty && TmuxSession.colors("48;2;", in: escapes).isEmpty, escapes)
        XCTAssertTrue(TmuxSession.colors("48;5;", in: escapes).isEmpty, "xterm has 8 colours: title cards, no palette")
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }

    func testWalkACalibreServerAsFoldersAndSubscribeToASection() throws {
        server.serve("/opds", .init(body: Fixtures.feed("calibre-root.xml"), contentType: "application/atom+xml"))
        server.serve("/opds/navcatalog/4f6e6577657374", .init(body: Fixtures.feed("calibre-newest-1.xml"), contentType: "application/atom+xml"))
        server.serve("/opds/navcatalog/4f6e6577657374?offset=2", .init(body: Fixtures.feed("calibre-newest-2.xml"), contentType: "application/atom+xml"))
        let configPath = folder.path + "/config/newsstand/config.toml"
        let config = """
            [subscriptions.calibre]
            url = "\(server.url("/opds").absoluteString)"

            [subscriptions.weekly]
            url = "\(server.url("/weekly/catalog.plist").absoluteString)"
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let shelf = try TmuxSession([CommandRunner.executable], environment: environment, width: 110, height: 32)
        XCTAssertTrue(shelf.waitFor("2 publications"), shelf.screen())
        XCTAssertTrue(shelf.waitFor("calibre Library"), shelf.screen())
        // The calibre card is first (its title sorts first); its catalog is sections, so Enter browses.
        try shelf.send("Home", "Enter")
        XCTAssertTrue(shelf.waitFor("Browse"), shelf.screen())
        XCTAssertTrue(shelf.waitFor("By Author"), shelf.screen())
        XCTAssertTrue(shelf.screen().contains("3 sections"), shelf.screen())
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("0 sections · 2 issues"), "one page of the section: \(shelf.screen())")
        XCTAssertTrue(shelf.screen().contains("Byte Review"), shelf.screen())
        try shelf.send("BSpace")
        XCTAssertTrue(shelf.waitFor("3 sections"), shelf.screen())
        try shelf.send("+")
        XCTAssertTrue(shelf.waitFor("Subscribed as 4f6e6577657374"), shelf.screen())
        try shelf.send("Escape")
        XCTAssertTrue(shelf.waitFor("2 publications"), shelf.screen())
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
        let written = try String(contentsOfFile: configPath, encoding: .utf8)
        XCTAssertTrue(written.hasPrefix(config), "the hand-written part is kept: \(written)")
        XCTAssertTrue(written.contains("[subscriptions.4f6e6577657374]"), written)
        XCTAssertTrue(written.contains(server.url("/opds/navcatalog/4f6e6577657374").absoluteString), written)
        let list = try CommandRunner(folder: folder).run("list", "--json", "--subscription", "4f6e6577657374")
        XCTAssertTrue(list.output.contains("urn:uuid:2b9c7a61-0b4e-4d0c-9a49-6ac1e07c1a03"), list.output + list.error)
    }

    /// Every page (the newsstand, a publication's issues, New, a server's sections) at 80×24,
    /// 60×20, 120×36 and 200×60, in the grid and the list: the bars reach the right edge, every
    /// issue is on screen or counted by a mark, and the New view names each issue's publication.
    func testEveryPageAtEverySizeInBothViews() throws {
        server.serve("/opds", .init(body: Fixtures.feed("calibre-root.xml"), contentType: "application/atom+xml"))
        let config = """
            max_storage = "100 MB"

            [subscriptions.calibre]
            url = "\(server.url("/opds").absoluteString)"

            [subscriptions.monthly]
            url = "\(server.url("/monthly/catalog.plist").absoluteString)"

            [subscriptions.weekly]
            url = "\(server.url("/weekly/catalog.plist").absoluteString)"
            """
        try config.write(toFile: folder.path + "/config/newsstand/config.toml", atomically: true, encoding: .utf8)
        for number in 3...12 { server.serve("/weekly/issue-\(number).pdf", .init(body: Fixtures.pdf(size: 1_000, seed: 1))) }
        publish("weekly", issues: 10)
        XCTAssertEqual(try CommandRunner(folder: folder).run("refresh").status, 0)
        // Two issues arrive after the first refresh: the New view has them.
        publish("weekly", issues: 12)

        let shelf = try TmuxSession([CommandRunner.executable], environment: environment, width: 80, height: 24)
        XCTAssertTrue(shelf.waitFor("3 publications"), shelf.screen())
        func lines() -> [String] { shelf.screen().split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        /// The bars of the screen now: the header from the left edge, the status line to the right
        /// edge (its last cell a space of the bar), neither cut.
        func assertBars(_ what: String, width: Int, height: Int, file: StaticString = #filePath, line: UInt = #line) {
            let screen = lines()
            XCTAssertTrue(screen.first?.hasPrefix(" newsstand") ?? false, "\(what): the header\n\(screen.joined(separator: "\n"))", file: file, line: line)
            let status = screen.count >= height ? screen[height - 1] : ""
            XCTAssertTrue(status.hasSuffix("? help") && status.count == width - 1,
                          "\(what): the status line reaches the right edge (\(status.count) of \(width), \(screen.count) lines)\n\(screen.joined(separator: "\n"))", file: file, line: line)
            XCTAssertFalse(screen[0].contains("…") || status.contains("…"), "\(what): a bar is cut\n\(screen[0])\n\(status)", file: file, line: line)
        }
        /// The issues on screen (by number) and the counts in the marks add up to all twelve.
        func shownAndCounted(_ screen: String) -> (shown: Set<Int>, counted: Int) {
            let shown = Set(screen.matches(of: /No\. (\d+)/).compactMap { Int($0.1) })
            let counted = screen.matches(of: /[↑↓] (\d+) more/).compactMap { Int($0.1) }.reduce(0, +)
            return (shown, counted)
        }
        for view in ["grid", "list"] {
            for (width, height) in [(80, 24), (60, 20), (120, 36), (200, 60)] {
                let size = "\(view) \(width)×\(height)"
                try shelf.resize(width: width, height: height)
                // Drawn at the new size: the status line is on its last row.
                XCTAssertTrue(shelf.waitForScreen { screen in
                    let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
                    return rows.count >= height && rows[height - 1].count == width - 1 && screen.contains("Weekly")
                },
                              "\(size): the newsstand\n\(shelf.screen())")
                for title in ["calibre Library", "Monthly", "Weekly"] {
                    XCTAssertTrue(shelf.screen().contains(title), "\(size): \(title) on the newsstand\n\(shelf.screen())")
                }
                assertBars("\(size) newsstand", width: width, height: height)

                try shelf.send("End", "Enter")
                XCTAssertTrue(shelf.waitForScreen { screen in
                    screen.contains("newsstand · Weekly") && shownAndCounted(screen).shown.count + shownAndCounted(screen).counted == 12
                }, "\(size): each of the twelve issues shown or counted: \(shownAndCounted(shelf.screen()))\n\(shelf.screen())")
                assertBars("\(size) issues", width: width, height: height)
                if (width, height) == (80, 24) {
                    XCTAssertGreaterThanOrEqual(shownAndCounted(shelf.screen()).shown.count, view == "grid" ? 6 : 12, "\(size)\n\(shelf.screen())")
                }

                try shelf.send("n")
                XCTAssertTrue(shelf.waitForScreen { $0.contains("newsstand · New") && $0.contains("Weekly No. 12") && $0.contains("Weekly No. 11") },
                              "\(size): the New view names the publication\n\(shelf.screen())")
                assertBars("\(size) New", width: width, height: height)

                try shelf.send("Escape")
                XCTAssertTrue(shelf.waitFor("3 publications"), shelf.screen())
                try shelf.send("Home", "b")
                XCTAssertTrue(shelf.waitForScreen { $0.contains("Browse") && $0.contains("By Author") && $0.contains("3 sections") },
                              "\(size): the server's sections\n\(shelf.screen())")
                assertBars("\(size) browse", width: width, height: height)
                try shelf.send("Escape")
                XCTAssertTrue(shelf.waitForScreen { $0.contains("3 publications") && !$0.contains("Browse") }, shelf.screen())
            }
            try shelf.send("v")
        }
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }
}
