import Foundation
import TestSupport
import XCTest

/// The real shelf in a real terminal (tmux), against the loopback server.
final class ShelfTerminalTests: XCTestCase {
    var folder: TemporaryDirectory!
    var server: TestServer!
    var environment: [String: String] = [:]
    var openedRecord: String { folder.path + "/opened.txt" }
    var catalogURL: String { server.url("/catalog.plist").absoluteString }
    var slowIssue = Data()

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        server = try TestServer()
        let opener = try FakeOpener(in: folder, countingArguments: true).path
        environment = folder.terminalEnvironment(opener: opener)
        let day: TimeInterval = 86_400
        let base = Date(timeIntervalSince1970: 1_767_225_600)
        let fast = Fixtures.pdf(size: 40_000, seed: 3)
        slowIssue = Fixtures.pdf(size: 3_000_000, seed: 4)
        server.serve("/issues/alpha.pdf", .init(body: fast, etag: "\"a\""))
        server.serve("/issues/gamma.pdf", .init(body: fast, etag: "\"c\""))
        server.serve("/issues/beta.pdf", .init(body: slowIssue, etag: "\"b\"", throttle: 300_000))
        server.serve("/catalog.plist", .init(body: Fixtures.catalog([
            Fixtures.entry(id: "alpha", title: "Alpha issue", download: "issues/alpha.pdf", date: base),
            Fixtures.entry(id: "beta", title: "Beta slow issue", download: "issues/beta.pdf", date: base - day, size: slowIssue.count),
            Fixtures.entry(id: "gamma", title: "Gamma issue", download: "issues/gamma.pdf", date: base - 2 * day),
        ]), contentType: "application/xml", etag: "\"cat\""))
    }

    override func tearDown() {
        server.stop()
        // XCTest keeps test cases alive for the whole run: let go of the server and the folder now.
        server = nil
        folder = nil
        slowIssue = Data()
    }

    /// A shelf downloading the slow issue (Beta), with part of it already sent.
    private func startSlowDownload() throws -> TmuxSession {
        let shelf = try startShelf()
        try shelf.send("l")
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitForScreen { $0.contains("█") && $0.contains("%") }, shelf.screen())
        XCTAssertTrue(server.wait { $0.bodyBytesSent(for: "/issues/beta.pdf") > 300_000 })
        return shelf
    }

    /// After the first shelf ended mid-download: a new one finishes Beta with a Range request.
    private func assertNextStartResumesTheSlowDownload(file: StaticString = #filePath, line: UInt = #line) throws {
        server.serve("/issues/beta.pdf", .init(body: slowIssue, etag: "\"b\""))
        let second = try startShelf()
        XCTAssertTrue(second.waitFor("READ"), second.screen(), file: file, line: line)
        let range = try XCTUnwrap(server.requests(for: "/issues/beta.pdf").last?.headers["range"], "resumed, not restarted",
                                  file: file, line: line)
        XCTAssertTrue(range.hasPrefix("bytes=") && range != "bytes=0-", range, file: file, line: line)
        try second.send("q")
        XCTAssertTrue(second.waitFor("EXIT=0"), second.screen(), file: file, line: line)
    }

    private func startShelf(_ extra: [String: String] = [:], width: Int = 100, height: Int = 30) throws -> TmuxSession {
        let session = try TmuxSession([CommandRunner.executable, "--catalog", catalogURL],
                                      environment: environment.merging(extra) { $1 }, width: width, height: height)
        XCTAssertTrue(session.waitFor("Test Monthly"), session.screen())
        XCTAssertTrue(session.waitFor("3 of 3"), session.screen())
        return session
    }

    /// A terminal that answers the shelf's questions after their deadline (a far ssh host, a
    /// terminal still starting) sends its replies among the keys: they are dropped, not read as
    /// `?` (help), `G` (last) or Escape (back). The filter typed after them gets only its own letters.
    func testATerminalsLateRepliesAreNotTakenForKeys() throws {
        let shelf = try startShelf()
        try shelf.send("l")
        for reply in ["\u{1B}[?62;4;22c", "\u{1B}_Gi=31;OK\u{1B}\\", "\u{1B}P>|kitty(0.26.5)\u{1B}\\", "\u{1B}[6;20;10t", "\u{1B}]11;rgb:0000/0000/0000\u{7}"] {
            try shelf.send(reply, literal: true)
        }
        // The selection is where l put it (the second issue, Beta), not on the last (G), and
        // Enter reaches the shelf, not a help page opened by `?`.
        try shelf.send("Enter")
        XCTAssertTrue(server.wait { $0.requests(for: "/issues/beta.pdf").count == 1 }, shelf.screen())
        XCTAssertEqual(server.requests(for: "/issues/gamma.pdf").count, 0)
        XCTAssertFalse(shelf.screen().contains("Keys"), shelf.screen())
        try shelf.send("x")
        XCTAssertTrue(shelf.waitFor("RESUME"), shelf.screen())
        try shelf.send("\u{1B}[?62;4c", literal: true)
        try shelf.send("/")
        try shelf.send("Gam", literal: true)
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("filter: Gam"), shelf.screen())
        XCTAssertTrue(shelf.waitFor("1 of 3"), shelf.screen())
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }

    func testBrowseFilterDownloadReadDeleteResizeAndQuit() throws {
        let shelf = try startShelf()
        // Filter as you type; Enter keeps the filter.
        try shelf.send("/")
        try shelf.send("Beta", literal: true)
        XCTAssertTrue(shelf.waitFor("1 of 3"), shelf.screen())
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("filter: Beta"), shelf.screen())

        // Download the slow one: a live progress bar, then cancel keeps the part.
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitForScreen { $0.contains("█") && $0.contains("%") && $0.contains("/s") }, shelf.screen())
        try shelf.send("x")
        XCTAssertTrue(shelf.waitFor("RESUME"), shelf.screen())

        // Escape clears the filter; Home selects the newest; Enter downloads, then reads.
        try shelf.send("Escape")
        XCTAssertTrue(shelf.waitFor("3 of 3"), shelf.screen())
        try shelf.send("Home")
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("READ"), shelf.screen())
        try shelf.send("Enter")
        XCTAssertTrue(waitForFile(openedRecord), shelf.screen())
        let opened = try String(contentsOfFile: openedRecord, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(opened.first, "1", "one argument")
        XCTAssertTrue(opened.last?.hasPrefix("/") ?? false)
        XCTAssertTrue(opened.last?.hasSuffix("/alpha/alpha.pdf") ?? false)
        XCTAssertTrue(shelf.waitFor("Alpha issue"), "the shelf is back after the opener")

        // Delete asks first.
        try shelf.send("D")
        XCTAssertTrue(shelf.waitFor("Delete “Alpha issue”?"), shelf.screen())
        try shelf.send("y")
        XCTAssertTrue(shelf.waitForScreen { !$0.contains("READ") }, shelf.screen())
        XCTAssertFalse(FileManager.default.fileExists(atPath: try XCTUnwrap(opened.last)))

        // Sort cycles; help opens and closes.
        try shelf.send("s")
        XCTAssertTrue(shelf.waitFor("sort: title"), shelf.screen())
        try shelf.send("?")
        XCTAssertTrue(shelf.waitFor("Keys"), shelf.screen())
        try shelf.send("Escape")
        XCTAssertTrue(shelf.waitForScreen { !$0.contains("this help") }, shelf.screen())

        // Too small, 1×1, and back.
        try shelf.resize(width: 15, height: 10)
        XCTAssertTrue(shelf.waitFor("Terminal too"), shelf.screen())
        try shelf.resize(width: 1, height: 1)
        try shelf.resize(width: 100, height: 30)
        XCTAssertTrue(shelf.waitFor("Gamma issue"), shelf.screen())

        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
        XCTAssertFalse(shelf.screen().contains("newsstand ·"), "the terminal is restored")
    }

    func testQuitDuringADownloadAsksAndTheDownloadResumesNextTime() throws {
        let first = try startSlowDownload()
        // Resizing during a download keeps the bar.
        try first.resize(width: 60, height: 20)
        XCTAssertTrue(first.waitForScreen { $0.contains("%") && !$0.contains("Details") }, first.screen())
        try first.resize(width: 100, height: 30)
        XCTAssertTrue(first.waitForScreen { $0.contains("%") && $0.contains("Details") }, first.screen())
        try first.send("q")
        XCTAssertTrue(first.waitFor("Quit? They resume next time."), first.screen())
        try first.send("y")
        XCTAssertTrue(first.waitFor("EXIT=0"), first.screen())

        try assertNextStartResumesTheSlowDownload()
    }

    func testCoversArriveInTheBackgroundAndAreDrawnIn256Colours() throws {
        let png = try Data(contentsOf: URL(fileURLWithPath: CommandRunner.resources + "/demo/covers/tt-2026-01.png"))
        server.serve("/covers/alpha.png", .init(body: png, contentType: "image/png", throttle: 20_000))
        var entry = Fixtures.entry(id: "alpha", title: "Alpha issue", download: "issues/alpha.pdf")
        entry["Cover URL"] = "covers/alpha.png"
        server.serve("/catalog.plist", .init(body: Fixtures.catalog([entry]), contentType: "application/xml", etag: "\"cat2\""))
        let shelf = try TmuxSession([CommandRunner.executable, "--catalog", catalogURL], environment: environment)
        // The shelf is usable before the (slow) cover arrives, then the cover is drawn.
        XCTAssertTrue(shelf.waitFor("Alpha issue"), shelf.screen())
        // A title card has one background; the cover, drawn by chafa in the 240 colours, many.
        XCTAssertTrue(shelf.waitForScreen(escapes: true) { TmuxSession.colors("48;5;", in: $0).count >= 6 }, shelf.screen(escapes: true))
        XCTAssertTrue(TmuxSession.colors("48;2;", in: shelf.screen(escapes: true)).isEmpty, "no 24-bit colour without COLORTERM")
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"))
    }

    /// A catalog without covers: once the issue is downloaded, the shelf makes its cover from
    /// its first page and draws it (the page's own blue, in 24-bit colour).
    func testADownloadedPDFGetsACoverMadeFromItsFirstPage() throws {
        server.serve("/issues/page.pdf", .init(body: Fixtures.pagePDF(red: 0, green: 0.5, blue: 1)))
        server.serve("/catalog.plist", .init(body: Fixtures.catalog([Fixtures.entry(id: "page", title: "Page issue", download: "issues/page.pdf")]),
                                             contentType: "application/xml", etag: "\"cat3\""))
        let shelf = try TmuxSession([CommandRunner.executable, "--catalog", catalogURL, "--covers", "symbols"],
                                    environment: environment.merging(["COLORTERM": "truecolor"]) { $1 })
        XCTAssertTrue(shelf.waitFor("Page issue"), shelf.screen())
        let blue = /48;2;0;12[6-9];25[2-5]m/
        XCTAssertFalse(shelf.screen(escapes: true).contains(blue), "no cover before the download")
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("READ"), shelf.screen())
        XCTAssertTrue(shelf.waitForScreen(escapes: true) { $0.matches(of: blue).count >= 8 }, "the first page's blue on the card\n\(shelf.screen(escapes: true))")
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }

    func testAClosedTerminalKeepsTheDownloadForNextTime() throws {
        let first = try startSlowDownload()
        let pid = try XCTUnwrap(first.programPID())
        try first.tmux(["kill-server"])
        XCTAssertTrue(waitUntil { kill(pid, 0) != 0 }, "the shelf exits when its terminal closes")

        try assertNextStartResumesTheSlowDownload()
    }

    func testAnOpenerFailureShowsInTheStatusLine() throws {
        let shelf = try startShelf(["NEWSSTAND_OPENER": "/nonexistent/reader"])
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("READ"), shelf.screen())
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("/nonexistent/reader is not installed"), shelf.screen())
        XCTAssertTrue(shelf.waitFor("Alpha issue"), "the shelf is drawn again")
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"))
    }

    func testAnEightColourTerminalGetsTextCovers() throws {
        let shelf = try startShelf(["TERM": "screen"], width: 60, height: 20)
        XCTAssertTrue(shelf.waitFor("DOWNLOAD"), shelf.screen())
        let painted = shelf.screen(escapes: true)
        XCTAssertFalse(painted.contains("38;5;") || painted.contains("48;5;"), "only the eight basic colours")
        XCTAssertFalse(shelf.screen().contains("▀"))
        XCTAssertTrue(shelf.screen().contains("Alpha"))
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"))
    }

    /// A terminal emulator's own TERM that a minimal install has no terminfo for: one sentence
    /// with the way out, not ncurses' "Error opening terminal".
    func testAnUnknownTerminalTypeIsExplained() throws {
        let shelf = try TmuxSession([CommandRunner.executable, "--catalog", catalogURL],
                                    environment: environment.merging(["TERM": "newsstand-unknown-term"]) { $1 })
        XCTAssertTrue(shelf.waitFor("EXIT=1"), shelf.screen())
        let screen = shelf.screen()
        XCTAssertTrue(screen.contains("newsstand: This system does not know the terminal type newsstand-unknown-term: install"), screen)
        XCTAssertFalse(screen.contains("Error opening terminal"), screen)
    }

    /// tmux sends `ESC [4~` and `ESC [1~` for End and Home, which xterm's terminfo (a common
    /// TERM inside tmux) does not describe: they are still End and Home, never Escape; so with
    /// tmux's own TERM, screen's, and in a real GNU screen.
    func testHomeAndEndWorkInsideTmuxWithAnXtermTERM() throws {
        // GNU screen inside tmux: screen reads tmux's keys and sends its own to the shelf.
        let screenDirectory = folder.path + "/screen"
        try FileManager.default.createDirectory(atPath: screenDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for term in ["xterm-256color", "tmux-256color", "screen-256color", "GNU screen"] {
            let before = ["alpha", "beta", "gamma"].map { server.requests(for: "/issues/\($0).pdf").count }
            func fetched(_ index: Int) -> Bool { server.requests(for: "/issues/\(["alpha", "beta", "gamma"][index]).pdf").count > before[index] }
            let shelf: TmuxSession
            if term == "GNU screen" {
                shelf = try TmuxSession(["screen", "-q", CommandRunner.executable, "--catalog", catalogURL],
                                        environment: environment.merging(["SCREENDIR": screenDirectory, "TERM": "xterm-256color"]) { $1 })
                XCTAssertTrue(shelf.waitFor("3 of 3"), shelf.screen())
            } else {
                shelf = try startShelf(["TERM": term])
            }
            try shelf.send("End")
            try shelf.send("Enter")
            XCTAssertTrue(server.wait { _ in fetched(2) }, "\(term): End selected the last issue\n\(shelf.screen())")
            XCTAssertTrue(shelf.waitFor("Test Monthly"), "\(term): still on the publication\n\(shelf.screen())")
            try shelf.send("Home")
            try shelf.send("Enter")
            XCTAssertTrue(server.wait { _ in fetched(0) }, "\(term): Home selected the first\n\(shelf.screen())")
            XCTAssertFalse(fetched(1), term)
            XCTAssertTrue(shelf.waitForScreen { $0.contains("Alpha issue") && $0.contains("State: downloaded") }, shelf.screen())
            try shelf.send("q")
            XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
            try FileManager.default.removeItem(atPath: folder.path + "/data")
        }
    }

    /// A real xterm (on Xvfb, typed at through the X server): End, Home and PgDn as xterm itself
    /// sends them, with the TERM it sets and with the common xterm-256color.
    func testKeysAsARealXtermSendsThem() throws {
        for term in ["xterm", "xterm-256color"] {
            let names = ["alpha", "beta", "gamma"]
            let before = names.map { server.requests(for: "/issues/\($0).pdf").count }
            func fetched(_ index: Int) -> Bool { server.requests(for: "/issues/\(names[index]).pdf").count > before[index] }
            let xterm = try XtermSession([CommandRunner.executable, "--catalog", catalogURL], environment: environment.merging(["TERM": term]) { $1 })
            XCTAssertNotNil(xterm.waitForOutput("Gamma issue"), "\(term): the shelf\n\(xterm.output)")
            try xterm.key("End", "Return")
            XCTAssertTrue(server.wait { _ in fetched(2) }, "\(term): End selected the last issue")
            try xterm.key("Home", "Return")
            XCTAssertTrue(server.wait { _ in fetched(0) }, "\(term): Home selected the first")
            XCTAssertFalse(fetched(1), term)
            try xterm.key("Next", "Left", "Return")
            XCTAssertTrue(server.wait { _ in fetched(1) }, "\(term): PgDn went to the last, Left to the middle one")
            // Beta is slow: quitting asks first.
            try xterm.key("q")
            XCTAssertNotNil(xterm.waitForOutput("Quit?"), "\(term): asked before quitting")
            try xterm.key("y")
            XCTAssertTrue(xterm.waitForExit(), "\(term): q and y closed the shelf, and xterm with it")
            try FileManager.default.removeItem(atPath: folder.path + "/data")
        }
    }

    /// 80×24, the size a new terminal opens at: eight cards in two rows, and how many are off
    /// screen above or below.
    func testAn80x24TerminalShowsEightCardsAndWhatIsOffScreen() throws {
        let base = Date(timeIntervalSince1970: 1_767_225_600)
        server.serve("/ten.plist", .init(body: Fixtures.catalog((1...10).map { number in
            Fixtures.entry(id: "i\(number)", title: String(format: "Issue %02d", number), download: "issues/alpha.pdf",
                           date: base - Double(number) * 86_400)
        }), contentType: "application/xml"))
        let shelf = try TmuxSession([CommandRunner.executable, "--catalog", server.url("/ten.plist").absoluteString],
                                    environment: environment, width: 80, height: 24)
        XCTAssertTrue(shelf.waitFor("10 of 10"), shelf.screen())
        XCTAssertTrue(shelf.waitFor("↓ 2 more"), shelf.screen())
        let first = shelf.screen()
        XCTAssertEqual((1...10).filter { first.contains(String(format: "Issue %02d", $0)) }, Array(1...8), first)
        try shelf.send("End")
        XCTAssertTrue(shelf.waitFor("↑ 4 more"), shelf.screen())
        XCTAssertTrue(shelf.screen().contains("Issue 10"), shelf.screen())
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }

    /// The list view in a real terminal at 80×24: a line per issue, and the slow download's
    /// progress bar moving on its own line.
    func testTheListViewShowsADownloadsProgressOnItsLine() throws {
        let shelf = try startShelf(width: 80, height: 24)
        try shelf.send("v")
        func line(_ screen: String, _ title: String) -> String? { screen.split(separator: "\n").map(String.init).first { $0.contains(title) } }
        XCTAssertTrue(shelf.waitForScreen { line($0, "Beta slow issue")?.contains("DOWNLOAD") == true }, shelf.screen())
        try shelf.send("j")
        try shelf.send("Enter")
        var percents: Set<String> = []
        XCTAssertTrue(shelf.waitForScreen { screen in
            guard let beta = line(screen, "Beta slow issue"), beta.contains("█") || beta.contains("░"), let percent = beta.split(separator: " ").last,
                  percent.hasSuffix("%") else { return false }
            percents.insert(String(percent))
            return percents.count >= 2
        }, "the bar moves: \(percents)\n\(shelf.screen())")
        try shelf.send("x")
        XCTAssertTrue(shelf.waitForScreen { line($0, "Beta slow issue")?.contains("RESUME") == true }, shelf.screen())
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }

    /// Another process's download (the command line, the timer's sync) shows on the open shelf
    /// within a second or so, without a key.
    func testADownloadFromTheCommandLineShowsOnTheOpenShelf() throws {
        let shelf = try startShelf()
        XCTAssertFalse(shelf.screen().contains("READ"), shelf.screen())
        let download = try CommandRunner(folder: folder).run("download", "gamma", "--catalog", catalogURL)
        XCTAssertEqual(download.status, 0, download.error)
        XCTAssertTrue(shelf.waitForScreen(timeout: 5) { $0.contains("READ") }, "gamma's card says READ: \(shelf.screen())")
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }

    /// The shelf waits for a server that went away instead of spending its retries, and goes on
    /// when a refresh reaches the server again (here: `r`, once it is back on its port).
    func testTheShelfWaitsForAServerThatWentAwayAndGoesOnWhenItIsBack() throws {
        let shelf = try startShelf()
        let port = server.port
        let alpha = Fixtures.pdf(size: 40_000, seed: 3)
        let catalog = Fixtures.catalog([
            Fixtures.entry(id: "alpha", title: "Alpha issue", download: "issues/alpha.pdf", date: Date(timeIntervalSince1970: 1_767_225_600)),
        ])
        server.stop()
        try shelf.send("Enter")
        XCTAssertTrue(shelf.waitFor("WAITING FOR NET"), shelf.screen())

        let back = try TestServer(port: port)
        defer { back.stop() }
        back.serve("/catalog.plist", .init(body: catalog, contentType: "application/xml"))
        back.serve("/issues/alpha.pdf", .init(body: alpha, etag: "\"a\""))
        try shelf.send("r")
        XCTAssertTrue(shelf.waitFor("READ"), "the download went on by itself: \(shelf.screen())")
        XCTAssertEqual(back.requests(for: "/issues/alpha.pdf").count, 1)
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"), shelf.screen())
    }

    /// A terminal that cannot place its cursor gets a sentence, not a blank screen.
    func testADumbTerminalIsExplained() throws {
        let shelf = try TmuxSession([CommandRunner.executable, "--catalog", catalogURL],
                                    environment: environment.merging(["TERM": "dumb"]) { $1 })
        XCTAssertTrue(shelf.waitFor("EXIT=1"), shelf.screen())
        XCTAssertTrue(shelf.screen().contains("The terminal type dumb cannot place the cursor"), shelf.screen())
    }

    func testSIGINTDuringADownloadRestoresTheTerminalAndTheNextStartResumes() throws {
        let first = try startSlowDownload()
        kill(try XCTUnwrap(first.programPID()), SIGINT)
        XCTAssertTrue(first.waitFor("EXIT=130"), first.screen())
        XCTAssertFalse(first.screen().contains("newsstand ·"), "the shelf is gone and the shell's screen is back")

        try assertNextStartResumesTheSlowDownload()
    }

    func testSIGTERMRestoresTheTerminal() throws {
        let shelf = try startShelf()
        let pid = try XCTUnwrap(shelf.programPID())
        kill(pid, SIGTERM)
        XCTAssertTrue(shelf.waitFor("EXIT=143"), shelf.screen())
        XCTAssertFalse(shelf.screen().contains("newsstand ·"))
    }

    func testNoColorStillShowsAReadableShelf() throws {
        let shelf = try startShelf(["NO_COLOR": "1"], width: 60, height: 20)
        XCTAssertTrue(shelf.waitFor("DOWNLOAD"), shelf.screen())
        let painted = shelf.screen(escapes: true)
        let colour = painted.range(of: "\u{1B}\\[[0-9;]*(3[0-7]|4[0-7]|38;5|48;5)[;m]", options: .regularExpression)
        XCTAssertNil(colour, "no colour escapes with NO_COLOR")
        try shelf.send("q")
        XCTAssertTrue(shelf.waitFor("EXIT=0"))
    }

    private func waitUntil(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    private func waitForFile(_ path: String) -> Bool {
        waitUntil { FileManager.default.fileExists(atPath: path) }
    }
}
