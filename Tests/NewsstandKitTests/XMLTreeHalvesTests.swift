import Foundation
@testable import NewsstandKit
import XCTest

/// A large document is read in two halves at once; the tree, and any failure, must be the ones a
/// single pass gives, wherever the second half is guessed to begin.
final class XMLTreeHalvesTests: XCTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The tree of one pass: a search that starts past the end finds no second half.
    private func onePass(_ data: Data) throws -> XMLTree {
        let result = try XMLTree.parse(data, maximumDepth: 64, secondHalfFrom: data.count, secondHalfAtOnce: true)
        XCTAssertFalse(result.inHalves)
        return result.tree
    }

    private func failure(_ body: () throws -> Void) -> XMLTree.Failure? {
        do {
            try body()
            return nil
        } catch {
            return error as? XMLTree.Failure
        }
    }

    /// An Atom feed with namespaces met late: one declared on an entry of the first half after
    /// the feed's first entry, one only in the second half, prefixed attributes, and text with
    /// references and CDATA.
    private func feed(entries: Int) -> Data {
        var text = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/terms/">
        <id>urn:halves</id><title>Halves &amp; more</title>
        <link rel="next" href="p2.xml"/>

        """
        for index in 0..<entries {
            let late = index == 3 ? " xmlns:early=\"urn:early\"" : index == entries * 3 / 4 ? " xmlns:late=\"urn:late\"" : ""
            let extra = index == 3 ? "<early:note early:kind=\"x\">first half</early:note>"
                : index == entries * 3 / 4 ? "<late:note late:kind=\"y\">second half</late:note><note xmlns=\"urn:early\"/>" : ""
            text += "<entry\(late)><title>Issue \(index) &lt;b&gt;</title><id>urn:\(index)</id><dc:issued>2026-11-\(index % 28 + 1)</dc:issued>"
            text += "<summary><![CDATA[<p>\(index)</p>]]></summary>\(extra)<link rel=\"http://opds-spec.org/acquisition\" href=\"/\(index).pdf\" type=\"application/pdf\"/></entry>\n"
        }
        return Data((text + "</feed>\n").utf8)
    }

    func testEveryFixtureBuildsTheSameTreeWhereverTheSecondHalfBegins() throws {
        var documents: [(String, Data)] = [("generated feed", feed(entries: 400))]
        for folder in ["Feeds", "Corpus", "OPML"] {
            let path = Self.fixtures.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: path.path).sorted()
            where [".xml", ".atom", ".rss", ".opml"].contains(where: name.hasSuffix) {
                documents.append((name, try Data(contentsOf: path.appendingPathComponent(name))))
            }
        }
        XCTAssertGreaterThanOrEqual(documents.count, 15)
        var halved = 0
        for (name, data) in documents {
            let expected = failure { _ = try onePass(data) } == nil ? try onePass(data) : nil
            for eighth in 0..<8 {
                let from = data.count * eighth / 8
                do {
                    let result = try XMLTree.parse(data, maximumDepth: 64, secondHalfFrom: from, secondHalfAtOnce: true)
                    XCTAssertEqual(result.tree, expected, "\(name), second half searched from byte \(from)")
                    if result.inHalves { halved += 1 }
                } catch {
                    XCTAssertNil(expected, "\(name), from byte \(from): \(error)")
                }
            }
        }
        // Most guesses land: the comparisons above are of trees really built in halves.
        XCTAssertGreaterThanOrEqual(halved, documents.count * 2, "documents read in halves")
    }

    func testTheGeneratedFeedIsReadInHalvesAndItsLateNamespacesResolve() throws {
        let data = feed(entries: 400)
        let result = try XMLTree.parse(data, maximumDepth: 64, secondHalfFrom: data.count / 2, secondHalfAtOnce: true)
        XCTAssertTrue(result.inHalves)
        XCTAssertEqual(result.tree, try onePass(data))
        let tree = result.tree
        let notes = tree.elements.indices.filter { tree.isElement($0, "note", in: nil) }
        XCTAssertEqual(notes.map { tree.namespace(of: $0) }, ["urn:early", "urn:late", "urn:early"])
        XCTAssertEqual(tree.attribute("kind", of: notes[1], in: "urn:late"), "y")
        XCTAssertEqual(tree.children(of: tree.root).filter { tree.isElement($0, "entry", in: AtomFeedFormat.atom) }.count, 400)
        let last = try XCTUnwrap(tree.children(of: tree.root).reduce(nil as Int?) { _, child in child })
        XCTAssertEqual(tree.childText(of: last, "id", in: AtomFeedFormat.atom), "urn:399")
        XCTAssertEqual(tree.text(of: tree.child(of: last, "summary", in: nil)!), "<p>399</p>")
    }

    func testElementsAfterTheSecondHalfAreNumberedOnFromIt() throws {
        // RSS: the items are the channel's; after the channel closes, the document goes on.
        var text = "<rss version=\"2.0\"><channel><title>T</title>\n"
        for index in 0..<300 {
            text += "<item><title>\(index)</title><enclosure url=\"/\(index).pdf\" type=\"application/pdf\"/></item>\n"
        }
        text += "</channel><after kind=\"a\"><inner/></after><after kind=\"b\"/></rss>"
        let data = Data(text.utf8)
        let result = try XMLTree.parse(data, maximumDepth: 64, secondHalfFrom: data.count / 2, secondHalfAtOnce: true)
        XCTAssertTrue(result.inHalves)
        XCTAssertEqual(result.tree, try onePass(data))
        let tree = result.tree
        let after = tree.children(of: tree.root).filter { tree.isElement($0, "after", in: nil) }
        XCTAssertEqual(after.map { tree.attribute("kind", of: $0) }, ["a", "b"])
        XCTAssertEqual(tree.elements.count, 2 + 1 + 300 * 3 + 3)
        let channel = try XCTUnwrap(tree.child(of: tree.root, "channel", in: nil))
        XCTAssertEqual(tree.childCount(of: channel), 301)
    }

    func testAFeedOfTheSizeThatIsSplitIsReadInHalvesUnasked() throws {
        let data = feed(entries: 4_000)
        XCTAssertGreaterThanOrEqual(data.count, XMLTreeSecondHalf.minimumSize)
        let result = try XMLTree.parse(data, maximumDepth: 64, secondHalfFrom: nil, secondHalfAtOnce: false)
        XCTAssertTrue(result.inHalves)
        XCTAssertEqual(result.tree, try onePass(data))
        // A small one is not.
        XCTAssertFalse(try XMLTree.parse(feed(entries: 20), maximumDepth: 64, secondHalfFrom: nil, secondHalfAtOnce: false).inHalves)
    }

    /// Each half's lists are given room for what it holds, reckoned from its first bytes, for
    /// feeds dense and sparse: too much room straddles fresh 2 MiB pages, too little moves the
    /// lists as they grow.
    func testEachHalfReservesRoomForWhatItHolds() throws {
        func feed(summary: String) -> Data {
            var text = "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n"
            for index in 0..<4_000 {
                text += "<entry><id>urn:uuid:\(index)</id><title>Issue \(index)</title><summary>\(summary)</summary>"
                text += "<link href=\"/\(index).pdf\" type=\"application/pdf\"/></entry>\n"
            }
            return Data((text + "</feed>\n").utf8)
        }
        for data in [self.feed(entries: 4_000), feed(summary: "Week"), feed(summary: String(repeating: "Letters, reviews. ", count: 20))] {
            let result = try XMLTree.parse(data, maximumDepth: 64, secondHalfFrom: nil, secondHalfAtOnce: false)
            XCTAssertTrue(result.inHalves)
            let elements = result.tree.elements
            let attributes = result.tree.attributes
            let bytesPerElement = data.count / elements.count
            for (count, room) in [(elements.first.count, elements.first.capacity), (elements.second.count, elements.second.capacity),
                                  (attributes.first.count, attributes.first.capacity), (attributes.second.count, attributes.second.capacity)] {
                XCTAssertGreaterThanOrEqual(room, count)
                XCTAssertLessThan(room, count * 3 / 2 + 32, "room for \(room) where \(count) were used (\(bytesPerElement) bytes an element)")
            }
        }
    }

    /// A document of nothing but empty tags is not given room for all it seems to hold: its
    /// lists grow as it is read instead (a 128 MiB one would otherwise reserve gigabytes).
    func testRoomIsBoundedForADocumentOfEmptyTags() {
        let bytes = Array(("<r>" + String(repeating: "<a b=\"c\"/>", count: 100_000) + "</r>").utf8)
        let room = bytes.withUnsafeBufferPointer { XMLTree.Builder.room(in: $0, from: 0, to: $0.count) }
        XCTAssertEqual(room.elements, bytes.count / 20 + 16)
        XCTAssertEqual(room.attributes, bytes.count / 20 + 16)
        let tree = try? XMLTree.parse(Data(bytes))
        XCTAssertEqual(tree?.elements.count, 100_001, "read whole all the same")
    }

    func testAGuessTheFirstHalfNeverArrivesAtIsDropped() throws {
        // The only sibling boundary past the search's start is inside a comment.
        let comment = Data("<feed><entry>1</entry><entry>2</entry><!-- </entry> <entry> --><x/></feed>".utf8)
        let inComment = try XMLTree.parse(comment, maximumDepth: 64, secondHalfFrom: 40, secondHalfAtOnce: true)
        XCTAssertFalse(inComment.inHalves)
        XCTAssertEqual(inComment.tree, try onePass(comment))
        // Inside CDATA.
        let cdata = Data("<feed><entry>1</entry><s><![CDATA[</entry>\n<entry>]]></s></feed>".utf8)
        XCTAssertFalse(try XMLTree.parse(cdata, maximumDepth: 64, secondHalfFrom: 20, secondHalfAtOnce: true).inHalves)
        XCTAssertEqual(try XMLTree.parse(cdata, maximumDepth: 64, secondHalfFrom: 20, secondHalfAtOnce: true).tree, try onePass(cdata))
        // In other elements than those open when the first of its name closed.
        let nested = Data("<feed><group><entry>1</entry></group><entry>2</entry>\n<entry>3</entry></feed>".utf8)
        let other = try XMLTree.parse(nested, maximumDepth: 64, secondHalfFrom: 38, secondHalfAtOnce: true)
        XCTAssertFalse(other.inHalves)
        XCTAssertEqual(other.tree, try onePass(nested))
        XCTAssertEqual(other.tree.elements.indices.filter { other.tree.isElement($0, "entry", in: nil) }.count, 3)
    }

    func testAMalformedSecondHalfFailsAsOnePassFails() throws {
        let good = String(decoding: feed(entries: 400), as: UTF8.self)
        let index = good.range(of: "<title>Issue 300 ")!.lowerBound
        let broken = [
            good.replacingCharacters(in: index..<index, with: "<a></b>"),
            good.replacingCharacters(in: index..<index, with: "<nope:x/>"),
            good.replacingCharacters(in: index..<index, with: String(repeating: "<d>", count: 70)),
            String(good[..<index]),
        ]
        for document in broken.map({ Data($0.utf8) }) {
            let expected = try XCTUnwrap(failure { _ = try XMLTree.parse(document, maximumDepth: 64, secondHalfFrom: document.count, secondHalfAtOnce: true) })
            let halved = try XCTUnwrap(failure { _ = try XMLTree.parse(document, maximumDepth: 64, secondHalfFrom: document.count / 2, secondHalfAtOnce: true) })
            XCTAssertEqual(halved.kind, expected.kind)
            XCTAssertEqual(halved.line, expected.line)
        }
        // And a first half that fails does not wait on a second still reading.
        let early = good.replacingCharacters(in: good.range(of: "<title>Issue 10 ")!.lowerBound..<good.range(of: "<title>Issue 10 ")!.lowerBound, with: "</x>")
        let failed = failure { _ = try XMLTree.parse(Data(early.utf8), maximumDepth: 64, secondHalfFrom: early.utf8.count / 2, secondHalfAtOnce: false) }
        XCTAssertEqual(failed?.kind, .malformed("</x> closes <entry>"))
    }
}
