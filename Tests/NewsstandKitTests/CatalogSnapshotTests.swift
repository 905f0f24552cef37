import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// The cached form of a catalog: every field reads back as it was.
final class CatalogSnapshotTests: XCTestCase {
    func testEveryFieldAndAwkwardTextReadBack() throws {
        // Text as the validator leaves it (white space already collapsed): read back unchanged.
        let awkward = "A & B <i>x</i> ]]> \u{1B}[31m red \u{7} tab here é 夏 🙂 end"
        let entries = [
            CatalogEntry(CatalogEntry.Fields(
                id: "urn:uuid:1 & <2>", title: awkward, releaseDate: Date(timeIntervalSince1970: 1_794_556_800.75),
                coverAddress: "data:image/png;base64,iVBORw0KGgo=",
                acquisition: Acquisition(address: "http://127.0.0.1:8080/get/pdf/1?x=1&y=2", mediaType: .hpub, size: 41234,
                                         sha256: String(repeating: "ab", count: 32)),
                isFree: false, summary: awkward, price: "4.50 EUR", authors: "A. Writer, B. Artist")),
            CatalogEntry(CatalogEntry.Fields(id: "plain", title: "Plain", acquisition: Acquisition(address: "http://127.0.0.1/p.cbz", mediaType: .cbz))),
        ]
        let catalog = Catalog(title: "Feed & <Co>", entries: entries)
        let data = CatalogSnapshot.data(of: catalog)
        let back = try CatalogReader().catalog(data, url: URL(string: "http://127.0.0.1:8080/feed")!)
        XCTAssertEqual(back.title, "Feed & <Co>")
        XCTAssertEqual(back.warnings, [])
        XCTAssertEqual(back.entries.count, 2)
        let first = back.entries[0]
        XCTAssertEqual(first.id, "urn:uuid:1 & <2>")
        XCTAssertEqual(first.title, awkward)
        XCTAssertEqual(first.summary, awkward)
        XCTAssertEqual(first.releaseDate, Date(timeIntervalSince1970: 1_794_556_800.75), "to the fraction of a second")
        XCTAssertEqual(first.coverAddress, "data:image/png;base64,iVBORw0KGgo=")
        XCTAssertEqual(first.downloadAddress, "http://127.0.0.1:8080/get/pdf/1?x=1&y=2")
        XCTAssertEqual(first.mediaType, .hpub)
        XCTAssertEqual(first.size, 41234)
        XCTAssertEqual(first.sha256, String(repeating: "ab", count: 32))
        XCTAssertFalse(first.isFree)
        XCTAssertEqual(first.price, "4.50 EUR")
        XCTAssertEqual(first.authors, "A. Writer, B. Artist")
        XCTAssertEqual(back.entries[1].mediaType, .cbz, "the media type, not the extension's guess, is kept")
        XCTAssertNil(back.entries[1].releaseDate)
        XCTAssertEqual(first.localKey, LocalKey.make(for: "urn:uuid:1 & <2>"))
    }

    func testTheCacheKeepsEveryFormOfAnIssueAndReadsItByTheOneValidatorsRules() throws {
        let entry = CatalogEntry(CatalogEntry.Fields(
            id: "urn:x:1", title: "Tab\there\r\n and there", coverAddress: "ftp://covers.example/1.png",
            acquisition: Acquisition(address: "http://127.0.0.1/1.epub", mediaType: .epub, size: 10, sizeIsAdvisory: true),
            alternatives: [
                Acquisition(address: "http://127.0.0.1/1.pdf", mediaType: .pdf, size: 20, sha256: String(repeating: "cd", count: 32)),
                Acquisition(address: "http://shop.example/1", mediaType: .pdf, throughWebPage: true),
            ]))
        let data = CatalogSnapshot.data(of: Catalog(title: nil, entries: [entry]))
        let back = try XCTUnwrap(try CatalogReader().catalog(data, url: URL(string: "http://127.0.0.1/feed")!).entries.first)
        XCTAssertEqual(back.acquisitions, entry.acquisitions, "the alternatives are not lost in the cache")
        XCTAssertEqual(back.title, "Tab here and there", "white space collapsed as for every catalog")
        XCTAssertNil(back.coverAddress, "a cover that is no http(s) link is left out, the issue kept")
    }

    func testALargeSnapshotIsAValidBinaryPropertyList() throws {
        // Over 255 and 65,535 objects: references and offsets in two and three or four bytes.
        let entries = (0..<7000).map { number in
            CatalogEntry(CatalogEntry.Fields(
                id: "urn:uuid:\(number)", title: "Issue \(number) — été", releaseDate: Date(timeIntervalSince1970: Double(number) * 86_400),
                acquisition: Acquisition(address: "http://127.0.0.1/\(number).pdf", mediaType: .pdf, size: Int64(number)),
                isFree: number % 2 == 0, summary: String(repeating: "s", count: number % 40)))
        }
        let data = CatalogSnapshot.data(of: Catalog(title: "Big", entries: entries))
        XCTAssertTrue(data.starts(with: Array("bplist00".utf8)))
        // Foundation's reader agrees it is a property list.
        let parsed = try XCTUnwrap(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        XCTAssertEqual((parsed["Issues"] as? [Any])?.count, 7000)
        let back = try CatalogReader().catalog(data, url: URL(string: "http://127.0.0.1/feed")!)
        XCTAssertEqual(back.entries.map(\.id), entries.map(\.id))
        XCTAssertEqual(back.entries.map(\.title), entries.map(\.title))
        XCTAssertEqual(back.entries.map(\.size), entries.map(\.size))
        XCTAssertEqual(back.entries.map(\.releaseDate), entries.map(\.releaseDate))
        XCTAssertEqual(back.entries.map(\.isFree), entries.map(\.isFree))
        // An empty summary is no summary, in every catalog.
        XCTAssertEqual(back.entries.map(\.summary), entries.map { $0.summary.flatMap { $0.isEmpty ? nil : $0 } })
    }

    /// A snapshot's lengths and sizes take as few bytes as they need, and Foundation's reader
    /// agrees with ours on every one of them.
    func testASnapshotsNumbersAreAsShortAsTheyCanBe() throws {
        let lengths = [14, 15, 255, 256, 65_535, 65_536, 70_000]
        let sizes: [Int64] = [0, 255, 256, 65_535, 65_536, 1 << 32 - 1, 1 << 32, 1 << 40]
        var entries: [CatalogEntry] = []
        for number in 0..<3000 {
            let title = number < lengths.count ? String(repeating: "t", count: lengths[number]) : "Issue number \(number)"
            entries.append(CatalogEntry(CatalogEntry.Fields(
                id: "urn:uuid:\(number)", title: title,
                acquisition: Acquisition(address: "http://127.0.0.1/\(number).pdf", mediaType: number % 3 == 0 ? .epub : .pdf,
                                         size: sizes[number % sizes.count]),
                alternatives: number % 7 == 0 ? [Acquisition(address: "http://127.0.0.1/\(number).cbz", mediaType: .cbz)] : [])))
        }
        let catalog = Catalog(title: "Short numbers", entries: entries)
        let whole = CatalogSnapshot.data(of: catalog)

        // A title of 17 letters: its length in one byte, after the marker of a one-byte integer.
        XCTAssertNotNil(whole.range(of: Data([0x5F, 0x10, 17]) + Data("Issue number 1000".utf8)))
        XCTAssertNotNil(whole.range(of: Data([0x5F, 0x11, 0x01, 0x00]) + Data(repeating: UInt8(ascii: "t"), count: 256)))
        XCTAssertNotNil(whole.range(of: Data([0x5F, 0x12, 0x00, 0x01, 0x11, 0x70]) + Data(repeating: UInt8(ascii: "t"), count: 70_000)))

        let parsed = try XCTUnwrap(try PropertyListSerialization.propertyList(from: whole, format: nil) as? [String: Any])
        let issues = try XCTUnwrap(parsed["Issues"] as? [[String: Any]])
        XCTAssertEqual(issues.count, entries.count)
        XCTAssertEqual(issues.map { ($0["Title"] as? String)?.count }, entries.map(\.title.count))
        XCTAssertEqual(issues.map { ($0["Advertised size"] as? NSNumber)?.int64Value ?? ($0["Size"] as? NSNumber)?.int64Value },
                       entries.map(\.size))
        let opened = try XCTUnwrap(CatalogSnapshot.read(whole, allowFiles: false, limits: CatalogLimits()))
        XCTAssertEqual(opened.entries, entries)
    }

    func testAGivenLocalKeyIsUsedOnlyWhenItIsSafe() throws {
        let catalog = Fixtures.catalog([["ID": "a:b", "Local key": "../../etc", "Title": "T", "Download URL": "x.pdf"],
                                        ["ID": "c:d", "Local key": "kept-key", "Title": "T", "Download URL": "y.pdf"]])
        let back = try CatalogReader().catalog(catalog, url: URL(string: "http://127.0.0.1/c.plist")!)
        XCTAssertEqual(back.entries.map(\.localKey), [LocalKey.make(for: "a:b"), "kept-key"])
    }

    func testThisVersionsSnapshotOpensAsWrittenAndABrokenOneIsRefused() throws {
        let entries = [
            CatalogEntry(CatalogEntry.Fields(
                id: "urn:x:1", title: "One", releaseDate: Date(timeIntervalSince1970: 1_794_556_800), coverAddress: "http://127.0.0.1/1.png",
                acquisition: Acquisition(address: "http://127.0.0.1/1.epub", mediaType: .epub, size: 10, sizeIsAdvisory: true),
                alternatives: [Acquisition(address: "https://127.0.0.1/1.pdf", mediaType: .pdf, size: 20, sha256: String(repeating: "cd", count: 32))],
                isFree: true, summary: "S", price: "1 EUR", authors: "A")),
            CatalogEntry(CatalogEntry.Fields(id: "../two", title: "Two", acquisition: Acquisition(address: "http://127.0.0.1/2.cbz", mediaType: .cbz))),
        ]
        let catalog = Catalog(title: "T", entries: entries)
        let opened = try XCTUnwrap(CatalogSnapshot.read(CatalogSnapshot.data(of: catalog), allowFiles: false, limits: CatalogLimits()))
        XCTAssertEqual(opened.title, "T")
        XCTAssertEqual(opened.entries, entries, "every field, every form of each issue")
        XCTAssertEqual(opened.entries.map(\.localKey), entries.map(\.localKey))
        // The same bytes through the whole reader and validator agree.
        XCTAssertEqual(try CatalogReader().catalog(CatalogSnapshot.data(of: catalog), url: URL(string: "http://127.0.0.1/c")!).entries, entries)

        func tampered(_ change: (inout CatalogEntry.Fields) -> Void) -> Data {
            var fields = entries[0].fields
            change(&fields)
            return CatalogSnapshot.data(of: Catalog(title: nil, entries: [CatalogEntry(fields)]))
        }
        XCTAssertNil(CatalogSnapshot.read(tampered { $0.localKey = "../escape" }, allowFiles: false, limits: CatalogLimits()))
        XCTAssertNil(CatalogSnapshot.read(tampered { $0.acquisition.address = "ftp://127.0.0.1/1.pdf" }, allowFiles: false, limits: CatalogLimits()))
        XCTAssertNil(CatalogSnapshot.read(tampered { $0.acquisition.address = "file:///etc/passwd" }, allowFiles: false, limits: CatalogLimits()))
        XCTAssertNil(CatalogSnapshot.read(tampered { $0.coverAddress = "javascript:x" }, allowFiles: false, limits: CatalogLimits()))
        let twice = Catalog(title: nil, entries: [entries[1], entries[1]])
        XCTAssertNil(CatalogSnapshot.read(CatalogSnapshot.data(of: twice), allowFiles: false, limits: CatalogLimits()), "one entry per key")
        // A property list that is no snapshot of this version (an earlier copy) is for the full reader.
        XCTAssertNil(CatalogSnapshot.read(Fixtures.catalog([Fixtures.entry(id: "a", download: "a.pdf")], format: .binary),
                                          allowFiles: false, limits: CatalogLimits()))
    }

    /// Found by `make fuzz`: a feed's link without a length read back from the cache as another
    /// acquisition (advisory or not, of no size).
    func testAFeedsLinkWithoutASizeReadsBackTheSame() throws {
        let feed = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://e.org/a/"><entry xml:base="b/"><id>x</id><title>T</title>
            <link rel="enclosure" type="application/pdf" xml:base="../c/" href="x.pdf"/></entry></feed>
            """
        let url = URL(string: "https://news.example/opds/feed")!
        let read = try CatalogReader().catalog(Data(feed.utf8), url: url)
        XCTAssertEqual(read.entries.first?.downloadAddress, "http://e.org/a/c/x.pdf")
        let snapshot = CatalogSnapshot.data(of: read)
        XCTAssertEqual(try CatalogReader().catalog(snapshot, url: url).entries.map(\.acquisitions), read.entries.map(\.acquisitions))
        XCTAssertEqual(CatalogSnapshot.read(snapshot, allowFiles: false, limits: CatalogLimits())?.entries.map(\.acquisitions),
                       read.entries.map(\.acquisitions))
    }

    /// Strings are written as ASCII only when every byte is: looked at eight bytes at a time,
    /// a byte over 0x7F at any place of any length (the last whole word, the bytes after it)
    /// makes the string UTF-16, and it reads back the same either way.
    func testAStringIsWrittenAsASCIIOnlyWhenEveryByteIs() throws {
        for length in 0..<20 {
            let plain = String(repeating: "a", count: length)
            XCTAssertTrue(plain.utf8.withContiguousStorageIfAvailable { $0.isASCII } ?? false, "\(length)")
            for place in 0..<length {
                var bytes = Array(plain.utf8)
                bytes[place] = 0x80 | UInt8(place)
                XCTAssertFalse(bytes.withUnsafeBufferPointer { $0.isASCII }, "byte \(place) of \(length)")
            }
        }
        let titles = ["plain ASCII of more than eight bytes", "é at the start", "ends in é", "1234567é", "12345678é", "夏"]
        let entries = titles.enumerated().map { index, title in
            CatalogEntry(CatalogEntry.Fields(id: "i\(index)", title: title, acquisition: Acquisition(address: "http://127.0.0.1/\(index).pdf", mediaType: .pdf)))
        }
        let back = try CatalogReader().catalog(CatalogSnapshot.data(of: Catalog(title: nil, entries: entries)), url: URL(string: "http://127.0.0.1/feed")!)
        XCTAssertEqual(back.entries.map(\.title), titles)
        XCTAssertEqual(back.entries.map(\.mediaType), Array(repeating: .pdf, count: titles.count))
    }
}
