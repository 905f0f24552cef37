import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

final class PropertyListCatalogTests: XCTestCase {
    let base = URL(string: "https://news.example/catalogs/catalog.plist")!

    func testDictionaryRootWithTitleAndRelativeURLs() throws {
        let data = Fixtures.catalog([Fixtures.entry(id: "a-1", download: "issues/a.pdf", cover: "/covers/a.png", size: 10,
                                                    sha256: String(repeating: "AB", count: 32))])
        let catalog = try CatalogReader().catalog(data, url: base)
        XCTAssertEqual(catalog.title, "Test Monthly")
        XCTAssertEqual(catalog.entries.count, 1)
        let entry = catalog.entries[0]
        XCTAssertEqual(entry.downloadURL.absoluteString, "https://news.example/catalogs/issues/a.pdf")
        XCTAssertEqual(entry.coverURL?.absoluteString, "https://news.example/covers/a.png")
        XCTAssertEqual(entry.size, 10)
        XCTAssertEqual(entry.sha256, String(repeating: "ab", count: 32))
        XCTAssertTrue(entry.isFree)
        XCTAssertEqual(entry.releaseDate, Date(timeIntervalSince1970: 1_767_225_600))
    }

    func testArrayRootAndBinaryFormat() throws {
        let data = Fixtures.catalog([Fixtures.entry(id: "b", download: "https://cdn.example/b.pdf", free: false)], title: nil, format: .binary)
        let catalog = try CatalogReader().catalog(data, url: base)
        XCTAssertNil(catalog.title)
        XCTAssertEqual(catalog.entries.map(\.id), ["b"])
        XCTAssertFalse(catalog.entries[0].isFree)
    }

    func testBadEntriesAreSkippedWithWarningsThatNameThem() throws {
        let entries: [Any] = [
            Fixtures.entry(id: "good", download: "good.pdf"),
            ["Title": "No ID", "Download URL": "x.pdf"],
            Fixtures.entry(id: "../escape", download: "x.pdf"),
            Fixtures.entry(id: ".hidden", download: "x.pdf"),
            Fixtures.entry(id: "-rf", download: "x.pdf"),
            Fixtures.entry(id: "sl/ash", download: "x.pdf"),
            Fixtures.entry(id: "good", download: "dup.pdf"),
            Fixtures.entry(id: "ftp", download: "ftp://files.example/x.pdf"),
            Fixtures.entry(id: "local", download: "file:///etc/passwd"),
            ["ID": "mistyped", "Title": "T", "Download URL": "x.pdf", "Free": "yes"],
            ["ID": "notitle", "Download URL": "x.pdf"],
            ["ID": "size", "Title": "T", "Download URL": "x.pdf", "Size": "big"],
            ["ID": "digest", "Title": "T", "Download URL": "x.pdf", "SHA256": "xyz"],
            "not a dictionary",
            Fixtures.entry(id: "good-2", download: "good2.pdf"),
        ]
        let catalog = try CatalogReader().catalog(Fixtures.catalog(entries), url: base)
        // IDs are data: unsafe ones load, each with a safe local key of its own.
        XCTAssertEqual(catalog.entries.map(\.id), ["good", "../escape", ".hidden", "-rf", "sl/ash", "good-2"])
        let keys = catalog.entries.map(\.localKey)
        XCTAssertTrue(keys.allSatisfy(LocalKey.isValid), "\(keys)")
        XCTAssertEqual(Set(keys).count, keys.count, "keys are distinct")
        XCTAssertEqual(catalog.warnings.count, 9, catalog.warnings.map(\.description).joined(separator: "\n"))
        let text = catalog.warnings.map(\.description).joined(separator: "\n")
        for name in ["ftp", "local", "mistyped", "notitle", "size", "digest"] {
            XCTAssertTrue(text.contains("\"\(name)\""), "no warning names \(name)")
        }
        XCTAssertTrue(text.contains("used twice"))
        // Warnings are values: kind, place and ID, not text to search.
        XCTAssertEqual(catalog.warnings[0], CatalogWarning(.missing(field: "ID", expected: "a string of at most 1,024 bytes"), index: 1, id: nil))
        XCTAssertEqual(catalog.warnings[1], CatalogWarning(.duplicateID, index: 6, id: "good"))
        XCTAssertEqual(catalog.warnings[2], CatalogWarning(.unsupportedURL(field: "Download URL"), index: 7, id: "ftp"))
        XCTAssertEqual(catalog.warnings[4], CatalogWarning(.invalid(field: "Free", expected: "a boolean"), index: 9, id: "mistyped"))
        XCTAssertEqual(catalog.warnings[7], CatalogWarning(.invalid(field: "SHA256", expected: "64 hex digits"), index: 12, id: "digest"))
        XCTAssertEqual(catalog.warnings[8].kind, .notAnEntry)
    }

    func testAPropertyListIsCheckedByTheRulesOfEveryFeed() throws {
        // Once, property lists had rules of their own: no cap on titles or inline covers.
        let big = "data:image/png;base64," + Data(count: (1 << 20) + 1).base64EncodedString()
        let small = "data:image/png;base64,iVBORw0KGgo="
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><id>a</id><title>\(String(repeating: "t", count: 1_500))</title>
            <link rel="http://opds-spec.org/image" href="\(big)"/>
            <link rel="http://opds-spec.org/acquisition" href="a.pdf" type="application/pdf"/></entry></feed>
            """
        let plist = Fixtures.catalog([
            ["ID": "a", "Title": String(repeating: "t", count: 1_500), "Download URL": "a.pdf", "Cover URL": big],
            ["ID": "b", "Title": "  Spaced\n\tout  ", "Download URL": "b.pdf", "Cover URL": small],
        ])
        let fromFeed = try CatalogReader().catalog(Data(atom.utf8), url: base).entries[0]
        let fromList = try CatalogReader().catalog(plist, url: base).entries
        for entry in [fromFeed, fromList[0]] {
            XCTAssertEqual(entry.title.count, 1_000, "titles capped alike")
            XCTAssertNil(entry.coverAddress, "an inline cover over 1 MiB is left out alike")
        }
        XCTAssertEqual(fromList[1].title, "Spaced out", "white space collapsed")
        XCTAssertEqual(fromList[1].coverAddress, small)
    }

    func testFileURLsOnlyForALocalCatalog() throws {
        let data = Fixtures.catalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        let local = try CatalogReader().catalog(data, url: URL(fileURLWithPath: "/srv/demo/catalog.plist"))
        XCTAssertEqual(local.entries.first?.downloadURL.absoluteString, "file:///srv/demo/issues/a.pdf")
    }

    func testWrongRootTypeIsRejected() {
        let data = try! PropertyListSerialization.data(fromPropertyList: "just a string", format: .xml, options: 0)
        XCTAssertThrowsError(try CatalogReader().catalog(data, url: base)) { error in
            XCTAssertEqual((error as? NewsstandError)?.code, .invalidCatalog)
        }
        let noIssues = try! PropertyListSerialization.data(fromPropertyList: ["Title": "x"], format: .xml, options: 0)
        XCTAssertThrowsError(try CatalogReader().catalog(noIssues, url: base))
    }

    func testTruncatedCatalogIsRejected() {
        let data = Fixtures.catalog([Fixtures.entry(id: "a", download: "a.pdf")])
        XCTAssertThrowsError(try CatalogReader().catalog(data.prefix(data.count / 2), url: base)) { error in
            XCTAssertEqual((error as? NewsstandError)?.code, .invalidCatalog)
        }
    }

    func testEntityDeclarationsAndOversizedFilesAreRefused() {
        let xml = """
            <?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>
            <plist version="1.0"><array><dict><key>ID</key><string>&b;</string></dict></array></plist>
            """
        XCTAssertThrowsError(try CatalogReader().catalog(Data(xml.utf8), url: base)) { error in
            XCTAssertTrue((error as? NewsstandError)?.message.contains("entities") ?? false)
        }
        let small = CatalogReader(limits: CatalogLimits(maximumSize: 100))
        XCTAssertThrowsError(try small.catalog(Fixtures.catalog([Fixtures.entry(id: "a", download: "a.pdf")]), url: base))
    }

    func testDeepNestingIsRefusedWithoutACrash() {
        // One bound for every format: 64 levels.
        for depth in [65, 100_000] {
            let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: depth)
                + String(repeating: "</array>", count: depth) + "</plist>"
            XCTAssertThrowsError(try CatalogReader().catalog(Data(xml.utf8), url: base), "depth \(depth)") { error in
                XCTAssertEqual((error as? NewsstandError)?.code, .invalidCatalog)
            }
        }
    }

    func testInputsFoundByTheFuzzerAreRefusedWithoutACrash() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let crash = try Data(contentsOf: folder.appendingPathComponent("fuzz-crash-set.bplist"))
        XCTAssertThrowsError(try CatalogReader().catalog(crash, url: base)) { error in
            XCTAssertTrue((error as? NewsstandError)?.message.contains("not a valid binary property list") ?? false, "\(error)")
        }
        // Old-style (OpenStep) plists are not catalogs, and their parser writes to stderr.
        XCTAssertThrowsError(try CatalogReader().catalog(Data("{ Issues = (); }".utf8), url: base))
        XCTAssertThrowsError(try PropertyListFormat().read(Data("{ Issues = (); }".utf8), url: base, limits: CatalogLimits())) { error in
            XCTAssertTrue((error as? NewsstandError)?.message.contains("neither XML nor binary") ?? false, "\(error)")
        }
        var truncated = Fixtures.catalog([Fixtures.entry(id: "a", download: "a.pdf")], format: .binary)
        truncated.removeLast(10)
        XCTAssertThrowsError(try CatalogReader().catalog(truncated, url: base))
    }

    func testALargeCatalogCheckedInPiecesKeepsOrderWarningsAndDuplicates() throws {
        // Over 8,192 entries are checked on every core (a binary one is also read there): the
        // result must not depend on it.
        var entries: [Any] = (0..<10_000).map { Fixtures.entry(id: "i\($0)", download: "issues/i\($0).pdf") }
        entries[3_000] = ["ID": "no-title", "Download URL": "a.pdf"]
        entries[7_000] = Fixtures.entry(id: "i5", download: "again.pdf")
        entries[9_999] = "not a dictionary"
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            for title in ["Big", nil] {
                let catalog = try CatalogReader().catalog(Fixtures.catalog(entries, title: title, format: format), url: base)
                XCTAssertEqual(catalog.title, title)
                XCTAssertEqual(catalog.entries.count, 9_997)
                XCTAssertEqual(catalog.entries.first?.id, "i0")
                XCTAssertEqual(catalog.entries.last?.id, "i9998")
                XCTAssertEqual(catalog.entries.map(\.id), (0..<9_999).filter { $0 != 3_000 && $0 != 7_000 }.map { "i\($0)" })
                XCTAssertEqual(catalog.entries.first { $0.id == "i5" }?.downloadURL.lastPathComponent, "i5.pdf", "the first of a duplicate wins")
                XCTAssertEqual(catalog.warnings.count, 3)
                XCTAssertTrue(catalog.warnings[0].description.hasPrefix("Skipped issue 3001"), catalog.warnings[0].description)
                XCTAssertTrue(catalog.warnings[1].description.hasPrefix("Skipped issue 7001") && catalog.warnings[1].description.contains("used twice"), catalog.warnings[1].description)
                XCTAssertTrue(catalog.warnings[2].description.hasPrefix("Skipped issue 10000"), catalog.warnings[2].description)
            }
        }
    }

    func testABadObjectInAnyPieceOfABinaryCatalogRefusesTheCatalog() {
        // 10,000 items that all name one dictionary {"ID": "a"}, but for one whose ID is a set.
        for bad in [0, 5_000, 9_999] {
            let objects: [[UInt8]] = [
                [0xD1, 1, 2],                       // 0: {"ID": "a"}
                [0x52] + Array("ID".utf8),          // 1
                [0x51] + Array("a".utf8),           // 2
                [0xC0],                             // 3: an empty set
                [0xD1, 1, 3],                       // 4: {"ID": set}
                [0xAF, 0x11, 0x27, 0x10] + (0..<10_000).map { $0 == bad ? 4 : 0 },  // 5: the root array
            ]
            XCTAssertThrowsError(try CatalogReader().catalog(Fixtures.binaryPropertyList(objects), url: base), "item \(bad)") { error in
                XCTAssertEqual((error as? NewsstandError)?.code, .invalidCatalog)
                XCTAssertTrue((error as? NewsstandError)?.message.contains("contains a set") ?? false, "\(error)")
            }
        }
    }

    func testSharedObjectsCannotExpandABinaryCatalogReadInPieces() {
        // 10,000 items whose title names the top of a tree of 16^10 leaves: the budget is shared
        // out between the pieces, so the whole stays bounded.
        var objects: [[UInt8]] = [[0x09]]
        for level in 1...10 { objects.append([0xAF, 0x10, 16] + [UInt8](repeating: UInt8(level - 1), count: 16)) }
        objects.append([0x55] + Array("Title".utf8))                              // 11
        objects.append([0xD1, 11, 10])                                            // 12: {"Title": tree}
        objects.append([0xAF, 0x11, 0x27, 0x10] + [UInt8](repeating: 12, count: 10_000))
        let started = Date()
        XCTAssertThrowsError(try CatalogReader().catalog(Fixtures.binaryPropertyList(objects), url: base)) { error in
            XCTAssertTrue((error as? NewsstandError)?.message.contains("expands to more than") ?? false, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "stopped by the budget, not by running out of leaves")
    }

    func testItemsThatAreNotDictionariesAreSkippedUnreadInABinaryCatalog() throws {
        // An item that is not a dictionary is skipped with a warning, whatever it holds.
        let objects: [[UInt8]] = [
            [0xD2, 1, 3, 2, 4],                 // 0: {"ID": "a", "Download URL": "a.pdf"}
            [0x52] + Array("ID".utf8),          // 1
            [0x51] + Array("a".utf8),           // 2
            [0x5C] + Array("Download URL".utf8),  // 3
            [0x55] + Array("a.pdf".utf8),       // 4
            [0xC0],                             // 5: a set
            [0xA2, 5, 0],                       // 6: the root array
        ]
        let catalog = try CatalogReader().catalog(Fixtures.binaryPropertyList(objects), url: base)
        XCTAssertEqual(catalog.entries.map(\.id), [])
        XCTAssertEqual(catalog.warnings.count, 2, "\(catalog.warnings)")
        XCTAssertTrue(catalog.warnings[0].description.contains("not a dictionary"), catalog.warnings[0].description)
        XCTAssertTrue(catalog.warnings[1].description.contains("`Title` is missing"), catalog.warnings[1].description)
    }

    func testBinaryKeysAreMatchedAsBytesInEitherEncodingAndTheLastOfARepeatedKeyWins() throws {
        let objects: [[UInt8]] = [
            [0xD5, 1, 3, 5, 7, 9, 2, 4, 6, 8, 10],                       // 0: the issue
            [0x62, 0, UInt8(ascii: "I"), 0, UInt8(ascii: "D")],          // 1: "ID" in UTF-16
            [0x51] + Array("a".utf8),                                    // 2
            [0x55] + Array("Title".utf8),                                // 3
            [0x52] + Array("T1".utf8),                                   // 4
            [0x5C] + Array("Download URL".utf8),                         // 5
            [0x55] + Array("a.pdf".utf8),                                // 6
            [0x55] + Array("Title".utf8),                                // 7: repeated, wins
            [0x52] + Array("T2".utf8),                                   // 8
            [0x55] + Array("Other".utf8),                                // 9: unknown, its value never read
            [0xC0],                                                      // 10: a set
            [0xA1, 0],                                                   // 11: the root array
        ]
        let catalog = try CatalogReader().catalog(Fixtures.binaryPropertyList(objects), url: base)
        XCTAssertEqual(catalog.entries.map(\.id), ["a"])
        XCTAssertEqual(catalog.entries.first?.title, "T2")
        XCTAssertEqual(catalog.entries.first?.downloadAddress, "https://news.example/catalogs/a.pdf")
        XCTAssertEqual(catalog.warnings, [])
    }

    func testXMLKeysAreMatchedWhereTheyLieOrDecodedAndTheLastOfARepeatedKeyWins() throws {
        // The root's first `Issues` and `Title` are overruled by later ones; an issue's key may
        // be written with a reference; an unknown key's value is read (it must be well formed)
        // and dropped; an item that is not a dictionary is a warning.
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>Title</key><string>First</string>
              <key>Issues</key><string>not yet</string>
              <key>Other</key><array><dict><key>deep</key><true/></dict></array>
              <key>Issues</key><array>
                <dict><key>&#73;D</key><string>a</string><key>Title</key><string>T1</string>
                      <key>Download URL</key><string>a.pdf</string><key>Title</key><string>T2</string>
                      <key>Unknown</key><dict><key>x</key><integer>1</integer></dict><key></key><string>empty key</string></dict>
                <string>not an issue</string>
              </array>
              <key>Title</key><string>Last</string>
            </dict></plist>
            """
        let catalog = try CatalogReader().catalog(Data(xml.utf8), url: base)
        XCTAssertEqual(catalog.title, "Last")
        XCTAssertEqual(catalog.entries.map(\.id), ["a"])
        XCTAssertEqual(catalog.entries.first?.title, "T2")
        XCTAssertEqual(catalog.entries.first?.downloadAddress, "https://news.example/catalogs/a.pdf")
        XCTAssertEqual(catalog.warnings.count, 1, "\(catalog.warnings)")
        XCTAssertTrue(catalog.warnings[0].description.contains("not a dictionary"), catalog.warnings[0].description)

        let issuesNotAnArray = """
            <plist version="1.0"><dict><key>Issues</key><array/><key>Issues</key><dict/></dict></plist>
            """
        XCTAssertThrowsError(try CatalogReader().catalog(Data(issuesNotAnArray.utf8), url: base)) { error in
            XCTAssertTrue((error as? NewsstandError)?.message.contains("no `Issues` array") == true, "\(error)")
        }
        let malformedAfterTheIssues = """
            <plist version="1.0"><dict><key>Issues</key><array/><key>Title</key><string>x</dict></plist>
            """
        XCTAssertThrowsError(try CatalogReader().catalog(Data(malformedAfterTheIssues.utf8), url: base)) { error in
            XCTAssertTrue((error as? NewsstandError)?.message.contains("not a valid property list") == true, "\(error)")
        }
    }

    func testLocalKeysAreTheIDWhenSafeElseAReadableStemAndAStableHash() {
        XCTAssertEqual(LocalKey.make(for: "2026-01"), "2026-01")
        let uuid = LocalKey.make(for: "urn:uuid:6f1c1e8a-2a3b-4c5d-9e8f-0123456789ab")
        XCTAssertTrue(uuid.hasPrefix("6f1c1e8a-2a3b-4c5d-9e8f-0123456789ab-"), uuid)
        let http = LocalKey.make(for: "http://example.com/issues/7")
        XCTAssertTrue(http.hasPrefix("7-"), http)
        XCTAssertEqual(LocalKey.make(for: "http://example.com/issues/7"), http, "stable")
        XCTAssertNotEqual(LocalKey.make(for: "http://example.org/issues/7"), http, "another ID, another key")
        for id in ["../../etc/passwd", "..", "/", "a b", "\u{1B}[2J", "日本語", String(repeating: "x/", count: 600), ".hidden", "-rf"] {
            let key = LocalKey.make(for: id)
            XCTAssertTrue(LocalKey.isValid(key), "\(id) -> \(key)")
        }
    }

    func testIssueIDRules() {
        for good in ["a", "2026-01", "tt_2026.03", String(repeating: "x", count: 100)] {
            XCTAssertTrue(LocalKey.isValid(good), good)
        }
        for bad in ["", ".", "..", "../x", "a/b", ".a", "-a", "a b", "a\u{1B}", "é", String(repeating: "x", count: 101), "a\\b"] {
            XCTAssertFalse(LocalKey.isValid(bad), bad)
        }
    }
}
