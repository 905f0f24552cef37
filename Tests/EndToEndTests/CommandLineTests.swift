import Foundation
import TestSupport
import XCTest

/// The built `newsstand` binary against a loopback server, in a temporary XDG folder.
final class CommandLineTests: XCTestCase {
    var folder: TemporaryDirectory!
    var server: TestServer!
    var runner: CommandRunner!
    var catalogURL: String { server.url("/catalog.plist").absoluteString }

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        server = try TestServer()
        runner = CommandRunner(folder: folder)
    }

    override func tearDown() {
        server.stop()
        // XCTest keeps test cases alive for the whole run: let go of the server and the folder now.
        server = nil
        folder = nil
        runner = nil
    }

    @discardableResult
    private func serve(_ id: String, size: Int, throttle: Int? = nil, title: String? = nil, free: Bool = true) -> Data {
        // A seed from the ID's bytes, the same in every run (`hashValue` is seeded per process).
        let data = Fixtures.pdf(size: size, seed: id.utf8.reduce(UInt8(7)) { $0 &* 31 &+ $1 })
        server.serve("/issues/\(id).pdf", .init(body: data, etag: "\"\(id)-1\"", throttle: throttle))
        return data
    }

    private func serveCatalog(_ entries: [[String: Any]]) {
        server.serve("/catalog.plist", .init(body: Fixtures.catalog(entries), contentType: "application/xml", etag: "\"cat\""))
    }

    private func pdfPath(_ id: String, in json: [String: Any]) -> String? {
        (json["issues"] as? [[String: Any]])?.first { $0["id"] as? String == id }?["path"] as? String
    }

    private func listJSON(_ extra: String...) throws -> [String: Any] {
        let result = try runner.run(["list", "--json", "--catalog", catalogURL] + extra)
        XCTAssertEqual(result.status, 0, result.error)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    func testVersionIsPrintedForScripts() throws {
        let result = try runner.run("--version")
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertNotNil(result.output.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression), result.output)
    }

    func testCoversAreFetchedOnceForOfflineUseAndFailuresNamed() throws {
        var entries: [[String: Any]] = []
        var covers: [String: Data] = [:]
        for number in 0..<6 {
            let id = "c\(number)"
            let cover = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* (number + 3)) })
            if number != 5 {
                covers[id] = cover
                // Throttled so that each body spans several writes: a fourth transfer at once would be seen.
                server.serve("/covers/\(id).png", .init(body: cover, contentType: "image/png", throttle: 200_000))
            }
            entries.append(Fixtures.entry(id: id, download: "issues/\(id).pdf", cover: "covers/\(id).png"))
        }
        serveCatalog(entries)

        let first = try runner.run("covers", "--jobs", "3", "--catalog", catalogURL)
        XCTAssertEqual(first.status, 4, "one cover is missing on the server")
        XCTAssertTrue(first.output.contains("5 of 6 covers on disk."), first.output)
        XCTAssertTrue(first.error.contains("/c5:"), first.error)
        let library = try XCTUnwrap(FileManager.default.enumerator(atPath: folder.path + "/data/newsstand")?.allObjects as? [String])
        for (id, cover) in covers {
            let file = try XCTUnwrap(library.first { $0.hasSuffix("/.covers/\(id)") }, "\(id) cover missing in \(library)")
            XCTAssertEqual(FileManager.default.contents(atPath: folder.path + "/data/newsstand/" + file), cover)
            XCTAssertFalse(library.contains { $0.hasSuffix("/\(id)") && !$0.contains("/.covers/") }, "a cover makes no issue folder")
        }
        XCTAssertLessThanOrEqual(server.maximumActiveTransfers, 3)
        // The library's size (the shelf's, the budget's) counts the covers; usage says how much they are of it.
        let usage = try runner.run("usage", "--json", "--catalog", catalogURL)
        let usageJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(usage.output.utf8)) as? [String: Any], usage.output + usage.error)
        let row = try XCTUnwrap((usageJSON["subscriptions"] as? [[String: Any]])?.first)
        XCTAssertEqual(row["coverBytes"] as? Int, 250_000)
        XCTAssertEqual(row["bytes"] as? Int, 250_000)
        let table = try runner.run("usage", "--catalog", catalogURL)
        XCTAssertTrue(table.output.contains("250 KB     0 issues, covers 250 KB of it"), table.output)

        let before = server.requests.count
        let again = try runner.run("covers", "c0", "c1", "--catalog", catalogURL)
        XCTAssertEqual(again.status, 0, again.error)
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/covers/") }.count,
                       server.requests.prefix(before).filter { $0.path.hasPrefix("/covers/") }.count, "covers on disk are not fetched again")
    }

    /// A catalog without covers (as most feeds of PDFs are): once an issue is downloaded,
    /// `covers` makes its cover from its first page, and `list --json` says where it came from.
    func testACoverIsMadeFromADownloadedPDFWhenTheCatalogHasNone() throws {
        server.serve("/issues/page.pdf", .init(body: Fixtures.pagePDF(red: 0, green: 0.5, blue: 1)))
        serveCatalog([Fixtures.entry(id: "page", download: "issues/page.pdf"), Fixtures.entry(id: "other", download: "issues/other.pdf")])
        XCTAssertEqual(try runner.run("download", "page", "--catalog", catalogURL).status, 0)
        let covers = try runner.run("covers", "--catalog", catalogURL)
        XCTAssertEqual(covers.status, 0, covers.output + covers.error)
        XCTAssertTrue(covers.output.contains("1 of 1 covers on disk."), "the downloaded issue only: \(covers.output)")
        let list = try runner.run("list", "--json", "--catalog", catalogURL)
        let issues = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])?["issues"] as? [[String: Any]])
        XCTAssertEqual(issues.first { $0["id"] as? String == "page" }?["coverMadeFromIssue"] as? Bool, true)
        XCTAssertNil(issues.first { $0["id"] as? String == "other" }?["coverMadeFromIssue"])
        let library = try XCTUnwrap(FileManager.default.enumerator(atPath: folder.path + "/data/newsstand")?.allObjects as? [String])
        let cover = try XCTUnwrap(library.first { $0.hasSuffix("/.covers/page") })
        let png = try XCTUnwrap(FileManager.default.contents(atPath: folder.path + "/data/newsstand/" + cover))
        XCTAssertTrue(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG rendered by pdftoppm")
    }

    func testListJSONOfALargeCatalogKeepsEveryIssueInOrder() throws {
        // Over 8,192 issues: decoded and written in pieces on every core, then joined.
        let entries = (0..<9_000).map { Fixtures.entry(id: "i\($0)", title: "Issue \"\($0)\"", download: "issues/i\($0).pdf") }
        let path = folder.path + "/large.plist"
        try Fixtures.catalog(entries, format: .binary).write(to: URL(fileURLWithPath: path))
        let result = try runner.run("list", "--json", "--catalog", path)
        XCTAssertEqual(result.status, 0, result.error)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let issues = try XCTUnwrap(json["issues"] as? [[String: Any]])
        XCTAssertEqual(issues.compactMap { $0["id"] as? String }, (0..<9_000).map { "i\($0)" })
        XCTAssertEqual(issues[8_999]["title"] as? String, "Issue \"8999\"")
    }

    func testCAFileTrustsAPrivateAuthorityAndCertificatesAreAlwaysVerified() throws {
        let https = try HTTPSServer(plainPort: server.port)
        defer { https.stop() }
        let data = Fixtures.pdf(size: 20_000, seed: 6)
        try FileManager.default.createDirectory(atPath: https.root + "/issues", withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: https.root + "/issues/a.pdf"))
        let entry = Fixtures.entry(id: "a", download: "issues/a.pdf", size: data.count, sha256: Fixtures.sha256(data))
        try Fixtures.catalog([entry]).write(to: URL(fileURLWithPath: https.root + "/catalog.plist"))
        let catalog = https.url("/catalog.plist").absoluteString

        let refused = try runner.run("refresh", "--catalog", catalog)
        XCTAssertEqual(refused.status, 2, "no catalog: the system's authorities do not know the test authority")
        XCTAssertTrue(refused.error.contains("certificate could not be verified"), refused.error)
        XCTAssertEqual(refused.error.split(separator: "\n").count, 1, "one line")

        let trusted = try runner.run("download", "a", "--catalog", catalog, "--ca-file", HTTPSServer.authority)
        XCTAssertEqual(trusted.status, 0, trusted.error)
        let listing = try runner.run("list", "--json", "--offline", "--catalog", catalog)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [String: Any])
        let path = try XCTUnwrap(pdfPath("a", in: json))
        XCTAssertEqual(FileManager.default.contents(atPath: path), data)
    }

    func testListJSONDescribesTheCatalog() throws {
        serve("a", size: 10_000)
        serveCatalog([Fixtures.entry(id: "a", title: "Alpha", download: "issues/a.pdf", size: 10_000),
                      Fixtures.entry(id: "b", download: "issues/b.pdf", free: false)])
        let json = try listJSON()
        let catalog = try XCTUnwrap((json["subscriptions"] as? [[String: Any]])?.first)
        XCTAssertEqual(catalog["url"] as? String, catalogURL)
        XCTAssertEqual(catalog["title"] as? String, "Test Monthly")
        XCTAssertEqual(catalog["source"] as? String, "network")
        XCTAssertNotNil(catalog["fetchedAt"] as? String)
        let issues = try XCTUnwrap(json["issues"] as? [[String: Any]])
        XCTAssertEqual(issues.count, 2)
        XCTAssertEqual(issues[0]["id"] as? String, "a")
        XCTAssertEqual(issues[0]["title"] as? String, "Alpha")
        XCTAssertEqual(issues[0]["releaseDate"] as? String, "2026-01-01T00:00:00Z")
        XCTAssertEqual(issues[0]["free"] as? Bool, true)
        XCTAssertEqual(issues[0]["state"] as? String, "remote")
        XCTAssertEqual(issues[0]["size"] as? Int, 10_000)
        XCTAssertEqual(issues[1]["free"] as? Bool, false)
    }

    /// `--help` exits at once, while libcurl may still be loading on another thread: an exit
    /// then crashed in OpenSSL's exit handlers about once in a hundred runs (so 150 runs passed
    /// about one time in five), until the exit waited for the load.
    func testAnImmediateExitNeverCrashesWhileLibcurlLoads() throws {
        for run in 1...150 {
            let help = try runner.run("--help")
            guard help.status == 0 else { return XCTFail("run \(run) ended with \(help.status): \(help.error)") }
        }
    }

    /// At 80 columns the help's paragraphs are wrapped once, by the parser: no line of a
    /// paragraph stops short before the next (a line broken by hand, then wrapped again).
    func testTheHelpWrapsEvenlyAt80Columns() throws {
        let narrow = CommandRunner(folder: folder, extra: ["COLUMNS": "80"])
        for command in [["--help"], ["sync", "--help"]] {
            let help = try narrow.run(command)
            XCTAssertEqual(help.status, 0, help.error)
            let prose = help.output.components(separatedBy: "\nUSAGE:")[0]
            for paragraph in prose.components(separatedBy: "\n\n") {
                let lines = paragraph.split(separator: "\n").map(String.init)
                for (line, next) in zip(lines, lines.dropFirst()) {
                    XCTAssertLessThanOrEqual(line.count, 80, line)
                    // The parser wraps at one column short of the width.
                    let room = 79 - line.count - 1
                    let nextWord = next.split(separator: " ").first.map(String.init) ?? ""
                    XCTAssertLessThan(room, nextWord.count, "\(command): “\(line)” had room for “\(nextWord)”")
                }
            }
        }
    }

    func testHostileTitlesArePrintedInert() throws {
        serveCatalog([Fixtures.entry(id: "evil", title: "Evil\u{1B}[2J\u{1B}]0;owned\u{07}\u{202E}gnp.exe\nnext", download: "e.pdf")])
        let table = try runner.run("list", "--catalog", catalogURL)
        XCTAssertEqual(table.status, 0, table.error)
        XCTAssertTrue(table.output.contains("Evil"))
        XCTAssertTrue(table.output.contains(" — 1 issue · Up to date ("), "one pair of brackets: \(table.output)")
        let raw = try runner.run("list", "--json", "--catalog", catalogURL)
        for output in [table.output, raw.output] {
            XCTAssertFalse(output.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F || $0.value == 0x202E },
                           "control characters reached the terminal: \(output.debugDescription)")
        }
    }

    func testDownloadKilledWithSIGKILLResumesWithARangeRequest() throws {
        let data = serve("big", size: 5_000_000, throttle: 2_000_000)
        serveCatalog([Fixtures.entry(id: "big", download: "issues/big.pdf", size: data.count, sha256: Fixtures.sha256(data))])
        let (process, _, _) = try runner.start(["download", "big", "--catalog", catalogURL])
        XCTAssertTrue(server.wait { $0.bodyBytesSent(for: "/issues/big.pdf") >= 2_500_000 })
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)

        let json = try listJSON("--offline")
        let issue = try XCTUnwrap((json["issues"] as? [[String: Any]])?.first)
        XCTAssertEqual(issue["state"] as? String, "partial")
        XCTAssertNil(issue["path"], "the final name never exists before the download is complete")
        let partial = try XCTUnwrap(issue["partialBytes"] as? Int)
        XCTAssertGreaterThan(partial, 0)

        server.serve("/issues/big.pdf", .init(body: data, etag: "\"big-1\""))
        let resumed = try runner.run("download", "big", "--catalog", catalogURL)
        XCTAssertEqual(resumed.status, 0, resumed.error)
        let request = try XCTUnwrap(server.requests(for: "/issues/big.pdf").last)
        XCTAssertEqual(request.headers["range"], "bytes=\(partial)-")
        XCTAssertEqual(request.headers["if-range"], "\"big-1\"")
        let path = try XCTUnwrap(pdfPath("big", in: try listJSON("--offline")))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), data)
        // The part's info and the writer's lock leave no file of their own behind.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent), ["big.pdf"])
    }

    func testTwoProcessesNeverWriteTheSameIssue() throws {
        let data = serve("big", size: 2_000_000, throttle: 1_000_000)
        serveCatalog([Fixtures.entry(id: "big", download: "issues/big.pdf", size: data.count, sha256: Fixtures.sha256(data))])
        XCTAssertEqual(try runner.run("refresh", "--catalog", catalogURL).status, 0)
        let (first, _, _) = try runner.start(["download", "big", "--catalog", catalogURL])
        XCTAssertTrue(server.wait { $0.bodyBytesSent(for: "/issues/big.pdf") > 100_000 })
        let second = try runner.run("download", "big", "--catalog", catalogURL)
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(second.error.contains("Another newsstand is already downloading") && second.error.contains("/big"), second.error)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        XCTAssertEqual(server.requests(for: "/issues/big.pdf").count, 1, "the second process never fetched")
        let path = try XCTUnwrap(pdfPath("big", in: try listJSON("--offline")))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), data)
    }

    func testOpenHandsTheOpenerOneAbsolutePath() throws {
        serve("a", size: 20_000)
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        XCTAssertEqual(try runner.run("download", "a", "--catalog", catalogURL).status, 0)
        let fake = try FakeOpener(in: folder, countingArguments: true)
        let (record, opener) = (fake.record, fake.path)
        var withOpener = runner!
        withOpener.environment["NEWSSTAND_OPENER"] = opener
        let result = try withOpener.run("open", "a", "--catalog", catalogURL)
        XCTAssertEqual(result.status, 0, result.error)
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "1")
        XCTAssertEqual(lines.dropFirst().first, pdfPath("a", in: try listJSON("--offline")))
        XCTAssertTrue(lines[1].hasPrefix("/"))
    }

    func testOpenOfAnIssueNotDownloadedFailsInOneLine() throws {
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        let result = try runner.run("open", "a", "--catalog", catalogURL)
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.error.split(separator: "\n").count, 1)
        XCTAssertTrue(result.error.contains("not downloaded"), result.error)
    }

    func testAnOpenerThatFailsIsReported() throws {
        serve("a", size: 20_000)
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        XCTAssertEqual(try runner.run("download", "a", "--catalog", catalogURL).status, 0)
        var withOpener = runner!
        withOpener.environment["NEWSSTAND_OPENER"] = "/nonexistent/reader"
        let result = try withOpener.run("open", "a", "--catalog", catalogURL)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.error.contains("NEWSSTAND_OPENER"), result.error)
    }

    func testOfflineListComesFromTheCacheAndSaysSo() throws {
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        XCTAssertEqual(try runner.run("refresh", "--catalog", catalogURL).status, 0)
        server.stop()
        let result = try runner.run("list", "--json", "--catalog", catalogURL)
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertTrue(result.error.contains("Offline"), result.error)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        XCTAssertEqual((json["subscriptions"] as? [[String: Any]])?.first?["source"] as? String, "cache")
    }

    func testLibcurlIsLoadedOnlyByCommandsThatFetch() throws {
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        // The dynamic loader's own report of every library it opens, linked or dlopen'd.
        var tracing = try XCTUnwrap(runner)
        tracing.environment["LD_DEBUG"] = "files"
        let refresh = try tracing.run("refresh", "--catalog", catalogURL)
        XCTAssertEqual(refresh.status, 0, refresh.error)
        XCTAssertTrue(refresh.error.contains("file=libcurl.so.4"), "a refresh opens libcurl: \(refresh.error.suffix(2000))")
        let list = try tracing.run("list", "--json", "--offline", "--catalog", catalogURL)
        XCTAssertEqual(list.status, 0, list.error)
        XCTAssertTrue(list.error.contains("file=libsqlite3"), "the loader's report is there: \(list.error.suffix(2000))")
        XCTAssertFalse(list.error.contains("libcurl"), "an offline list never loads libcurl")
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])
    }

    func testTheShelfsLibrariesAreNotLoadedByTheCommands() throws {
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        var tracing = try XCTUnwrap(runner)
        tracing.environment["LD_DEBUG"] = "files"
        // curses, chafa (with GLib) and stb_image are opened when the shelf draws, not at every start.
        for arguments in [["--version"], ["refresh", "--catalog", catalogURL], ["list", "--json", "--offline", "--catalog", catalogURL]] {
            let result = try tracing.run(arguments)
            XCTAssertEqual(result.status, 0, result.error)
            XCTAssertTrue(result.error.contains("file=libsqlite3"), "the loader's report is there: \(result.error.suffix(2000))")
            for library in ["libncursesw", "libtinfo", "libchafa", "libglib", "libstb"] {
                XCTAssertFalse(result.error.contains("file=\(library)"), "\(arguments[0]) loads \(library)")
            }
        }
    }

    func testACommandLeavesTheReadingStatesLogAndTheNextReadsIt() throws {
        serveCatalog((0..<200).map { Fixtures.entry(id: "i\($0)", download: "issues/i\($0).pdf") })
        let database = folder.path + "/data/newsstand/reading.sqlite3"
        XCTAssertEqual(try runner.run("refresh", "--catalog", catalogURL).status, 0)
        // No process folds SQLite's write-ahead log into the database as it ends: that was two
        // syncs of the disk at the end of every command. The next process reads the log.
        XCTAssertTrue(FileManager.default.fileExists(atPath: database))
        XCTAssertTrue(FileManager.default.fileExists(atPath: database + "-wal"), "the log was folded as the refresh ended")
        XCTAssertEqual(try runner.run("mark", "read", "i7", "--catalog", catalogURL).status, 0)
        // One more issue: new only if the first load's keys were read back from the log.
        let more = Fixtures.catalog((0..<201).map { Fixtures.entry(id: "i\($0)", download: "issues/i\($0).pdf") })
        server.serve("/catalog.plist", .init(body: more, contentType: "application/xml", etag: "\"more\""))
        XCTAssertEqual(try runner.run("refresh", "--catalog", catalogURL).output.contains("201 issues, 1 new"), true)
        let list = try runner.run("list", "--json", "--offline", "--catalog", catalogURL)
        XCTAssertEqual(list.status, 0, list.error)
        let issues = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])?["issues"] as? [[String: Any]])
        XCTAssertEqual(issues.count, 201)
        XCTAssertEqual(issues.filter { $0["new"] as? Bool == true }.map { $0["id"] as? String }, ["i200"])
        XCTAssertEqual(issues.filter { $0["read"] as? Bool == true }.map { $0["id"] as? String }, ["i7"])
    }

    /// A refresh opens the reading state beside its request. One that cannot be opened still
    /// ends the refresh with the error the other commands give at once, and exit status 1; the
    /// broken file is left for the reader to move aside, and the catalog fetched is kept.
    func testARefreshWhoseReadingStateCannotBeOpenedSaysSoAndKeepsTheCatalog() throws {
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        let database = folder.path + "/data/newsstand/reading.sqlite3"
        try FileManager.default.createDirectory(atPath: folder.path + "/data/newsstand", withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 8_192)
        try garbage.write(to: URL(fileURLWithPath: database))

        let refresh = try runner.run("refresh", "--catalog", catalogURL)
        XCTAssertEqual(refresh.status, 1, refresh.error)
        XCTAssertTrue(refresh.error.hasPrefix("newsstand: The reading-state database \(database) cannot be opened ("), refresh.error)
        XCTAssertTrue(refresh.error.hasSuffix("move it aside to start afresh.\n"), refresh.error)
        XCTAssertTrue(refresh.output.contains("catalog updated, 1 issue"), refresh.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), garbage, "the reading state was not touched")

        // A command that opens it at once fails at once, with the same words; moved aside, all is well.
        let list = try runner.run("list", "--offline", "--catalog", catalogURL)
        XCTAssertEqual(list.status, 1)
        XCTAssertEqual(list.error, refresh.error)
        try FileManager.default.moveItem(atPath: database, toPath: database + ".broken")
        let again = try runner.run("refresh", "--catalog", catalogURL)
        XCTAssertEqual(again.status, 0, again.error)
        XCTAssertTrue(FileManager.default.fileExists(atPath: database))
    }

    func testOfflineWithNoCacheFailsClearly() throws {
        server.stop()
        let result = try runner.run("list", "--catalog", catalogURL)
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.error.hasPrefix("newsstand: Cannot connect to 127.0.0.1 port "), result.error)
    }

    func testRefreshSaysWhetherTheCatalogChanged() throws {
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        let first = try runner.run("refresh", "--catalog", catalogURL)
        XCTAssertTrue(first.output.contains("updated, 1 issue, 1 new"), first.output)
        let second = try runner.run("refresh", "--catalog", catalogURL)
        XCTAssertTrue(second.output.contains("unchanged"), second.output)
        server.serve("/catalog.plist", .init(body: Fixtures.catalog([Fixtures.entry(id: "a", download: "a.pdf"),
                                                                     Fixtures.entry(id: "b", download: "b.pdf")]), etag: "\"cat2\""))
        let third = try runner.run("refresh", "--catalog", catalogURL)
        XCTAssertTrue(third.output.contains("2 issues, 1 new"), third.output)
        // The copy the third refresh replaced is removed on another thread, and the command waits for it.
        let catalogs = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/cache/newsstand/catalogs")
        XCTAssertFalse(catalogs.contains { $0.hasSuffix(".retired") }, "\(catalogs)")
        XCTAssertTrue(catalogs.contains { $0.hasSuffix(".catalog") }, "\(catalogs)")
    }

    func testSkippedEntriesAreWarnedAbout() throws {
        serveCatalog([Fixtures.entry(id: "ok", download: "ok.pdf"), ["ID": "../../x", "Download URL": "x.pdf"]])
        let result = try runner.run("list", "--catalog", catalogURL)
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.error.contains("warning: Skipped issue 2 (ID \"../../x\"): `Title` is missing"), result.error)
    }

    func testAFailedDownloadExitsNonZeroAndNamesTheIssue() throws {
        serveCatalog([Fixtures.entry(id: "gone", download: "issues/gone.pdf")])
        let result = try runner.run("download", "gone", "--catalog", catalogURL)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.error.contains("gone:"), result.error)
        XCTAssertTrue(result.error.contains("HTTP 404"), result.error)
    }

    func testUnknownIDAndDelete() throws {
        serve("a", size: 20_000)
        serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        let unknown = try runner.run("download", "zzz", "--catalog", catalogURL)
        XCTAssertEqual(unknown.status, 3)
        XCTAssertTrue(unknown.error.contains("No issue \"zzz\""), unknown.error)
        XCTAssertEqual(try runner.run("download", "a", "--catalog", catalogURL).status, 0)
        let path = try XCTUnwrap(pdfPath("a", in: try listJSON("--offline")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        let deleted = try runner.run("delete", "a", "--catalog", catalogURL)
        XCTAssertEqual(deleted.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testTheBundledDemoWorksWithNoNetwork() throws {
        let result = try runner.run("download", "--all-free")
        XCTAssertEqual(result.status, 0, result.error)
        let list = try runner.run("list", "--json")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])
        let issues = try XCTUnwrap(json["issues"] as? [[String: Any]])
        XCTAssertEqual(issues.count, 6)
        for issue in issues {
            XCTAssertEqual(issue["state"] as? String, (issue["free"] as? Bool ?? false) ? "downloaded" : "remote")
        }
    }
}
