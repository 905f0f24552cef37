import Foundation
import TestSupport
import XCTest

/// Downloads killed with SIGKILL again and again, then finished: every file must be byte-identical.
final class KillStressTests: XCTestCase {
    func testTwentyKillsAtRandomMomentsLeaveEveryFileIntact() throws {
        let (_, server, runner) = try folderWithServer()
        var generator = clockSeededGenerator("kill stress")

        var originals: [String: Data] = [:]
        var entries: [[String: Any]] = []
        // Slow enough that many runs outlive a flush to disk (every 500 ms), so that resumes happen.
        for number in 0..<8 {
            let id = "s\(number)"
            let data = Fixtures.pdf(size: 4_000_000 + number * 50_000, seed: UInt8(number + 10))
            originals[id] = data
            server.serve("/issues/\(id).pdf", .init(body: data, etag: "\"\(id)\"", throttle: 500_000))
            entries.append(Fixtures.entry(id: id, download: "issues/\(id).pdf", size: data.count, sha256: Fixtures.sha256(data)))
        }
        server.serve("/catalog.plist", .init(body: Fixtures.catalog(entries), contentType: "application/xml", etag: "\"cat\""))
        let catalog = server.url("/catalog.plist").absoluteString
        let total = originals.values.reduce(0) { $0 + $1.count }
        func sent() -> Int { originals.keys.reduce(0) { $0 + server.bodyBytesSent(for: "/issues/\($1).pdf") } }

        var kills = 0
        while kills < 20 {
            let (process, _, _) = try runner.start(["download", "--all-free", "--jobs", "4", "--catalog", catalog])
            let target = sent() + Int.random(in: 150_000...2_500_000, using: &generator)
            let reached = server.wait(timeout: 20) { _ in sent() >= target }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if !reached { break }  // everything was already downloaded
            kills += 1
        }
        XCTAssertEqual(kills, 20, "the downloads finished before 20 kills (sent \(sent()) of \(total) bytes)")

        for (id, data) in originals {
            server.serve("/issues/\(id).pdf", .init(body: data, etag: "\"\(id)\""))
        }
        let finish = try runner.run("download", "--all-free", "--catalog", catalog)
        XCTAssertEqual(finish.status, 0, finish.error)
        let listing = try runner.run("list", "--json", "--offline", "--catalog", catalog)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [String: Any])
        let issues = try XCTUnwrap(json["issues"] as? [[String: Any]])
        XCTAssertEqual(issues.count, originals.count)
        for issue in issues {
            let id = try XCTUnwrap(issue["id"] as? String)
            let path = try XCTUnwrap(issue["path"] as? String, "\(id) not installed")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), originals[id], "\(id) differs from the server's")
        }
        let ranged = server.requests.filter { $0.path.hasPrefix("/issues/") && $0.headers["range"] != nil }
        XCTAssertGreaterThan(ranged.count, 0, "killed downloads resumed with Range requests")
    }
}

extension KillStressTests {
    /// A folder and a server, both kept until the test ends, and a runner for that folder.
    private func folderWithServer() throws -> (TemporaryDirectory, TestServer, CommandRunner) {
        let folder = TemporaryDirectory()
        let server = try TestServer()
        addTeardownBlock {
            server.stop()
            withExtendedLifetime(folder) {}
        }
        return (folder, server, CommandRunner(folder: folder))
    }

    /// A generator seeded from the clock, its seed printed so that a failing run can be replayed.
    private func clockSeededGenerator(_ label: String) -> SplitMix {
        let generator = SplitMix(seed: UInt64(Date().timeIntervalSince1970))
        print("\(label) seed \(generator.seed)")
        return generator
    }

    func testKillsWhileTheCatalogCacheIsWrittenKeepTheOldCache() throws {
        let (folder, server, runner) = try folderWithServer()
        var generator = clockSeededGenerator("cache kill")
        let catalog = server.url("/catalog.plist").absoluteString

        let old = (0..<5).map { Fixtures.entry(id: "old\($0)", download: "issues/\($0).pdf") }
        server.serve("/catalog.plist", .init(body: Fixtures.catalog(old), contentType: "application/xml"))
        XCTAssertEqual(try runner.run("refresh", "--catalog", catalog).status, 0)

        // A catalog of about 4 MB at 4 MB/s, without validators so that every refresh fetches it.
        let new = (0..<8_000).map { Fixtures.entry(id: "new\($0)", title: "Issue number \($0) of the new catalog", download: "issues/\($0).pdf") }
        let body = Fixtures.catalog(new)
        server.serve("/catalog.plist", .init(body: body, contentType: "application/xml", throttle: 4_000_000))
        func cachedCount() throws -> Int {
            let listing = try runner.run("list", "--json", "--offline", "--catalog", catalog)
            XCTAssertEqual(listing.status, 0, listing.error)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [String: Any])
            return try XCTUnwrap(json["issues"] as? [Any]).count
        }
        var counts: [Int] = []
        for attempt in 0..<10 {
            let before = server.bodyBytesSent(for: "/catalog.plist")
            let (process, _, _) = try runner.start(["refresh", "--catalog", catalog])
            // Five kills while the new catalog streams into the cache folder, then five around the
            // check and the rename that follow the transfer.
            let target = before + (attempt < 5 ? Int.random(in: 1..<body.count, using: &generator)
                                               : body.count + Int.random(in: 1...body.count, using: &generator))
            _ = server.wait(timeout: 20) { $0.bodyBytesSent(for: "/catalog.plist") >= min(target, before + body.count) }
            if target > before + body.count { usleep(UInt32.random(in: 0...300_000, using: &generator)) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let count = try cachedCount()
            XCTAssertTrue(count == 5 || count == 8_000, "the cache is the old or the new catalog, never a mix: \(count)")
            counts.append(count)
        }
        print("issues in the cache after each kill: \(counts)")
        XCTAssertEqual(Array(counts.prefix(5)), Array(repeating: 5, count: 5), "killed during the transfer: the old catalog stays")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/cache/newsstand/catalogs")
        XCTAssertLessThanOrEqual(leftovers.count, 3, "at most the catalog, its info and one download in progress: \(leftovers)")
    }
}

/// A small seeded generator, so that a failing run can be repeated.
struct SplitMix: RandomNumberGenerator {
    let seed: UInt64
    private var state: UInt64

    init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
