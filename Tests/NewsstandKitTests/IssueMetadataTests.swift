import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// What `publish` reads of a PDF: its Info dictionary through poppler's `pdfinfo`, then its XMP
/// packet for what the Info dictionary lacks, then the file's name.
final class IssueMetadataTests: XCTestCase {
    /// An XMP packet as Acrobat and exiftool write it: the title and description as language
    /// alternatives, the creation date as an attribute of the description.
    private let packet = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2026-06-15T09:30:00Z"/>
          <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
           <dc:title><rdf:Alt><rdf:li xml:lang="fr">Le numéro d'été</rdf:li><rdf:li xml:lang="x-default">The Summer Issue</rdf:li></rdf:Alt></dc:title>
           <dc:description><rdf:Alt><rdf:li xml:lang="x-default">Sun &amp; sea.</rdf:li></rdf:Alt></dc:description>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """

    private func read(_ pdf: Data, name: String) throws -> IssueMetadata {
        let folder = TemporaryDirectory()
        let path = folder.path + "/" + name
        try pdf.write(to: URL(fileURLWithPath: path))
        return IssueMetadata.read(path: path, name: name, type: .pdf, modified: Date(timeIntervalSince1970: 0))
    }

    func testXMPFillsWhatTheInfoDictionaryLacks() throws {
        let onlyXMP = try read(Fixtures.pagePDF(red: 1, green: 0, blue: 0, xmp: packet), name: "summer.pdf")
        XCTAssertEqual(onlyXMP.title, "The Summer Issue", "the x-default language")
        XCTAssertEqual(onlyXMP.summary, "Sun & sea.")
        XCTAssertEqual(onlyXMP.date, FeedDate.iso8601("2026-06-15T09:30:00Z"))

        let both = try read(Fixtures.pagePDF(red: 1, green: 0, blue: 0, title: "Info Title", xmp: packet), name: "summer.pdf")
        XCTAssertEqual(both.title, "Info Title", "the Info dictionary first")
        XCTAssertEqual(both.summary, "Sun & sea.", "XMP for what it lacks")

        let neither = try read(Fixtures.pagePDF(red: 1, green: 0, blue: 0), name: "2026-03 Spring Issue.pdf")
        XCTAssertEqual(neither.title, "Spring Issue", "then the file's name")
        XCTAssertEqual(neither.date, FeedDate.iso8601("2026-03-01T00:00:00Z"))
    }

    func testXMPWithElementsAndABrokenPacket() {
        let elements = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <xmp:CreateDate>2025-01-02</xmp:CreateDate><dc:title><rdf:Alt><rdf:li xml:lang="de">Winter</rdf:li></rdf:Alt></dc:title>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let read = IssueMetadata.xmp(Data(elements.utf8))
        XCTAssertEqual(read.0, "Winter", "the first language when none is x-default")
        XCTAssertEqual(read.1, FeedDate.iso8601("2025-01-02T00:00:00Z"))
        XCTAssertNil(read.2)
        let broken = IssueMetadata.xmp(Data("<x:xmpmeta><rdf:RDF>".utf8))
        XCTAssertNil(broken.0)
        XCTAssertNil(broken.1)
    }
}
