import Foundation
import TestSupport
import XCTest

/// Subscriptions, `sync`, reading state and the budget, through the built binary against three
/// loopback publications, in a temporary XDG folder.
final class SubscriptionsEndToEndTests: XCTestCase {
    var folder: TemporaryDirectory!
    var runner: CommandRunner!
    var servers: [String: TestServer] = [:]
    var configPath: String { folder.path + "/config/newsstand/config.toml" }

    override func setUpWithError() throws {
        folder = TemporaryDirectory()
        runner = CommandRunner(folder: folder, extra: ["WEEKLY_PASSWORD": "hunter2-weekly"])
        for name in ["weekly", "monthly", "club"] { servers[name] = try TestServer() }
    }

    override func tearDown() {
        servers.values.forEach { $0.stop() }
        servers = [:]
        folder = nil
        runner = nil
    }

    /// Serves a catalog of issues `ids` (newest last) on the publication's server; returns their bytes.
    @discardableResult
    private func publish(_ name: String, _ ids: [String], size: Int = 30_000, throttle: Int? = nil, extraHeaders: [String] = []) -> [String: Data] {
        let server = servers[name]!
        var entries: [[String: Any]] = []
        var files: [String: Data] = [:]
        for (index, id) in ids.enumerated() {
            let data = Fixtures.pdf(size: size + index, seed: UInt8(truncatingIfNeeded: index * 7 + name.count))
            files[id] = data
            server.serve("/issues/\(id).pdf", .init(body: data, etag: "\"\(id)\"", throttle: throttle))
            entries.append(Fixtures.entry(id: id, title: "\(name) \(id)", download: "issues/\(id).pdf",
                                          date: Date(timeIntervalSince1970: 1_760_000_000 + Double(index) * 86_400),
                                          size: data.count, sha256: Fixtures.sha256(data)))
        }
        server.serve("/catalog.plist", .init(body: Fixtures.catalog(entries, title: name.capitalized), contentType: "application/xml",
                                             etag: "\"\(ids.joined(separator: ","))\"", extraHeaders: extraHeaders))
        return files
    }

    private func json(_ result: CommandRunner.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], result.output + result.error)
    }

    private func issues(_ subscription: String? = nil) throws -> [String: [String: Any]] {
        let result = try runner.run(["list", "--json", "--offline"] + (subscription.map { ["--subscription", $0] } ?? []))
        XCTAssertEqual(result.status, 0, result.error)
        var byAddress: [String: [String: Any]] = [:]
        for issue in try json(result)["issues"] as? [[String: Any]] ?? [] {
            byAddress["\(issue["subscription"] as? String ?? "?")/\(issue["id"] as? String ?? "?")"] = issue
        }
        return byAddress
    }

    /// Three subscriptions, one written by hand with comments and two by `subscribe`.
    private func subscribeThree() throws {
        try FileManager.default.createDirectory(atPath: folder.path + "/config/newsstand", withIntermediateDirectories: true)
        let handWritten = """
            # My newsstand. Written by hand; newsstand must keep this comment.
            jobs = 2

            [subscriptions.weekly]
            url = "\(servers["weekly"]!.url("/catalog.plist").absoluteString)"
            auto_download = "latest"   # just the newest
            keep = 1
            user = "ann"
            password_env = "WEEKLY_PASSWORD"

            """
        try Data(handWritten.utf8).write(to: URL(fileURLWithPath: configPath))
        chmod(configPath, 0o600)
        let monthly = try runner.run("subscribe", servers["monthly"]!.url("/catalog.plist").absoluteString, "--name", "monthly",
                                     "--auto-download", "2", "--header", "X-App: newsstand-test")
        XCTAssertEqual(monthly.status, 0, monthly.error)
        XCTAssertTrue(monthly.output.contains("Subscribed to"), monthly.output)
        let club = try runner.run("subscribe", servers["club"]!.url("/catalog.plist").absoluteString, "--name", "club", "--no-fetch")
        XCTAssertEqual(club.status, 0, club.error)
        let text = try String(contentsOfFile: configPath, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix(handWritten), "the hand-written part is kept byte for byte")
    }

    func testSubscribeSyncReadAndKeepWithinTheBudget() throws {
        servers["weekly"]!.requireAuthorization(TestServer.basic("ann", "hunter2-weekly"))
        let weekly = publish("weekly", ["w1", "w2"])
        let monthly = publish("monthly", ["m1", "m2", "m3"])
        publish("club", ["c1"], extraHeaders: ["Cache-Control: max-age=3600"])
        try subscribeThree()

        let listed = try json(try runner.run("subscriptions", "--json"))
        let subscriptions = try XCTUnwrap(listed["subscriptions"] as? [[String: Any]])
        XCTAssertEqual(subscriptions.map { $0["name"] as? String }, ["weekly", "monthly", "club"])
        XCTAssertEqual(subscriptions[0]["credentials"] as? String, "password as ann")

        let first = try runner.run("sync")
        XCTAssertEqual(first.status, 0, first.output + first.error)
        XCTAssertTrue(first.output.contains("weekly: updated"), first.output)
        XCTAssertTrue(first.output.contains("downloaded w2"), first.output)
        XCTAssertTrue(first.output.contains("monthly: unchanged") && first.output.contains("m3") && first.output.contains("m2"), first.output)
        var state = try issues()
        XCTAssertEqual(state["weekly/w2"]?["state"] as? String, "downloaded")
        XCTAssertEqual(state["weekly/w1"]?["state"] as? String, "remote", "latest only")
        XCTAssertEqual(state["monthly/m1"]?["state"] as? String, "remote")
        let path = try XCTUnwrap(state["weekly/w2"]?["path"] as? String)
        XCTAssertEqual(FileManager.default.contents(atPath: path), weekly["w2"])
        XCTAssertEqual(FileManager.default.contents(atPath: try XCTUnwrap(state["monthly/m3"]?["path"] as? String)), monthly["m3"])
        for issue in state.values {
            XCTAssertEqual(issue["new"] as? Bool, false, "back issues are not new")
            XCTAssertEqual(issue["mediaType"] as? String, "application/pdf")
            XCTAssertNotNil(issue["localKey"] as? String)
            XCTAssertEqual(issue["read"] as? Bool, false)
        }
        XCTAssertTrue(servers["monthly"]!.requests.allSatisfy { $0.headers["x-app"] == "newsstand-test" })
        // Over http the password goes only once the server has asked: one 401, then the origin is known.
        XCTAssertEqual(servers["weekly"]!.requests.filter { $0.headers["authorization"] == nil }.count, 1)
        XCTAssertTrue(servers["weekly"]!.requests.allSatisfy { $0.headers["authorization"] == nil || $0.headers["authorization"] == TestServer.basic("ann", "hunter2-weekly") })

        // A new weekly issue: new, downloaded by the next sync; the club's catalog is still fresh.
        publish("weekly", ["w1", "w2", "w3"])
        let second = try runner.run("sync", "--json")
        XCTAssertEqual(second.status, 0, second.output + second.error)
        let report = try json(second)
        let outcomes = try XCTUnwrap(report["subscriptions"] as? [[String: Any]])
        XCTAssertEqual(outcomes.first { $0["name"] as? String == "weekly" }?["downloaded"] as? [String], ["w3"])
        XCTAssertEqual(outcomes.first { $0["name"] as? String == "club" }?["askedServer"] as? Bool, false)
        XCTAssertEqual(servers["club"]!.requests(for: "/catalog.plist").count, 1, "inside max-age: no request")
        state = try issues()
        XCTAssertEqual(state["weekly/w3"]?["new"] as? Bool, true)
        XCTAssertEqual((report["removed"] as? [Any])?.count, 0, "w2 is unread: kept over the budget")

        // Open marks read; then the budget may remove the older read one.
        let fake = try FakeOpener(in: folder, name: "reader.sh")
        let (record, opener) = (fake.record, fake.path)
        var reading = runner!
        reading.environment["NEWSSTAND_OPENER"] = opener
        XCTAssertEqual(try reading.run("open", "weekly/w3").status, 0)
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8), (try XCTUnwrap(try issues()["weekly/w3"]?["path"] as? String)) + "\n")
        XCTAssertEqual(try runner.run("mark", "read", "weekly/w2").status, 0)
        state = try issues()
        XCTAssertEqual(state["weekly/w3"]?["read"] as? Bool, true)
        XCTAssertEqual(state["weekly/w3"]?["new"] as? Bool, false)
        XCTAssertNotNil(state["weekly/w3"]?["openedAt"] as? String)
        XCTAssertNil(state["weekly/w2"]?["openedAt"] as? String)

        let third = try runner.run("sync")
        XCTAssertEqual(third.status, 0, third.output + third.error)
        XCTAssertTrue(third.output.contains("removed weekly/w2"), third.output)
        state = try issues()
        XCTAssertEqual(state["weekly/w2"]?["state"] as? String, "remote")
        XCTAssertEqual(state["weekly/w3"]?["state"] as? String, "downloaded", "keep = 1 keeps the newest")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        let usage = try json(try runner.run("usage", "--json"))
        let rows = try XCTUnwrap(usage["subscriptions"] as? [[String: Any]])
        XCTAssertEqual(rows.first { $0["name"] as? String == "monthly" }?["downloadedIssues"] as? Int, 2)
        XCTAssertGreaterThan(usage["totalBytes"] as? Int ?? 0, 60_000)
        let table = try runner.run("usage")
        XCTAssertTrue(table.output.split(separator: "\n").contains { $0.hasPrefix("weekly") && $0.hasSuffix("  1 issue") }, table.output)
        XCTAssertTrue(table.output.contains("monthly") && table.output.contains("  2 issues"), table.output)
        // The subscriptions' table lines up: every address and every detail starts in its column.
        let lines = try runner.run("subscriptions").output.split(separator: "\n").map(String.init)
        XCTAssertGreaterThanOrEqual(lines.count, 2)
        XCTAssertEqual(Set(lines.compactMap { $0.range(of: "http")?.lowerBound.utf16Offset(in: $0) }).count, 1, lines.joined(separator: "\n"))
        XCTAssertEqual(Set(lines.compactMap { $0.range(of: "auto-download")?.lowerBound.utf16Offset(in: $0) }).count, 1, lines.joined(separator: "\n"))

        // The unattended runs left their story in the log, and no secret.
        let log = try String(contentsOfFile: folder.path + "/state/newsstand/newsstand.log", encoding: .utf8)
        XCTAssertTrue(log.contains("weekly: updated") && log.contains("removed weekly/w2"), log)
        XCTAssertFalse(log.contains("hunter2"), log)
        for result in [first, second, third] { XCTAssertFalse((result.output + result.error).contains("hunter2")) }

        // Unsubscribing with its issues: the folder and the block go, the rest stays.
        let gone = try runner.run("unsubscribe", "monthly", "--delete-issues")
        XCTAssertEqual(gone.status, 0, gone.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/data/newsstand/monthly"))
        let text = try String(contentsOfFile: configPath, encoding: .utf8)
        XCTAssertFalse(text.contains("monthly"))
        XCTAssertTrue(text.contains("# My newsstand. Written by hand; newsstand must keep this comment."))
    }

    /// OPML from newsboat and from a podcast app: every feed subscribed once, at any depth of
    /// folders, duplicates and what is not http(s) skipped and named; `export` then `import` into
    /// another configuration keeps every name and address.
    func testOPMLFromOtherReadersImportsAndRoundTrips() throws {
        let server = servers["weekly"]!
        server.serve("/zine/feed.rss", .init(body: Fixtures.feed("magazine.rss"), contentType: "application/rss+xml"))
        let newsboat = folder.path + "/newsboat.opml", antennapod = folder.path + "/antennapod.opml"
        let port = server.url("/").port!
        try Fixtures.opml("newsboat.opml").replacingOccurrences(of: "PORT", with: "\(port)").write(toFile: newsboat, atomically: true, encoding: .utf8)
        try Fixtures.opml("antennapod.opml").write(toFile: antennapod, atomically: true, encoding: .utf8)

        let first = try runner.run("import", newsboat)
        XCTAssertEqual(first.status, 0, first.output + first.error)
        XCTAssertTrue(first.output.contains("Imported 2 subscriptions"), first.output)
        XCTAssertTrue(first.error.contains("skipped http://127.0.0.1:\(port)/zine/feed.rss: already subscribed as"), "twice in the file: \(first.error)")
        XCTAssertTrue(first.error.contains("skipped file:///etc/passwd: not an http(s) address"), first.error)
        let second = try runner.run("import", antennapod)
        XCTAssertEqual(second.status, 0, second.output + second.error)
        XCTAssertTrue(second.output.contains("Imported 2 subscriptions"), "the nested two; Byte Review is there already: \(second.output)")
        XCTAssertTrue(second.error.contains("skipped https://byte.example/feed.json: already subscribed as"), second.error)

        let listed = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(runner.run("subscriptions", "--json").output.utf8)) as? [String: Any])?["subscriptions"] as? [[String: Any]])
        XCTAssertEqual(Set(listed.compactMap { $0["url"] as? String }), [
            "http://127.0.0.1:\(port)/zine/feed.rss", "https://byte.example/feed.json", "https://ocean.example/opds/root.xml", "https://planet.example/feed.xml",
        ])
        XCTAssertEqual(listed.first { $0["url"] as? String == "https://ocean.example/opds/root.xml" }?["title"] as? String, "Ocean Quarterly & Friends")

        // Out, and into another newsstand: the same names and addresses.
        XCTAssertEqual(try runner.run("refresh", "--subscription", listed.first { ($0["url"] as? String)?.hasPrefix("http://127.0.0.1") == true }?["name"] as? String ?? "").status, 0)
        let exported = try runner.run("export", "--opml")
        XCTAssertEqual(exported.status, 0, exported.error)
        XCTAssertTrue(exported.output.contains(#"text="Zine Weekly""#), "the title read from the feed's cached copy:\n\(exported.output)")
        let file = folder.path + "/exported.opml"
        try exported.output.write(toFile: file, atomically: true, encoding: .utf8)
        let elsewhere = TemporaryDirectory()
        let other = CommandRunner(folder: elsewhere)
        let imported = try other.run("import", file)
        XCTAssertEqual(imported.status, 0, imported.output + imported.error)
        XCTAssertTrue(imported.error.isEmpty, imported.error)
        let again = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(other.run("subscriptions", "--json").output.utf8)) as? [String: Any])?["subscriptions"] as? [[String: Any]])
        func pairs(_ rows: [[String: Any]]) -> Set<String> { Set(rows.map { "\($0["name"] as? String ?? "?") \($0["url"] as? String ?? "?")" }) }
        XCTAssertEqual(pairs(again), pairs(listed))
    }

    func testASecondSyncSaysSoAndAKilledSyncLosesNothing() throws {
        let big = publish("monthly", ["m1"], size: 3_000_000, throttle: 1_000_000)
        publish("weekly", ["w1"])
        publish("club", ["c1"])
        try subscribeThree()
        var config = try String(contentsOfFile: configPath, encoding: .utf8)
        config = config.replacingOccurrences(of: "auto_download = \"2\"", with: "auto_download = \"latest\"")
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
        servers["weekly"]!.requireAuthorization(TestServer.basic("ann", "hunter2-weekly"))

        let (running, _, _) = try runner.start(["sync"])
        XCTAssertTrue(servers["monthly"]!.wait { $0.bodyBytesSent(for: "/issues/m1.pdf") > 200_000 })
        let second = try runner.run("sync")
        XCTAssertEqual(second.status, 75, second.output + second.error)
        XCTAssertTrue(second.error.contains("Another newsstand sync is running"), second.error)

        // Killed outright in the middle of the download, once some bytes are on disk.
        let partFolder = folder.path + "/data/newsstand/monthly/m1"
        XCTAssertTrue(servers["monthly"]!.wait { _ in (partSize(partFolder + "/m1.pdf.part") ?? 0) > 0 })
        kill(running.processIdentifier, SIGKILL)
        running.waitUntilExit()
        XCTAssertFalse(FileManager.default.fileExists(atPath: partFolder + "/m1.pdf"), "nothing half-installed")

        let again = try runner.run("sync")
        XCTAssertEqual(again.status, 0, again.output + again.error)
        XCTAssertEqual(FileManager.default.contents(atPath: partFolder + "/m1.pdf"), big["m1"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: partFolder + "/m1.pdf.part"))
        let resumed = try XCTUnwrap(servers["monthly"]!.requests(for: "/issues/m1.pdf").last)
        XCTAssertNotNil(resumed.headers["range"], "the second sync resumed the bytes the first had")
        let state = try issues()
        XCTAssertEqual(state["monthly/m1"]?["state"] as? String, "downloaded")
        XCTAssertEqual(state["weekly/w1"]?["state"] as? String, "downloaded")
    }

    func testSyncSaysWhetherSomeOrNothingWasReachable() throws {
        publish("weekly", ["w1"])
        publish("monthly", ["m1"])
        publish("club", ["c1"])
        try subscribeThree()
        servers["weekly"]!.requireAuthorization(TestServer.basic("ann", "hunter2-weekly"))
        servers["club"]!.stop()
        let partial = try runner.run("sync")
        XCTAssertEqual(partial.status, 5, partial.output + partial.error)
        XCTAssertTrue(partial.output.contains("club: failed:"), partial.output)
        XCTAssertTrue(partial.output.contains("weekly: ") && partial.output.contains("downloaded w1"), partial.output)
        servers["weekly"]!.stop()
        servers["monthly"]!.stop()
        let none = try runner.run("sync", "--json")
        XCTAssertEqual(none.status, 4, none.output + none.error)
        XCTAssertEqual(try json(none)["succeeded"] as? Bool, false)
    }

    func testABrokenConfigStopsEverythingAndNamesTheLine() throws {
        publish("club", ["c1"])
        try FileManager.default.createDirectory(atPath: folder.path + "/config/newsstand", withIntermediateDirectories: true)
        try Data("""
            [subscriptions.club]
            url = "\(servers["club"]!.url("/catalog.plist").absoluteString)"
            keep = "many"
            """.utf8).write(to: URL(fileURLWithPath: configPath))
        for command in [["sync"], ["list"], ["subscriptions"], ["subscribe", "http://127.0.0.1:9/x.plist", "--no-fetch"]] {
            let result = try runner.run(command)
            XCTAssertEqual(result.status, 64, "\(command): \(result.error)")
            XCTAssertTrue(result.error.contains("\(configPath):3: subscriptions.club.keep"), result.error)
        }
        XCTAssertTrue(servers["club"]!.requests.isEmpty, "nothing ran")
        // The shelf's own tables, checked by the shelf, stop every command alike.
        try Data("[keys]\nsort = \"d\"\n".utf8).write(to: URL(fileURLWithPath: configPath))
        for command in [["list"], ["sync"]] {
            let result = try runner.run(command)
            XCTAssertEqual(result.status, 64, "\(command): \(result.error)")
            XCTAssertTrue(result.error.contains("\(configPath):2: keys.sort: d is bound to both download and sort."), result.error)
        }
    }

    func testHostConnectionsHoldsASyncOfManySubscriptionsOnOneServer() throws {
        // Four subscriptions of one server, each catalog sent slowly enough to overlap.
        let server = servers["club"]!
        var config = "host_connections = 1\n"
        for number in 0..<4 {
            var body = Fixtures.catalog([Fixtures.entry(id: "c\(number)", download: "issues/c\(number).pdf")], title: "Club \(number)")
            body.append(Data(String(repeating: "\n", count: 20_000).utf8))
            server.serve("/club\(number).plist", .init(body: body, contentType: "application/xml", throttle: 80_000))
            config += "[subscriptions.club\(number)]\nurl = \"\(server.url("/club\(number).plist").absoluteString)\"\n"
        }
        try FileManager.default.createDirectory(atPath: folder.path + "/config/newsstand", withIntermediateDirectories: true)
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
        let result = try runner.run("sync")
        XCTAssertEqual(result.status, 0, result.output + result.error)
        XCTAssertEqual(server.requests.count, 4)
        XCTAssertEqual(server.maximumOpenConnections, 1, "host_connections = 1: one catalog at a time")

        try Data(config.replacingOccurrences(of: "= 1\n", with: "= 0\n").utf8).write(to: URL(fileURLWithPath: configPath))
        let refused = try runner.run("sync")
        XCTAssertEqual(refused.status, 64, refused.error)
        XCTAssertTrue(refused.error.contains("\(configPath):1: host_connections: expected a number from 1 to 64."), refused.error)
    }

    func testDiscoverListsPublicCatalogsAndSubscribeTakesTheirShortNames() throws {
        publish("club", ["c1", "c2"])
        let clubURL = servers["club"]!.url("/catalog.plist").absoluteString
        try FileManager.default.createDirectory(atPath: folder.path + "/config/newsstand", withIntermediateDirectories: true)
        try Data("""
            [directory.club-mag]
            url = "\(clubURL)"
            title = "The Club's Magazine"
            summary = "Our own, on the club's server."
            """.utf8).write(to: URL(fileURLWithPath: configPath))

        let listed = try runner.run("discover")
        XCTAssertEqual(listed.status, 0, listed.error)
        XCTAssertTrue(listed.output.contains("gutenberg" + String(repeating: " ", count: 9) + "Project Gutenberg — https://m.gutenberg.org/ebooks.opds/"), listed.output)
        XCTAssertTrue(listed.output.contains("club-mag" + String(repeating: " ", count: 10) + "The Club's Magazine — \(clubURL)\n"), listed.output)

        let subscribed = try runner.run("subscribe", "club-mag")
        XCTAssertEqual(subscribed.status, 0, subscribed.output + subscribed.error)
        XCTAssertTrue(subscribed.output.contains("as club-mag"), subscribed.output)
        XCTAssertTrue(subscribed.output.contains("club-mag: Club, 2 issues"), subscribed.output)
        XCTAssertEqual(servers["club"]!.requests(for: "/catalog.plist").count, 1, "checked once, as any subscribe is")

        let json = try self.json(try runner.run("discover", "--json"))
        let rows = try XCTUnwrap(json["catalogs"] as? [[String: Any]])
        let club = try XCTUnwrap(rows.first { $0["name"] as? String == "club-mag" })
        XCTAssertEqual(club["subscribedAs"] as? String, "club-mag")
        XCTAssertEqual(club["source"] as? String, "config")
        XCTAssertEqual(rows.first { $0["name"] as? String == "gutenberg" }?["source"] as? String, "bundled")
        XCTAssertTrue(try runner.run("discover").output.contains("(subscribed as club-mag)"))

        let unknown = try runner.run("subscribe", "no-such-catalog", "--no-check")
        XCTAssertEqual(unknown.status, 2, unknown.error)
        XCTAssertTrue(unknown.error.contains("no catalog of that name in `newsstand discover`"), unknown.error)

        try Data("[directory.bad]\nurl = \"file:///etc/passwd\"\n".utf8).write(to: URL(fileURLWithPath: configPath))
        let refused = try runner.run("discover")
        XCTAssertEqual(refused.status, 64, refused.error)
        XCTAssertTrue(refused.error.contains("directory.bad.url: expected the catalog's http or https address."), refused.error)
    }

    func testALibraryOfTheEarlierLayoutIsFoundWhenItsCatalogIsSubscribed() throws {
        let files = publish("club", ["c1", "c2"])
        let url = servers["club"]!.url("/catalog.plist").absoluteString
        // What the earlier version left: a folder named after a hash of the catalog's URL.
        let downloaded = try runner.run("download", "c1", "--catalog", url)
        XCTAssertEqual(downloaded.status, 0, downloaded.error)
        let legacy = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/data/newsstand").filter { $0.hasPrefix("catalog-") }
        XCTAssertEqual(legacy.count, 1)
        servers["club"]!.stop()

        let subscribed = try runner.run("subscribe", url, "--name", "club", "--no-fetch")
        XCTAssertEqual(subscribed.status, 0, subscribed.error)
        let state = try issues()
        let path = try XCTUnwrap(state["club/c1"]?["path"] as? String, "\(state)")
        XCTAssertTrue(path.hasPrefix(folder.path + "/data/newsstand/club/"), path)
        XCTAssertEqual(FileManager.default.contents(atPath: path), files["c1"])
        XCTAssertEqual(state["club/c2"]?["state"] as? String, "remote")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/data/newsstand/" + legacy[0]))
    }
}

private func partSize(_ path: String) -> Int? { (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int }
