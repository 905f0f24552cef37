import XCTest
@testable import NewsstandKit

/// The index of a catalog's local keys: the first entry of each key found, keys told apart by
/// their text when their hashes are the same.
final class KeyIndexTests: XCTestCase {
    private func entry(_ id: String) -> CatalogEntry {
        CatalogEntry(id: id, title: id, downloadURL: URL(string: "https://example.com/\(id).pdf")!)
    }

    func testEachKeyIsFoundAtItsFirstEntry() {
        let entries = ["2026-01", "2026-02", "2026-01", "urn:uuid:9", "2026-02"].map(entry)
        let index = KeyIndex(of: entries)
        XCTAssertEqual(index.count, 3)
        XCTAssertEqual(entries.map { index.position(of: $0.localKey, in: entries) }, [0, 1, 0, 3, 1])
        XCTAssertNil(index.position(of: "2026-03", in: entries))
        XCTAssertNil(KeyIndex().position(of: "2026-01", in: []))
    }

    /// Every key hashed alike: each is still found, and a duplicate still is one.
    func testKeysWithTheSameHashAreToldApartByTheirText() {
        let entries = (0..<40).map { entry("issue-\($0)") }
        var index = KeyIndex(capacity: 0)
        for (position, entry) in entries.enumerated() {
            XCTAssertNil(index.position(ofKeyOf: entry, hash: 7, in: Array(entries[..<position])))
            index.append(hash: 7, isFirst: true)
        }
        XCTAssertEqual(index.count, 40)
        XCTAssertEqual(entries.map { index.position(of: $0.localKey, hash: 7, in: entries) }, Array(0..<40))
        XCTAssertEqual(index.position(ofKeyOf: entry("issue-39"), hash: 7, in: entries), 39)
        XCTAssertNil(index.position(of: "issue-40", hash: 7, in: entries))
        XCTAssertNil(index.position(of: "issue-0", hash: 8, in: entries))
    }

    /// An index made small grows as keys come, and finds every one of them after.
    func testAnIndexGrowsAndKeepsEveryKey() {
        let entries = (0..<5_000).map { entry("issue-\($0)") }
        var index = KeyIndex()
        for entry in entries {
            index.append(hash: KeyIndex.hash(entry.localKey), isFirst: true)
        }
        XCTAssertEqual(index.count, entries.count)
        XCTAssertEqual(entries.indices.filter { index.position(of: entries[$0].localKey, in: entries) != $0 }, [])
        XCTAssertEqual(entries.indices.filter { index.hash(at: $0) != KeyIndex.hash(entries[$0].localKey) }, [])
        XCTAssertNil(index.hash(at: entries.count))
    }

    /// A catalog's index agrees with a dictionary of its keys, duplicates and all.
    func testACatalogsIndexAgreesWithADictionaryOfItsKeys() {
        let entries = (0..<3_000).map { entry("urn:uuid:issue-\($0 % 1_000 * 7 % 2_003)") }
        var first: [String: Int] = [:]
        for (position, entry) in entries.enumerated() where first[entry.localKey] == nil { first[entry.localKey] = position }
        let catalog = Catalog(title: nil, entries: entries)
        XCTAssertEqual(catalog.positions.count, first.count)
        XCTAssertEqual(entries.indices.filter { catalog.positions.position(of: entries[$0].localKey, in: catalog.entries) != first[entries[$0].localKey] }, [])
        // Its entries are a public list: cut short or added to, it answers for what is left,
        // and an entry added finds nothing rather than a position past the list.
        var changed = catalog
        changed.entries.removeLast(2_500)
        XCTAssertEqual(changed.entries.indices.filter { changed.positions.position(of: changed.entries[$0].localKey, in: changed.entries) != first[changed.entries[$0].localKey] }, [])
        XCTAssertNil(changed.positions.position(of: entries[900].localKey, in: changed.entries))
        changed.entries.append(entry("added"))
        XCTAssertNil(changed.positions.position(of: entry("added").localKey, in: changed.entries))
    }
}
