@testable import NewsstandKit
import Foundation
import XCTest

/// Every document of `Tests/Fixtures/Corpus` — written by calibre's content server, calibre-web,
/// feedgen and plistlib — read by newsstand and compared, field by field, with what feedparser,
/// ElementTree or plistlib read in it (`DOCUMENT.expected.json`, made by `make-corpus.py`).
final class CorpusTests: XCTestCase {
    private struct Expected: Decodable {
        struct Entry: Decodable {
            var id: String
            var title: String?
            var date: String?
            var download: String
        }
        var url: String
        var title: String?
        var entries: [Entry]
    }

    private static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Corpus")

    func testEveryDocumentReadsAsAMatureParserReadsIt() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".md") && !$0.hasSuffix(".py") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 9)
        var compared = 0
        for name in names {
            let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
            let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: Self.folder.appendingPathComponent(name + ".expected.json")))
            let url = try XCTUnwrap(URL(string: expected.url))
            let catalog = try CatalogReader().catalog(data, url: url)
            XCTAssertEqual(catalog.title, expected.title, "\(name): the title")
            XCTAssertEqual(catalog.entries.map(\.id), expected.entries.map(\.id), "\(name): which entries, in which order")
            for (ours, theirs) in zip(catalog.entries, expected.entries) {
                XCTAssertEqual(ours.title, theirs.title, "\(name) \(theirs.id): title")
                XCTAssertEqual(ours.downloadAddress, theirs.download, "\(name) \(theirs.id): download")
                XCTAssertEqual(ours.releaseDate.map(Formatting.timestamp), theirs.date, "\(name) \(theirs.id): date")
                compared += 1
            }
        }
        XCTAssertGreaterThanOrEqual(compared, 20, "entries compared")
    }
}
