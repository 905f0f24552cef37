import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// The configuration file: read with its mistakes named, edited without losing a comment.
final class ConfigTests: XCTestCase {
    static let example = """
        # My magazines.
        max_storage = "20 GiB"   # the whole library
        jobs = 4

        # The weekly: its newest two, kept small.
        [subscriptions.weekly]
        url = "https://weekly.example/catalog.plist"
        title = "The Weekly"
        auto_download = "2"
        keep = 10
        keep_size = "2 GiB"
        user = "ann"
        password_command = "pass show newsstand/weekly"
        headers = { "User-Agent" = "Weekly/3.1", "X-Api-Key" = "k-123" }
        query = { app_version = "3.1" }
        ca_file = "/etc/ssl/weekly.pem"
        jobs = 2
        limit_rate = "500 KiB"

        [subscriptions.club]
        url = "http://club.example/issues.plist"   # the club newsletter
        auto_download = "all-free"
        token_env = "CLUB_TOKEN"

        """

    func testTheShelfsTablesAreHandedOverAsWritten() throws {
        let text = "[keys]\ntoggle-read = \"u\"\nrefresh-all = [\"F\", \"R\"]\n\n[colors]\nheader = \"black on #ffd700 bold\"\n"
        let config = try NewsstandConfig.parse(text, path: "c.toml")
        XCTAssertEqual(config.shelfKeys, ["toggle-read": ["u"], "refresh-all": ["F", "R"]])
        XCTAssertEqual(config.shelfColors, ["header": "black on #ffd700 bold"])
        XCTAssertEqual(config.line(ofKey: "header", inTable: "colors"), 6)
        // What TOML itself cannot hold is still the core's to refuse.
        XCTAssertThrowsError(try NewsstandConfig.parse("[colors]\nheader = 3\n", path: "c.toml")) { error in
            XCTAssertEqual((error as? NewsstandError)?.message, "c.toml:2: colors.header: expected text such as \"white on blue bold\".")
        }
    }

    func testTableHeadersAreToldFromKeysThatMentionOne() {
        XCTAssertEqual(ConfigText.header("[subscriptions.weekly]"), "subscriptions.weekly")
        XCTAssertEqual(ConfigText.header(" \t[ \"subscriptions\" . weekly ]  # the weekly"), "subscriptions.weekly")
        XCTAssertNil(ConfigText.header("title = \"[subscriptions.weekly]\""))
        XCTAssertNil(ConfigText.header("  # [subscriptions.weekly]"))
        XCTAssertNil(ConfigText.header("[[subscriptions]]"))
        XCTAssertNil(ConfigText.header(""))
        let text = ConfigText("jobs = 4\n[subscriptions.b]\nurl = \"[subscriptions.c]\"\n  [subscriptions.a.headers]\n[subscriptions.a]\n")
        XCTAssertEqual(text.subscriptionOrder, ["b": 1, "a": 3])
    }

    func testAFullExampleReads() throws {
        let config = try NewsstandConfig.parse(Self.example, path: "config.toml")
        XCTAssertEqual(config.maxStorage, 20 << 30)
        XCTAssertEqual(config.jobs, 4)
        XCTAssertEqual(config.subscriptions.map(\.name), ["weekly", "club"], "the file's order")
        let weekly = try XCTUnwrap(config.subscription(named: "weekly"))
        XCTAssertEqual(weekly.url, URL(string: "https://weekly.example/catalog.plist"))
        XCTAssertEqual(weekly.title, "The Weekly")
        XCTAssertEqual(weekly.autoDownload, .latest(2))
        XCTAssertEqual(weekly.keepIssues, 10)
        XCTAssertEqual(weekly.keepBytes, 2 << 30)
        XCTAssertEqual(weekly.credentials, .basic(user: "ann", password: .command("pass show newsstand/weekly")))
        XCTAssertEqual(Set(weekly.headers.map(\.line)), ["User-Agent: Weekly/3.1", "X-Api-Key: k-123"])
        XCTAssertEqual(weekly.query.map(\.name), ["app_version"])
        XCTAssertEqual(weekly.certificateAuthorities, "/etc/ssl/weekly.pem")
        XCTAssertEqual(weekly.jobs, 2)
        XCTAssertEqual(weekly.limitRate, 500 << 10)
        let club = try XCTUnwrap(config.subscription(named: "club"))
        XCTAssertEqual(club.autoDownload, .allFree)
        XCTAssertEqual(club.credentials, .bearer(.environment("CLUB_TOKEN")))
    }

    func testEachMistakeIsNamedWithTheFileTheLineAndTheKey() {
        let cases: [(String, String)] = [
            ("[subscriptions.a]\nurl = \"http://a.example/c\"\nauto_download = \"sometimes\"\n", "config.toml:3: subscriptions.a.auto_download"),
            ("[subscriptions.a]\nurl = \"http://a.example/c\"\n\n  keeep = 3\n", "config.toml:4: subscriptions.a.keeep: unknown setting"),
            ("[subscriptions.a]\nurl = \"ftp://a.example/c\"\n", "config.toml:2: subscriptions.a.url"),
            ("[subscriptions.a]\ntitle = \"no url\"\n", "config.toml:1: subscriptions.a.url"),
            ("max_storage = \"lots\"\n", "config.toml:1: max_storage"),
            ("colour = 1\n", "config.toml:1: colour: unknown setting"),
            ("[subscriptions.a]\nurl = \"http://a.example/c\"\nheaders = { \"X-Key\" = \"a\\r\\nX-Evil: 1\" }\n", "config.toml:3: subscriptions.a.headers"),
            ("[subscriptions.a]\nurl = \"http://a.example/c\"\nuser = \"ann\"\n", "config.toml:3: subscriptions.a.user: a user needs password_command"),
            ("[subscriptions.\"Bad Name\"]\nurl = \"http://a.example/c\"\n", "config.toml:1: subscriptions.Bad Name"),
            ("[subscriptions.a]\nurl = = \"x\"\n", "config.toml:2:"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try NewsstandConfig.parse(text, path: "config.toml"), text) { error in
                let error = error as? NewsstandError
                XCTAssertEqual(error?.code, .configuration)
                XCTAssertTrue(error?.message.hasPrefix(expected) ?? false, "\(text)\n→ \(error?.message ?? "")")
            }
        }
    }

    func testAddingAndRemovingKeepsEveryOtherLineAsItWas() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/newsstand/config.toml"
        try FileManager.default.createDirectory(atPath: folder.path + "/newsstand", withIntermediateDirectories: true)
        try Data(Self.example.utf8).write(to: URL(fileURLWithPath: path))
        let editor = ConfigEditor(path: path)
        var added = Subscription(name: "library", url: URL(string: "https://books.example/opds")!)
        added.autoDownload = .latest(1)
        added.keepBytes = 1 << 30
        added.headers = [try HeaderField(line: "Referer: https://books.example/")]
        try editor.add(added)
        let afterAdd = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(afterAdd.hasPrefix(Self.example), "the user's text is untouched")
        XCTAssertEqual(try NewsstandConfig.load(path: path)?.subscription(named: "library"), added, "reads back as written")
        XCTAssertThrowsError(try editor.add(added), "a name is used once")

        try editor.remove(name: "weekly")
        let afterRemove = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertFalse(afterRemove.contains("weekly"))
        XCTAssertFalse(afterRemove.contains("# The weekly"), "its own comment went with it")
        XCTAssertTrue(afterRemove.contains("# My magazines.\nmax_storage = \"20 GiB\"   # the whole library"))
        XCTAssertTrue(afterRemove.contains("url = \"http://club.example/issues.plist\"   # the club newsletter"))
        XCTAssertEqual(try NewsstandConfig.load(path: path)?.subscriptions.map(\.name), ["club", "library"])
        XCTAssertThrowsError(try editor.remove(name: "weekly")) { error in
            XCTAssertEqual((error as? NewsstandError)?.code, .unknownSubscription)
        }
    }

    func testAFileOthersCanReadThatHoldsHeadersIsWarnedAbout() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/config.toml"
        try Data(Self.example.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        XCTAssertEqual(try NewsstandConfig.load(path: path)?.warnings.count, 1)
        XCTAssertTrue(try NewsstandConfig.load(path: path)?.warnings.first?.contains("chmod 600") ?? false)
        chmod(path, 0o600)
        XCTAssertEqual(try NewsstandConfig.load(path: path)?.warnings, [])
        // A new file written by the editor is the user's alone.
        let fresh = folder.path + "/new/config.toml"
        try ConfigEditor(path: fresh).add(Subscription(name: "a", url: URL(string: "http://a.example/c")!))
        var info = stat()
        XCTAssertEqual(stat(fresh, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }

    func testNamesAndSizes() {
        XCTAssertEqual(Subscription.suggestedName(for: URL(string: "https://weekly.example.com/feeds/catalog.plist")!), "feeds")
        XCTAssertEqual(Subscription.suggestedName(for: URL(string: "https://www.example.com/opds")!), "example")
        XCTAssertEqual(Subscription.suggestedName(for: URL(string: "https://x.example/Terminal Times.plist")!), "terminal-times")
        XCTAssertTrue(Subscription.isValidName("club_2"))
        XCTAssertFalse(Subscription.isValidName("../x"))
        XCTAssertFalse(Subscription.isValidName("-x"))
        XCTAssertEqual(ByteSize.parse("2 GiB"), 2 << 30)
        XCTAssertEqual(ByteSize.parse("500k"), 500_000)
        XCTAssertNil(ByteSize.parse("many"))
    }

    func testCredentialsAreReplacedInTheirBlockAndNothingElseMoves() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/config.toml"
        try Self.example.write(toFile: path, atomically: true, encoding: .utf8)
        let editor = ConfigEditor(path: path)
        try editor.setCredentials(.basic(user: "ann", password: .environment("WEEKLY_PASSWORD"), pin: .digest), of: "weekly")
        var expected = Self.example.replacingOccurrences(of: """
            user = "ann"
            password_command = "pass show newsstand/weekly"

            """, with: "")
        expected = expected.replacingOccurrences(of: """
            url = "https://weekly.example/catalog.plist"

            """, with: """
            url = "https://weekly.example/catalog.plist"
            user = "ann"
            password_env = "WEEKLY_PASSWORD"
            auth = "digest"

            """)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), expected)
        let read = try XCTUnwrap(try NewsstandConfig.load(path: path)?.subscription(named: "weekly"))
        XCTAssertEqual(read.credentials, .basic(user: "ann", password: .environment("WEEKLY_PASSWORD"), pin: .digest))
        // Cleared, and the club block (a comment on its url line) is untouched throughout.
        try editor.setCredentials(nil, of: "weekly")
        let cleared = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertFalse(cleared.contains("WEEKLY_PASSWORD") || cleared.contains("auth ="), cleared)
        XCTAssertTrue(cleared.contains("url = \"http://club.example/issues.plist\"   # the club newsletter"))
        XCTAssertThrowsError(try editor.setCredentials(nil, of: "nobody"))
    }
}
