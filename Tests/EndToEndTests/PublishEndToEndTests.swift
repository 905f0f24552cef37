import Foundation
import TestSupport
import XCTest

/// `publish` on a folder of real files, served by nginx, read back by newsstand in every format.
final class PublishEndToEndTests: XCTestCase {
    var folder: TemporaryDirectory!
    var runner: CommandRunner!

    override func setUp() {
        folder = TemporaryDirectory()
        runner = CommandRunner(folder: folder)
    }

    override func tearDown() {
        folder = nil
        runner = nil
    }

    /// A PDF with a title in its Info dictionary, one whose name says its date and title, an
    /// EPUB 3, a CBZ with ComicInfo.xml and a picture beside it, and a PDF with a hostile name:
    /// every format lists the same five issues, with their titles, dates and covers, and a
    /// download gets the file's bytes; a second run changes no byte and no file's time.
    func testAFolderPublishedInEveryFormatReadsBackTheSame() throws {
        let nginx = try NginxServer()
        defer { nginx.server.stop() }
        let root = nginx.root + "/zine"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let covers = CommandRunner.resources + "/demo/covers/"
        let titled = Fixtures.pagePDF(red: 1, green: 0, blue: 0, title: "Club Zine No. 4", created: "D:20260401090000Z")
        let named = Fixtures.pagePDF(red: 0, green: 0, blue: 1)
        let hostile = Fixtures.pagePDF(red: 0, green: 1, blue: 0)
        try titled.write(to: URL(fileURLWithPath: root + "/issue4.pdf"))
        try named.write(to: URL(fileURLWithPath: root + "/2026-03 Spring Issue.pdf"))
        try hostile.write(to: URL(fileURLWithPath: root + "/Zine #3 & 50% off?.pdf"))
        let container = #"<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>"#
        let opf = #"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/" version="3.0"><metadata><dc:title>The Long Read</dc:title><dc:date>2026-02-14</dc:date><dc:description>Essays.</dc:description></metadata><manifest><item id="c" href="cover.png" media-type="image/png" properties="cover-image"/></manifest></package>"#
        try Fixtures.zip([("mimetype", Data("application/epub+zip".utf8)), ("META-INF/container.xml", Data(container.utf8)),
                          ("content.opf", Data(opf.utf8)), ("cover.png", try Data(contentsOf: URL(fileURLWithPath: covers + "tt-2026-05.png")))],
                         to: root + "/longread.epub")
        // EPUB 2: its cover named by <meta name="cover">, its date and creator in the OPF's 2.0 shape.
        let opf2 = #"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf" version="2.0"><metadata><dc:title>Old Stories</dc:title><dc:creator opf:role="aut">A. Writer</dc:creator><dc:date opf:event="publication">2025-12-01</dc:date><meta name="cover" content="cover-img"/></metadata><manifest><item id="cover-img" href="images/front.png" media-type="image/png"/></manifest></package>"#
        try Fixtures.zip([("mimetype", Data("application/epub+zip".utf8)), ("META-INF/container.xml", Data(container.utf8)),
                          ("content.opf", Data(opf2.utf8)), ("images/front.png", try Data(contentsOf: URL(fileURLWithPath: covers + "tt-2026-02.png")))],
                         to: root + "/old-stories.epub")
        let comic = #"<?xml version="1.0"?><ComicInfo><Series>Red Planet</Series><Number>7</Number><Year>2026</Year><Month>1</Month><Summary>Rovers.</Summary></ComicInfo>"#
        try Fixtures.zip([("ComicInfo.xml", Data(comic.utf8)), ("01.png", try Data(contentsOf: URL(fileURLWithPath: covers + "tt-2026-01.png")))],
                         to: root + "/planet-7.cbz")
        try FileManager.default.copyItem(atPath: covers + "tt-2026-03.png", toPath: root + "/planet-7.png")
        try "title = \"Club Zine\"\nlanguage = \"en\"\n[issues.\"issue4.pdf\"]\nsummary = \"The April issue.\"\n"
            .write(toFile: root + "/newsstand-publish.toml", atomically: true, encoding: .utf8)

        let base = nginx.url("/zine/").absoluteString
        let first = try runner.run("publish", root, "--base-url", base)
        XCTAssertEqual(first.status, 0, first.output + first.error)
        XCTAssertTrue(first.output.contains("Published 6 issues"), first.output)
        XCTAssertTrue(first.output.contains("read 6 files") && first.output.contains("made 5 covers"), "the CBZ has its picture beside it: \(first.output)")

        // Other people's readers: feedparser reads the RSS and OPDS 1.2 feeds without a bozo
        // flag; the OPDS 2.0 feed validates against the OPDS community's JSON Schemas.
        let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/Fixtures/Schemas"
        let readers = try CommandRunner.runProgram(["/usr/bin/python3", schemas + "/validate-publish.py", root, schemas])
        XCTAssertEqual(readers.status, 0, readers.output + readers.error)
        for line in ["feed.rss: rss20, 6 entries, 6 typed and sized downloads", "opds-root.xml: atom10,",
                     "opds.xml: atom10, 6 entries, 6 typed and sized downloads", "opds.json: valid OPDS 2.0, 6 publications"] {
            XCTAssertTrue(readers.output.contains(line), "\(line) in \(readers.output)")
        }

        let expected: Set<String> = ["Club Zine No. 4", "Spring Issue", "Zine #3 & 50% off?", "The Long Read", "Old Stories", "Red Planet #7"]
        // Subscribed to each format: the same issues, titles, dates and summaries; every cover
        // served; the file with the hostile name downloaded as its own bytes.
        for (index, output) in ["catalog.plist", "opds.xml", "opds.json", "feed.rss", "feed.json"].enumerated() {
            let name = "zine\(index)"
            let subscribed = try runner.run("subscribe", base + output, "--name", name)
            XCTAssertEqual(subscribed.status, 0, "\(output): \(subscribed.output) \(subscribed.error)")
            func issues() throws -> [[String: Any]] {
                let list = try runner.run("list", "--json", "--subscription", name, "--offline")
                XCTAssertEqual(list.status, 0, "\(output): \(list.error)")
                return try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])?["issues"] as? [[String: Any]], output)
            }
            let listed = try issues()
            XCTAssertEqual(Set(listed.compactMap { $0["title"] as? String }), expected, output)
            let spring = try XCTUnwrap(listed.first { $0["title"] as? String == "Spring Issue" }, output)
            XCTAssertEqual((spring["releaseDate"] as? String)?.prefix(10), "2026-03-01", "\(output): the date from the name")
            let april = try XCTUnwrap(listed.first { $0["title"] as? String == "Club Zine No. 4" }, output)
            XCTAssertEqual((april["releaseDate"] as? String)?.prefix(10), "2026-04-01", "\(output): the date from the Info dictionary")
            XCTAssertEqual(april["summary"] as? String, "The April issue.", "\(output): the settings' summary")
            XCTAssertEqual(listed.first { $0["title"] as? String == "The Long Read" }?["mediaType"] as? String, "application/epub+zip", output)
            let hostileID = try XCTUnwrap(listed.first { $0["title"] as? String == "Zine #3 & 50% off?" }?["id"] as? String, output)
            let download = try runner.run("download", name + "/" + hostileID)
            XCTAssertEqual(download.status, 0, "\(output): \(download.output) \(download.error)")
            let path = try XCTUnwrap(try issues().first { $0["id"] as? String == hostileID }?["path"] as? String, output)
            XCTAssertEqual(FileManager.default.contents(atPath: path), hostile, "\(output): the file's own bytes")
            let fetched = try runner.run("covers", "--subscription", name)
            XCTAssertTrue(fetched.output.contains("6 of 6 covers on disk."), "\(output): \(fetched.output) \(fetched.error)")
            let old = try XCTUnwrap(listed.first { $0["title"] as? String == "Old Stories" }, output)
            XCTAssertEqual((old["releaseDate"] as? String)?.prefix(10), "2025-12-01", "\(output): the EPUB 2's date")
        }

        // Nothing changed: no byte, no time.
        let outputs = ["catalog.plist", "opds-root.xml", "opds.xml", "opds.json", "feed.rss", "feed.json"]
        func snapshot() throws -> [String: (Data, Date)] {
            try Dictionary(uniqueKeysWithValues: outputs.map { name in
                let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + name)
                return (name, (try Data(contentsOf: URL(fileURLWithPath: root + "/" + name)), attributes[.modificationDate] as? Date ?? .distantPast))
            })
        }
        let before = try snapshot()
        let second = try runner.run("publish", root, "--base-url", base)
        XCTAssertTrue(second.output.contains("read 0 files, every catalog unchanged."), second.output)
        let after = try snapshot()
        for name in outputs {
            XCTAssertEqual(after[name]?.0, before[name]?.0, "\(name)'s bytes")
            XCTAssertEqual(after[name]?.1, before[name]?.1, "\(name)'s time")
        }

        // One new issue: only it is read, its ID is new, the others keep theirs — even with a
        // damaged row in the manifest (a row lacking fields is passed over, not the whole manifest).
        let manifestPath = root + "/.newsstand-publish.json"
        var manifestText = try String(contentsOfFile: manifestPath, encoding: .utf8)
        manifestText.insert(contentsOf: #"{"file":"gone.pdf","id":"x"},"#, at: manifestText.index(after: manifestText.startIndex))
        try manifestText.write(toFile: manifestPath, atomically: true, encoding: .utf8)
        try Fixtures.pagePDF(red: 1, green: 1, blue: 0).write(to: URL(fileURLWithPath: root + "/2026-05 May.pdf"))
        let third = try runner.run("publish", root, "--base-url", base)
        XCTAssertTrue(third.output.contains("Published 7 issues") && third.output.contains("read 1 file,"), third.output)
        let plist = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: root + "/catalog.plist")), format: nil) as? [String: Any])
        let ids = (plist["Issues"] as? [[String: Any]] ?? []).compactMap { $0["ID"] as? String }
        let firstIDs = ((try PropertyListSerialization.propertyList(from: before["catalog.plist"]!.0, format: nil) as? [String: Any])?["Issues"] as? [[String: Any]] ?? [])
            .compactMap { $0["ID"] as? String }
        XCTAssertEqual(Set(ids).subtracting(firstIDs).count, 1)
        XCTAssertTrue(Set(firstIDs).isSubset(of: Set(ids)), "IDs never change once given")
    }
}
