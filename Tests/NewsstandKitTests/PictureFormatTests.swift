import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Daily-picture publications: Bing's image archive and NASA's APOD as their APIs answer, and
/// pictures as issues in any feed, through the one reader and validator.
final class PictureFormatTests: XCTestCase {
    private let reader = CatalogReader()

    private func catalog(_ name: String, at address: String, contentType: String?) throws -> (Catalog, FeedPage) {
        let page = try reader.page(Fixtures.feed(name), url: try XCTUnwrap(URL(string: address)), contentType: contentType)
        return (CatalogValidator().catalog(from: [page]), page)
    }

    func testBingsArchiveIsAPublicationOfPictures() throws {
        let (catalog, page) = try catalog("bing-archive.json", at: "https://www.bing.com/HPImageArchive.aspx?format=js&idx=0&n=8&mkt=en-US",
                                          contentType: "application/json; charset=utf-8")
        XCTAssertEqual(page.format, .bingArchive)
        XCTAssertEqual(catalog.entries.map(\.id), ["5c941b9849ff540531337d70a04d1df3", "1870702a47d30be6d7aee03f41b36604", "43dcec68d2759026a1cbedbfc9779220"])
        let today = catalog.entries[0]
        XCTAssertEqual(today.title, "Lighthouse at dawn, Cape Breton Island, Nova Scotia", "\"Info\" is no title: the copyright line says what it shows")
        XCTAssertEqual(today.summary, "Lighthouse at dawn, Cape Breton Island, Nova Scotia (© Jane Doe/Getty Images)")
        XCTAssertEqual(today.releaseDate, FeedDate.iso8601("2026-11-24T08:00:00Z"))
        XCTAssertEqual(today.mediaType, .jpeg)
        XCTAssertEqual(today.downloadAddress, "https://www.bing.com/th?id=OHR.LighthouseDawn_EN-US4829571036_1920x1080.jpg&rf=LaDigue_1920x1080.jpg&pid=hp")
        XCTAssertEqual(today.coverAddress, "https://www.bing.com/th?id=OHR.LighthouseDawn_EN-US4829571036_400x240.jpg")
        XCTAssertEqual(catalog.entries[1].title, "A forest's last colours")
        XCTAssertEqual(catalog.entries[2].title, "アフリカゾウの家族, ケニア", "a full-width (© ends the subject too")
        XCTAssertTrue(catalog.entries.allSatisfy(\.isFree))
        // Its shape is enough, whatever the server calls it.
        XCTAssertEqual(try reader.page(Fixtures.feed("bing-archive.json"), url: URL(string: "https://www.bing.com/a")!, contentType: "text/html").format, .bingArchive)
    }

    func testAPODDaysArePicturesAndAVideoDayHasNothingToDownload() throws {
        let (catalog, page) = try catalog("apod.json", at: "https://apod.example/planetary/apod?start_date=2026-11-22", contentType: "application/json")
        XCTAssertEqual(page.format, .apod)
        XCTAssertEqual(catalog.entries.map(\.id), ["2026-11-22", "2026-11-24"])
        let ring = catalog.entries[0]
        XCTAssertEqual(ring.title, "The Ring in Infrared")
        XCTAssertEqual(ring.downloadAddress, "https://apod.example/image/2611/ring_big.jpg", "the large picture is the issue")
        XCTAssertEqual(ring.coverAddress, "https://apod.example/image/2611/ring_small.jpg", "the standard one its cover")
        XCTAssertEqual(ring.authors, "Jane Astronomer")
        XCTAssertEqual(ring.releaseDate, FeedDate.iso8601("2026-11-22"))
        XCTAssertEqual(catalog.entries[1].mediaType, .png)
        XCTAssertEqual(catalog.itemsWithoutDownload, 1, "the video")
        // One day alone is an object, not an array.
        let one = #"{"date": "2026-11-25", "media_type": "image", "title": "One", "url": "https://apod.example/one.jpg"}"#
        let single = CatalogValidator().catalog(from: [try reader.page(Data(one.utf8), url: URL(string: "https://apod.example/apod")!, contentType: "application/json")])
        XCTAssertEqual(single.entries.map(\.downloadAddress), ["https://apod.example/one.jpg"])
        // A Baker shelf is still a Baker shelf.
        XCTAssertEqual(try reader.page(Fixtures.feed("shelf.json"), url: URL(string: "https://baker.example/shelf.json")!, contentType: "application/json").format, .baker)
    }

    func testWikimediasPictureOfTheDayIsThePictureItsItemShows() throws {
        let (catalog, page) = try catalog("commons-potd.rss", at: "https://commons.wikimedia.org/w/api.php?action=featuredfeed&feed=potd&feedformat=rss",
                                          contentType: "application/rss+xml; charset=utf-8")
        XCTAssertEqual(page.format, .rss)
        XCTAssertEqual(catalog.entries.count, 2)
        let fog = catalog.entries[0]
        XCTAssertEqual(fog.id, "https://commons.wikimedia.org/wiki/Special:FeedItem/potd/20261124000000/en")
        XCTAssertEqual(fog.downloadAddress, "https://upload.wikimedia.org/wikipedia/commons/3/3c/Fog_over_the_Elbe_valley_at_dawn.jpg", "the original, not the thumbnail")
        XCTAssertEqual(fog.coverAddress, "https://upload.wikimedia.org/wikipedia/commons/thumb/3/3c/Fog_over_the_Elbe_valley_at_dawn.jpg/300px-Fog_over_the_Elbe_valley_at_dawn.jpg")
        XCTAssertEqual(fog.mediaType, .jpeg)
        XCTAssertEqual(fog.summary, "Fog over the Elbe valley at dawn, Saxon Switzerland, Germany.")
        XCTAssertEqual(fog.releaseDate, FeedDate.iso8601("2026-11-24T00:00:00Z"))
        let map = catalog.entries[1]
        XCTAssertEqual(map.downloadAddress, "https://upload.wikimedia.org/wikipedia/commons/thumb/e/e8/Map_of_the_Rhine_basin.svg/300px-Map_of_the_Rhine_basin.svg.png",
                       "an SVG original gives way to its PNG thumbnail")
        XCTAssertEqual(map.mediaType, .png)
        XCTAssertEqual(catalog.itemsWithoutDownload, 1, "another site's picture in a post is no issue")
    }

    func testPicturesInAnyFeedAreIssuesAndADocumentBesideAPictureWins() throws {
        let rss = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Daily Picture</title>
            <item><guid>p1</guid><title>Harbour</title><enclosure url="/p/1.jpg" length="5000" type="image/jpeg"/></item>
            <item><guid>p2</guid><title>Fog</title><enclosure url="/p/2.webp" length="4000" type="image/webp"/></item>
            <item><guid>z3</guid><title>Zine 3</title><enclosure url="/z/3.jpg" type="image/jpeg"/><enclosure url="/z/3.pdf" type="application/pdf"/></item>
            </channel></rss>
            """
        let catalog = CatalogValidator().catalog(from: [try reader.page(Data(rss.utf8), url: URL(string: "http://127.0.0.1:7000/feed.rss")!, contentType: nil)])
        XCTAssertEqual(catalog.entries.map(\.mediaType), [.jpeg, .webp, .pdf])
        XCTAssertEqual(catalog.entries[0].coverAddress, "http://127.0.0.1:7000/p/1.jpg", "a JPEG is its own cover")
        XCTAssertNil(catalog.entries[1].coverAddress, "a WebP is made a cover once downloaded: the shelf cannot decode WebP")
        XCTAssertEqual(catalog.entries[2].downloadAddress, "http://127.0.0.1:7000/z/3.pdf", "the PDF, not the photo beside it")
    }

    func testPictureSignaturesAndNames() throws {
        XCTAssertEqual(MediaType(address: "https://x/a.JPG"), .jpeg)
        XCTAssertEqual(MediaType(address: "https://x/a.jpeg?w=1"), .jpeg)
        XCTAssertEqual(MediaType(address: "https://x/a.webp"), .webp)
        XCTAssertEqual(MediaType(mimeType: "image/png; q=1"), .png)
        XCTAssertEqual(MediaType.jpeg.fileExtension, "jpg")
        for (format, type) in [("jpeg", MediaType.jpeg), ("png", .png), ("webp", .webp)] {
            let picture = try Fixtures.picture(format, red: 0.2, green: 0.4, blue: 0.8)
            XCTAssertTrue(type.matchesSignature(picture), format)
            XCTAssertFalse(type.matchesSignature(Data("<html>".utf8)), format)
            for other in MediaType.allCases where other != type { XCTAssertFalse(other.matchesSignature(picture), "\(format) is no \(other)") }
        }
    }

    func testAPictureIssueIsItsOwnCoverAndAWebPIsMadeOne() throws {
        let folder = TemporaryDirectory()
        for (format, type) in [("jpeg", MediaType.jpeg), ("webp", .webp)] {
            let path = folder.path + "/issue.\(type.fileExtension)"
            try Fixtures.picture(format, red: 0.9, green: 0.1, blue: 0.1).write(to: URL(fileURLWithPath: path))
            let cover = folder.path + "/cover-\(format)"
            try IssueCoverMaker.make(from: path, type: type, into: cover)
            let made = try XCTUnwrap(FileManager.default.contents(atPath: cover))
            if type == .jpeg {
                XCTAssertEqual(made, FileManager.default.contents(atPath: path))
            } else {
                XCTAssertTrue(made.starts(with: [0x89, 0x50, 0x4E, 0x47]), "dwebp made a PNG the shelf decodes")
            }
        }
    }
}
