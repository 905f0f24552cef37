import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// A feed's pages through the pipeline: the next page is fetched while a page is read when the
/// page's head names it, and the page as read decides which page comes next.
final class CatalogPipelineTests: XCTestCase {
    private func feed(head next: String? = nil, entries: [String], tail: String? = nil) -> Data {
        func link(_ href: String?) -> String { href.map { "<link rel=\"next\" href=\"\($0)\"/>" } ?? "" }
        let items = entries.map { id in
            "<entry><id>\(id)</id><title>Issue \(id)</title><link rel=\"http://opds-spec.org/acquisition\" type=\"application/pdf\" href=\"/\(id).pdf\"/></entry>"
        }.joined()
        return Data("<feed xmlns=\"http://www.w3.org/2005/Atom\"><id>f</id><title>Harbour</title>\(link(next))\(items)\(link(tail))</feed>".utf8)
    }

    private func fetcher(_ harness: StoreHarness, stallTimeout: Int = 30) -> CatalogFetcher {
        CatalogFetcher(subscription: Subscription(name: "harbour", url: harness.server.url("/p1.atom")), directories: harness.directories,
                       engine: .withoutHostLimits, stallTimeout: stallTimeout)
    }

    /// Files made under the cache: pages go to files in memory, so none, ever.
    private func leftovers(_ harness: StoreHarness) -> [String] {
        let cache = harness.directories.cache
        return (FileManager.default.enumerator(atPath: cache)?.allObjects as? [String] ?? []).filter {
            FileOps.regularFileSize(cache + "/" + $0) != nil
        }
    }

    func testAFetchStartsWithoutWaitingAndAStoppedOneEndsCancelledWithoutItsFile() throws {
        let harness = try StoreHarness()
        harness.server.serve("/held.atom", .init(body: feed(entries: ["held"]), contentType: "application/atom+xml"))
        harness.server.inject(.stallAfter(0), into: "/held.atom")
        harness.server.serve("/p2.atom", .init(body: feed(entries: ["two"]), contentType: "application/atom+xml"))
        let fetcher = fetcher(harness, stallTimeout: 300)
        // The server holds its answer: start returns all the same, and the request is on its way.
        let held = fetcher.start(harness.server.url("/held.atom"), address: harness.server.url("/held.atom").absoluteString)
        XCTAssertTrue(harness.server.wait { $0.requests(for: "/held.atom").count == 1 })
        XCTAssertEqual(leftovers(harness), [], "a page on its way is no file either")
        fetcher.stop(held)
        XCTAssertThrowsError(try fetcher.wait(for: held)) { XCTAssertEqual(($0 as? NewsstandError)?.code, .cancelled) }
        XCTAssertEqual(leftovers(harness), [])
        // Another fetch, waited for, brings its document and leaves no file either.
        let document = try fetcher.wait(for: fetcher.start(harness.server.url("/p2.atom"), address: harness.server.url("/p2.atom").absoluteString))
        XCTAssertEqual(document.data, feed(entries: ["two"]))
        XCTAssertEqual(leftovers(harness), [])
    }

    func testTheHeadsNextPageIsFetchedOnceAndAGuessThePageOverrulesIsDroppedUnread() throws {
        let harness = try StoreHarness()
        for (path, id) in [("/p2.atom", "two"), ("/early.atom", "early"), ("/late.atom", "late")] {
            harness.server.serve(path, .init(body: feed(entries: [id]), contentType: "application/atom+xml"))
        }
        let fetcher = fetcher(harness)
        let pipeline = CatalogPipeline(fetcher: fetcher, maximumPages: 10, maximumEntries: 1_000)
        let first = harness.server.url("/p1.atom")

        let confirmed = try pipeline.catalog(from: .init(data: feed(head: "/p2.atom", entries: ["one"]), url: first, contentType: nil))
        XCTAssertEqual(confirmed.entries.map(\.id), ["one", "two"])
        XCTAssertEqual(harness.server.requests(for: "/p2.atom").count, 1, "the page fetched early is the page read")

        // The head names one page, a later link another: the later one is the page's last word.
        let overruled = try pipeline.catalog(from: .init(data: feed(head: "/early.atom", entries: ["one"], tail: "/late.atom"), url: first, contentType: nil))
        XCTAssertEqual(overruled.entries.map(\.id), ["one", "late"])
        XCTAssertEqual(harness.server.requests(for: "/late.atom").count, 1)
        XCTAssertLessThanOrEqual(harness.server.requests(for: "/early.atom").count, 1)
        XCTAssertEqual(leftovers(harness), [])

        // A page whose head names a page already read is not fetched again, early or late.
        let loop = try pipeline.catalog(from: .init(data: feed(head: "/p1.atom", entries: ["one"]), url: first, contentType: nil))
        XCTAssertEqual(loop.entries.map(\.id), ["one"])
        XCTAssertEqual(loop.remarks, [.pagesLoop(page: 1)])
        XCTAssertEqual(harness.server.requests(for: "/p1.atom").count, 0)
    }

    func testAPageThatCannotBeReadLeavesNoFetchedPageBehind() throws {
        let harness = try StoreHarness()
        harness.server.serve("/p2.atom", .init(body: feed(entries: ["two"]), contentType: "application/atom+xml"))
        let pipeline = CatalogPipeline(fetcher: fetcher(harness), maximumPages: 10, maximumEntries: 1_000)
        // Its head names page 2, fetched at once; then the page turns out broken.
        var broken = feed(head: "/p2.atom", entries: ["one"])
        broken.removeLast(8)
        XCTAssertThrowsError(try pipeline.catalog(from: .init(data: broken, url: harness.server.url("/p1.atom"), contentType: nil)))
        XCTAssertEqual(leftovers(harness), [])
    }

    /// Pages whose heads name the next are fetched and read ahead on other cores: every page
    /// once, in order; a page read ahead that the page before overrules is dropped, and so is
    /// everything read ahead after it; the bounds and a failing page stop the chain.
    func testPagesReadAheadComeInOrderOnceAndStopWhereThePagesSay() throws {
        let harness = try StoreHarness()
        func serve(_ number: Int, head: String?, tail: String? = nil) {
            harness.server.serve("/r\(number).atom", .init(body: feed(head: head, entries: ["r\(number)"], tail: tail), contentType: "application/atom+xml"))
        }
        for number in 2...8 { serve(number, head: "/r\(number + 1).atom") }
        serve(9, head: nil)
        let first = harness.server.url("/p1.atom")
        let whole = try CatalogPipeline(fetcher: fetcher(harness), maximumPages: 10, maximumEntries: 1_000)
            .catalog(from: .init(data: feed(head: "/r2.atom", entries: ["r1"]), url: first, contentType: nil))
        XCTAssertEqual(whole.entries.map(\.id), (1...9).map { "r\($0)" })
        XCTAssertEqual(whole.remarks, [])
        for number in 2...9 { XCTAssertEqual(harness.server.requests(for: "/r\(number).atom").count, 1, "page \(number)") }
        XCTAssertEqual(leftovers(harness), [])

        // Page 3's head names page 4, its last link page 6: pages 4 and 5, read ahead, are dropped.
        serve(3, head: "/r4.atom", tail: "/r6.atom")
        let overruled = try CatalogPipeline(fetcher: fetcher(harness), maximumPages: 10, maximumEntries: 1_000)
            .catalog(from: .init(data: feed(head: "/r2.atom", entries: ["r1"]), url: first, contentType: nil))
        XCTAssertEqual(overruled.entries.map(\.id), ["r1", "r2", "r3", "r6", "r7", "r8", "r9"])
        XCTAssertEqual(leftovers(harness), [])

        // Four pages at most: page 5 is never asked for, however far the heads lead.
        serve(3, head: "/r4.atom")
        let before = harness.server.requests(for: "/r5.atom").count
        let cut = try CatalogPipeline(fetcher: fetcher(harness), maximumPages: 4, maximumEntries: 1_000)
            .catalog(from: .init(data: feed(head: "/r2.atom", entries: ["r1"]), url: first, contentType: nil))
        XCTAssertEqual(cut.entries.map(\.id), ["r1", "r2", "r3", "r4"])
        XCTAssertEqual(cut.remarks, [.pagesCut(pages: 4, entries: 4, byEntries: false)])
        XCTAssertEqual(harness.server.requests(for: "/r5.atom").count, before)
        XCTAssertEqual(leftovers(harness), [])

        // Page 4 fails: the pages before it stand, with a remark.
        harness.server.inject(.status(500), into: "/r4.atom")
        let failed = try CatalogPipeline(fetcher: fetcher(harness), maximumPages: 10, maximumEntries: 1_000)
            .catalog(from: .init(data: feed(head: "/r2.atom", entries: ["r1"]), url: first, contentType: nil))
        XCTAssertEqual(failed.entries.map(\.id), ["r1", "r2", "r3"])
        guard case .pageUnreadable(page: 4, _)? = failed.remarks.first else { return XCTFail("\(failed.remarks)") }
        XCTAssertEqual(leftovers(harness), [])
    }

    /// The page after is asked for as soon as a page's bytes are in, on the transfer engine's
    /// thread: with every read held back, the chain still runs to its bound, and the pages then
    /// come in order, each asked once.
    func testTheNextPageIsAskedForBeforeAnyPageIsRead() throws {
        let harness = try StoreHarness()
        for number in 2...5 {
            harness.server.serve("/r\(number).atom", .init(body: feed(head: "/r\(number + 1).atom", entries: ["r\(number)"]), contentType: "application/atom+xml"))
        }
        let fetcher = fetcher(harness)
        let reads = DispatchQueue(label: "held reads")
        reads.suspend()
        let context = PageReadAhead.Context(
            fetcher: fetcher, reader: CatalogReader(limits: fetcher.limits), validator: CatalogValidator(), format: AtomFeedFormat(),
            maximumPages: 5, maximumEntries: 1_000,
            entriesRead: Locked(0), visited: [harness.server.url("/p1.atom").absoluteString], readQueue: reads)
        var ahead = PageReadAhead.start(hint: harness.server.url("/r2.atom").absoluteString, after: 1, context: context)
        XCTAssertTrue(harness.server.wait { server in (2...5).allSatisfy { server.requests(for: "/r\($0).atom").count == 1 } },
                      "pages 3 to 5 asked for while no page was read")
        XCTAssertEqual(harness.server.requests(for: "/r6.atom").count, 0, "the bound of five pages holds")
        reads.resume()
        var read: [String] = []
        while let page = ahead {
            let (outcome, next) = page.take()
            read += CatalogValidator().catalog(from: [try outcome.get()]).entries.map(\.id)
            ahead = next
        }
        XCTAssertEqual(read, ["r2", "r3", "r4", "r5"])
        for number in 2...5 { XCTAssertEqual(harness.server.requests(for: "/r\(number).atom").count, 1, "page \(number)") }
        XCTAssertEqual(leftovers(harness), [])
    }

    /// A page read ahead is checked on its own thread, then joined: a key its page repeats from
    /// an earlier page is a duplicate numbered among the feed's entries, and a bad entry's place
    /// counts on from the pages before it.
    func testPagesCheckedAsTheyAreReadJoinAsOneFeed() throws {
        let harness = try StoreHarness()
        harness.server.serve("/p2.atom", .init(body: feed(head: "/p3.atom", entries: ["b", "  ", "c"]), contentType: "application/atom+xml"))
        harness.server.serve("/p3.atom", .init(body: feed(entries: ["d", "a"]), contentType: "application/atom+xml"))
        let pipeline = CatalogPipeline(fetcher: fetcher(harness), maximumPages: 10, maximumEntries: 1_000)
        let catalog = try pipeline.catalog(from: .init(data: feed(head: "/p2.atom", entries: ["a", "b"]), url: harness.server.url("/p1.atom"),
                                                       contentType: nil))
        XCTAssertEqual(catalog.entries.map(\.id), ["a", "b", "c", "d"])
        XCTAssertEqual(catalog.entries.map(\.downloadAddress), ["a", "b", "c", "d"].map { harness.server.url("/\($0).pdf").absoluteString })
        // Page two: "b" again (the third outcome), then an entry without an ID at place 2 + 1;
        // page three: "a" again, the seventh outcome.
        XCTAssertEqual(catalog.warnings.map(\.kind), [.duplicateID, .missing(field: "id", expected: "a string of at most 1,024 bytes"), .duplicateID])
        XCTAssertEqual(catalog.warnings.map(\.index), [2, 3, 6])
        XCTAssertEqual(catalog.warnings.map(\.id), ["b", nil, "a"])
        XCTAssertEqual(catalog.entries.map { catalog.positions.position(of: $0.localKey, in: catalog.entries) }, [0, 1, 2, 3])
    }

    /// A big Atom page is read and checked piece by piece on every core: the catalog is the one
    /// the page read whole and then checked makes, warnings in every piece numbered by their
    /// place in the page, and a key repeated from another piece a duplicate.
    func testAPageCheckedInThePiecesItWasReadInIsThePageCheckedWhole() throws {
        let count = 3_000
        var entries = ""
        for number in 0..<count {
            // An entry without an ID, one whose download is not http(s), and one that repeats
            // the first entry's ID, in each part of the page.
            let id = number % 700 == 5 ? "" : number % 900 == 7 ? "urn:x:0" : "urn:x:\(number)"
            let href = number % 800 == 9 ? "ftp://127.0.0.1/\(number).pdf" : "/get/\(number).pdf"
            entries += "<entry><id>\(id)</id><title>Issue \(number)</title>"
                + "<link rel=\"http://opds-spec.org/acquisition\" type=\"application/pdf\" href=\"\(href)\"/></entry>\n"
        }
        let data = Data(("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Big</title>\n" + entries + "</feed>").utf8)
        let url = URL(string: "http://127.0.0.1:8080/opds/big.atom")!
        let validator = CatalogValidator()
        XCTAssertGreaterThan(Pieces.count(for: count), 1, "read in pieces")
        let (checked, _) = try validator.readAndCheck(data, url: url, format: AtomFeedFormat(), limits: CatalogLimits())
        let inPieces = validator.catalog(from: [checked])
        let whole = validator.catalog(from: [try AtomFeedFormat().read(data, url: url, limits: CatalogLimits())])
        XCTAssertEqual(inPieces, whole)
        XCTAssertEqual(inPieces.entries.count, whole.entries.count)
        let missing = (0..<count).filter { $0 % 700 == 5 }
        let repeated = (0..<count).filter { $0 % 900 == 7 && $0 % 700 != 5 }
        let unsupported = (0..<count).filter { $0 % 800 == 9 && $0 % 700 != 5 && $0 % 900 != 7 }
        XCTAssertEqual(inPieces.warnings.map(\.index), (missing + repeated + unsupported).sorted())
        XCTAssertEqual(Set(inPieces.warnings.filter { $0.kind == .duplicateID }.map(\.index)), Set(repeated))
        XCTAssertEqual(inPieces.entries.count, count - missing.count - repeated.count - unsupported.count)
        XCTAssertEqual(inPieces.entries.first?.downloadAddress, "http://127.0.0.1:8080/get/0.pdf")
    }

    /// A later page that fails is worded without the secret its own address carries (worked out
    /// only when a failure is worded).
    func testALaterPageThatFailsIsWordedWithoutTheSecretInItsAddress() throws {
        let harness = try StoreHarness()
        let pipeline = CatalogPipeline(fetcher: fetcher(harness), maximumPages: 10, maximumEntries: 1_000)
        let catalog = try pipeline.catalog(from: .init(data: feed(head: "/gone.atom?token=hunter2", entries: ["one"]),
                                                       url: harness.server.url("/p1.atom"), contentType: nil))
        XCTAssertEqual(catalog.entries.map(\.id), ["one"])
        guard case .pageUnreadable(page: 2, let reason)? = catalog.remarks.first else { return XCTFail("\(catalog.remarks)") }
        XCTAssertTrue(reason.contains("HTTP 404") && reason.contains("/gone.atom?token="), reason)
        XCTAssertFalse(reason.contains("hunter2"), reason)
        XCTAssertEqual(harness.server.requests(for: "/gone.atom").count, 1)
    }
}
