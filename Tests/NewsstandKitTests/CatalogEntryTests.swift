import XCTest
@testable import NewsstandKit

/// An entry shares one box of fields among its copies and makes a new box when a field changes:
/// a change to one copy must never show in another, and must keep every other field.
final class CatalogEntryTests: XCTestCase {
    private func entry() -> CatalogEntry {
        CatalogEntry(CatalogEntry.Fields(
            id: "2026-11", title: "November", releaseDate: Date(timeIntervalSince1970: 1_790_000_000),
            coverAddress: "https://example.com/covers/2026-11.jpg",
            acquisition: Acquisition(address: "https://example.com/2026-11.pdf", mediaType: .pdf, size: 1_024),
            alternatives: [Acquisition(address: "https://example.com/2026-11.epub", mediaType: .epub)],
            isFree: true, summary: "Winter.", price: "4.00 EUR", authors: "A. Writer"))
    }

    func testChangingACopyLeavesTheOriginalAsItWas() {
        let original = entry()
        var copy = original
        copy.title = "Changed"
        copy.coverAddress = nil
        copy.alternatives = []

        XCTAssertEqual(original.title, "November")
        XCTAssertEqual(original.coverAddress, "https://example.com/covers/2026-11.jpg")
        XCTAssertEqual(original.alternatives.count, 1)
        XCTAssertEqual(original, entry())
        XCTAssertNotEqual(copy, original)
    }

    func testAChangeKeepsEveryOtherField() {
        let original = entry()
        var copy = original
        copy.title = "Changed"

        var expected = original.fields
        expected.title = "Changed"
        XCTAssertEqual(copy.fields, expected)
        XCTAssertEqual(copy.id, "2026-11")
        XCTAssertEqual(copy.localKey, original.localKey)
        XCTAssertEqual(copy.downloadAddress, "https://example.com/2026-11.pdf")
        XCTAssertEqual(copy.price, "4.00 EUR")
    }

    func testChangingTheAcquisitionOfACopyLeavesTheOriginalsAcquisition() {
        let original = entry()
        var copy = original
        var acquisition = copy.acquisition
        acquisition.address = "https://example.com/other.pdf"
        copy[dynamicMember: \.acquisition] = acquisition

        XCTAssertEqual(copy.downloadAddress, "https://example.com/other.pdf")
        XCTAssertEqual(copy.size, 1_024)
        XCTAssertEqual(original.downloadAddress, "https://example.com/2026-11.pdf")
    }

    func testEntriesWithEqualFieldsInDifferentBoxesAreEqual() {
        let one = entry()
        var other = entry()
        other.title = "November"
        XCTAssertEqual(one, other)
    }

    /// The one place the core changes checked entries: a cached copy's masked addresses put back.
    /// The copy read from disk keeps its stand-ins; the catalog handed on has the secret.
    func testUnmaskingACatalogChangesOnlyItsOwnEntries() throws {
        let secret = "api-key-0123"
        var fields = entry().fields
        fields.acquisition.address = SecretMask.mask("https://example.com/\(secret)/2026-11.pdf", secrets: [secret])
        fields.coverAddress = SecretMask.mask("https://example.com/\(secret)/cover.jpg", secrets: [secret])
        let masked = Catalog(title: "Monthly", entries: [CatalogEntry(fields)])
        XCTAssertFalse(masked.entries[0].downloadAddress.contains(secret))

        var unmasked = masked
        XCTAssertTrue(SecretMask.unmask(&unmasked, secrets: [secret]))

        XCTAssertEqual(unmasked.entries[0].downloadAddress, "https://example.com/\(secret)/2026-11.pdf")
        XCTAssertEqual(unmasked.entries[0].coverAddress, "https://example.com/\(secret)/cover.jpg")
        XCTAssertEqual(unmasked.entries[0].title, "November")
        XCTAssertEqual(unmasked.entries[0].alternatives, masked.entries[0].alternatives)
        XCTAssertFalse(masked.entries[0].downloadAddress.contains(secret))
        XCTAssertFalse(try XCTUnwrap(masked.entries[0].coverAddress).contains(secret))

        // A stand-in with no secret for it: the copy is not used.
        var orphaned = masked
        XCTAssertFalse(SecretMask.unmask(&orphaned, secrets: []))
    }
}
