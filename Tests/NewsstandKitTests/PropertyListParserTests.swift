import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Our property-list parsers against Foundation's on the same files, and the limits they enforce.
final class PropertyListParserTests: XCTestCase {
    /// Everything a property list can hold, in both formats.
    private static var sample: [String: Any] { [
        "Title": "Ünïcode & <markup> \"quoted\" 'single' — 雑誌 👩‍👩‍👧",
        "Empty string": "",
        "Whitespace": "  leading and trailing\n\tlines  ",
        "Control": "bell\u{7}escape\u{1B}[2J",
        "Integers": [0, 1, -1, 255, 256, 65_535, 65_536, Int(Int32.max), Int(Int32.min), Int.max, Int.min],
        "Reals": [0.0, 1.5, -2.25, 1e300, 3.141592653589793],
        "Booleans": [true, false],
        "Dates": [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_767_225_600), Date(timeIntervalSince1970: -86_400 * 400)],
        "Data": Data([0, 1, 2, 253, 254, 255]),
        "Empty data": Data(),
        "Nested": [["a": [["b": ["c"]]]], [String: Any](), [Any]()],
        "Issues": (0..<50).map { ["ID": "i\($0)", "Title": "Issue \($0)", "Free": $0 % 2 == 0, "Size": $0 * 1_000] as [String: Any] },
    ] }

    func testBothFormatsReadExactlyWhatFoundationReads() throws {
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let data = try PropertyListSerialization.data(fromPropertyList: Self.sample, format: format, options: 0)
            let ours = try parse(data)
            let foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            XCTAssertEqual(Self.canonical(ours), Self.canonical(foundation: foundation), "format \(format.rawValue)")
        }
    }

    func testHandWrittenXMLForms() throws {
        let xml = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment before the doctype -->
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
              <key>a</key><string>x &amp; y &lt;z&gt; &#233;&#x1F600;</string>
              <key>b</key><string><![CDATA[<raw> & stuff]]></string>
              <key>c</key><string/>
              <key>d</key><integer> 0x1F </integer>
              <!-- between -->
              <key>e</key><true/>
              <key>f</key><false></false>
              <key>g</key><date>2024-02-29T23:59:59Z</date>
              <key>h</key><data>
                AAEC
                /f7/
              </data>
              <key>i</key><array/>
              <key>j</key><dict/>
              <key>k</key><real>-1.5e3</real>
            </dict></plist>
            """
        let value = try parse(Data(xml.utf8))
        guard case .dictionary(let dictionary) = value else { return XCTFail("\(value)") }
        XCTAssertEqual(dictionary["a"], .string("x & y <z> é😀"))
        XCTAssertEqual(dictionary["b"], .string("<raw> & stuff"))
        XCTAssertEqual(dictionary["c"], .string(""))
        XCTAssertEqual(dictionary["d"], .integer(31))
        XCTAssertEqual(dictionary["e"], .boolean(true))
        XCTAssertEqual(dictionary["f"], .boolean(false))
        XCTAssertEqual(dictionary["g"], .date(Date(timeIntervalSince1970: 1_709_251_199)))
        XCTAssertEqual(dictionary["h"], .data(Data([0, 1, 2, 253, 254, 255])))
        XCTAssertEqual(dictionary["i"], .array([]))
        XCTAssertEqual(dictionary["j"], .dictionary(PropertyListDictionary()))
        XCTAssertEqual(dictionary["k"], .real(-1500))
    }

    func testMalformedXMLIsRefusedWithTheLine() {
        let cases: [(String, String)] = [
            ("<plist><dict><key>a</key><string>x</dict></plist>", "expected </string>"),
            ("<plist><dict><key>a</key></dict></plist>", "a value is missing before </"),
            ("<plist><string>a<b/></string></plist>", "element inside <string>"),
            ("<plist><array><string>x</string>", "ends too early"),
            ("<plist><array></array></plist><array/>", "more after the end"),
            ("<plist><dict><string>a</string></dict></plist>", "other than <key>"),
            ("<plist><integer>12a</integer></plist>", "<integer> holds"),
            ("<plist><integer>9999999999999999999x</integer></plist>", "<integer> holds"),
            ("<plist><date>yesterday</date></plist>", "<date> holds"),
            ("<plist><string>&nbsp;</string></plist>", "unknown entity"),
            ("<plist><string>a & b</string></plist>", "bare &"),
            ("<plist><blink>x</blink></plist>", "unknown element"),
            ("<plist>\n\n<data>!!!</data></plist>", "line 3"),
            ("<!DOCTYPE plist [ <!ELEMENT x ANY> ]><plist><array/></plist>", "internal DTD subset"),
            ("<plist><string>unterminated", "ends inside"),
        ]
        for (xml, expected) in cases {
            XCTAssertThrowsError(try parse(Data(xml.utf8)), xml) { error in
                let reason = (error as? PropertyListError)?.reason ?? "\(error)"
                XCTAssertTrue(reason.contains(expected), "\(xml): \(reason)")
            }
        }
    }

    /// Tag names are compared as words of their bytes: each element is known by its whole name,
    /// and a name that shares all but a byte, or seven bytes and more, is not one of them.
    func testEveryElementIsKnownByItsWholeNameAndNoOther() throws {
        let known = "<plist version=\"1.0\"><array><dict><key>k</key><string>s</string></dict><integer>1</integer>"
            + "<real>1.5</real><date>2020-01-01T00:00:00Z</date><data>AA==</data><true/><false></false><array/></array></plist>"
        XCTAssertEqual(Self.canonical(try parse(Data(known.utf8))), "[{\"k\"=s:\"s\"},i:1,r:1.5,d:1577836800.0,x:AA==,b:true,b:false,[]]")
        // Spaces inside tags, which the quick reading of `<name>` and `</name>` leaves to the careful one.
        let spaced = "<plist ><dict ><key >a</key ><string\t>b</string\n></dict ><!-- c --></plist >"
        XCTAssertEqual(Self.canonical(try parse(Data(spaced.utf8))), "{\"a\"=s:\"b\"}")
        for name in ["ke", "keys", "Key", "dicts", "dic", "integers", "intege", "strings", "strinG", "tru", "falsee", "arra", "plists", "datum", "x",
                     "dictX", "string1", "key-", "true:"] {
            XCTAssertThrowsError(try parse(Data("<plist><\(name)>1</\(name)></plist>".utf8)), name) { error in
                XCTAssertTrue(((error as? PropertyListError)?.reason ?? "").contains("unknown element"), "\(name): \(error)")
            }
        }
        for (open, close) in [("string", "strings"), ("integer", "intege"), ("key", "Key"), ("dict", "dicts"), ("true", "tru")] {
            let xml = switch open {
            case "key": "<plist><dict><key>a</\(close)><string>b</string></dict></plist>"
            case "dict": "<plist><dict></\(close)></plist>"
            default: "<plist><\(open)>1</\(close)></plist>"
            }
            XCTAssertThrowsError(try parse(Data(xml.utf8)), xml) { error in
                XCTAssertTrue(((error as? PropertyListError)?.reason ?? "").contains("expected </\(open)>"), "\(xml): \(error)")
            }
        }
    }

    /// A tag is read as one word of its bytes when ten bytes are left from it, else the careful
    /// way. Each element alone is a file whose last tags are read the careful way; with room
    /// after it, as a word. It reads the same either way, and a name one byte off is refused
    /// either way.
    func testTagsReadAsAWordOrNearTheEndReadAlike() throws {
        let elements: [(xml: String, read: String)] = [
            ("<dict><key>k</key><string>s</string><key>e</key><string/></dict>", "{\"e\"=s:\"\",\"k\"=s:\"s\"}"),
            ("<string>s</string>", "s:\"s\""), ("<string/>", "s:\"\""), ("<integer>7</integer>", "i:7"), ("<real>2.5</real>", "r:2.5"),
            ("<true/>", "b:true"), ("<false/>", "b:false"), ("<false></false>", "b:false"), ("<true></true>", "b:true"),
            ("<date>2020-01-01T00:00:00Z</date>", "d:1577836800.0"), ("<data>AA==</data>", "x:AA=="), ("<array/>", "[]"), ("<dict/>", "{}"),
            ("<array><integer>1</integer></array>", "[i:1]"),
        ]
        for padding in ["", String(repeating: " ", count: 12)] {
            for (xml, read) in elements {
                XCTAssertEqual(Self.canonical(try parse(Data((xml + padding).utf8))), read, "\(xml), padding \(padding.count)")
                XCTAssertEqual(Self.canonical(try parse(Data(("<plist>" + xml + "</plist>" + padding).utf8))), read, "<plist>\(xml), padding \(padding.count)")
            }
            for tag in ["true/", "false/", "array/", "dict/", "string/", "integer/", "key", "date", "data", "real"] {
                let wrong = "<" + tag.replacingOccurrences(of: "/", with: "x/") + ">"
                XCTAssertThrowsError(try parse(Data(("<plist><array>" + wrong + "</array></plist>" + padding).utf8)), wrong)
            }
        }
    }

    func testAnIntegerBeyond64BitsIsReadAndOnlyAnEntryThatNeedsItIsSkipped() throws {
        XCTAssertEqual(try parse(Data("<plist><integer>-99999999999999999999</integer></plist>".utf8)), .bigInteger("-99999999999999999999"))
        let catalog = """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Title</key><string>Big</string>
            <key>Build</key><integer>340282366920938463463374607431768211456</integer><key>Issues</key><array>
            <dict><key>ID</key><string>a</string><key>Title</key><string>A</string><key>Download URL</key><string>http://example.org/a.pdf</string>
              <key>Serial</key><integer>18446744073709551616</integer></dict>
            <dict><key>ID</key><string>b</string><key>Title</key><string>B</string><key>Download URL</key><string>http://example.org/b.pdf</string>
              <key>Size</key><integer>18446744073709551616</integer></dict>
            </array></dict></plist>
            """
        let decoded = try CatalogReader().catalog(Data(catalog.utf8), url: URL(string: "http://example.org/")!)
        XCTAssertEqual(decoded.entries.map(\.id), ["a"], "a number nobody reads changes nothing; an absurd Size skips its entry")
        XCTAssertEqual(decoded.warnings.count, 1)
        XCTAssertTrue(decoded.warnings.first?.description.contains("Size") == true, "\(decoded.warnings)")
    }

    func testMalformedBinaryIsRefused() throws {
        let good = try PropertyListSerialization.data(fromPropertyList: Self.sample, format: .binary, options: 0)
        // Every truncation, and every single-byte corruption of the trailer, fails cleanly or parses.
        for length in stride(from: 0, to: good.count, by: max(1, good.count / 300)) {
            XCTAssertThrowsError(try parse(good.prefix(length)), "truncated to \(length)")
        }
        for offset in (good.count - 32)..<good.count {
            for byte: UInt8 in [0, 1, 0x7F, 0xFF] {
                var bad = good
                bad[offset] = byte
                _ = try? parse(bad)
            }
        }
    }

    func testSharedObjectsCannotExpandWithoutLimit() throws {
        // Twelve arrays, each holding sixteen references to the next: 16^11 leaves from a 400-byte file.
        var objects: [[UInt8]] = [[0x09]]  // object 0: true
        for level in 1...12 {
            objects.append([0xAF, 0x10, 16] + [UInt8](repeating: UInt8(level - 1), count: 16))
        }
        let started = Date()
        XCTAssertThrowsError(try BinaryPropertyListParser.parse(Fixtures.binaryPropertyList(objects), maximumDepth: 16,
                                                                maximumValues: 1_000_000)) { error in
            XCTAssertTrue((error as? PropertyListError)?.reason.contains("expands to more than") ?? false, "\(error)")
        }
        print("refused the expanding binary plist in \(Date().timeIntervalSince(started)) s")
        // And a reference cycle ends at the nesting limit.
        var cycle = objects
        cycle[12][3] = 12
        XCTAssertThrowsError(try BinaryPropertyListParser.parse(Fixtures.binaryPropertyList(cycle), maximumDepth: 16)) { error in
            XCTAssertTrue((error as? PropertyListError)?.reason.contains("nests deeper") ?? false, "\(error)")
        }
    }

    func testRelativeURLsResolveAsFoundationResolvesThem() {
        let bases = ["http://example.test/catalogs/monthly.plist?token=1#top", "https://example.test:8443/", "http://example.test",
                     "file:///srv/catalog/catalog.plist"]
        let references = ["issues/a.pdf", "/issues/a.pdf", "a.pdf?x=1#f", "./a.pdf", "../up/a.pdf", "a/./b/../c.pdf", "..",
                          "//cdn.example.test/a.pdf", "?only=query", "#fragment", "https://other.test/x.pdf", "HTTP://Upper.test/x",
                          "a%20b.pdf", "v1.2/x.pdf", "x.", "file.pdf.", "ftp://example.test/a", "mailto:x@example.test",
                          "http://:80/x", "http://user@/x", "http://user:pw@host.test:81/x", "http://[::1]:8080/x", "https:no-slashes",
                          "http:///path", "//:9/x", "http://h.test?q", "http://h.test#f",
                          "a%2Fb.pdf", "a%2.pdf", "a%zz.pdf", "a%", "a b.pdf", "é.pdf", "a/b:c.pdf", "1a:b.pdf", "a\\b.pdf",
                          "a\"b.pdf", "a<b>.pdf", "a{b}.pdf", "a|b.pdf", "a^b.pdf", "a`b.pdf", "~u/a_b-c!$&'()*+,;=@.pdf",
                          "http://h-1.test:8080/a/b.pdf", "https://h.test:/x", "http://h.test:99999/x", "http://h_t.test/x",
                          "http://h.test:8a/x", "http://h.test/a%41", "https://H.test/X", "http://h.test"]
        for base in bases {
            let baseURL = URL(string: base)!
            let resolver = URLResolver(base: baseURL)
            for reference in references {
                let ours = resolver.resolve(reference, allowFiles: true)
                if let ours {
                    XCTAssertEqual(URL(string: ours)?.absoluteString, ours, "\(reference) against \(base) reads back unchanged")
                }
                let foundation = URL(string: reference, relativeTo: baseURL)?.absoluteURL
                let expected = foundation.flatMap { url -> String? in
                    let scheme = url.scheme?.lowercased()
                    guard scheme == "http" || scheme == "https" || scheme == "file" else { return nil }
                    return scheme == "file" || url.host?.isEmpty == false ? url.absoluteString : nil
                }
                XCTAssertEqual(ours.map(Self.normalized), expected.map(Self.normalized), "\(reference) against \(base)")
            }
        }
    }

    /// References made at random of the bytes that change how an address is read, resolved as
    /// Foundation resolves them (seeded: a failure is found again).
    func testRandomReferencesResolveAsFoundationResolvesThem() {
        let resolver = URLResolver(base: URL(string: "https://example.test/feeds/opds/catalog.xml?p=1")!)
        let base = URL(string: "https://example.test/feeds/opds/catalog.xml?p=1")!
        let pieces = ["a", "Z", "9", "/", "//", ".", "..", "./", "../", "%", "%2F", "%4", "%zz", "?", "#", ":", "http:", "https://h.test",
                      "@", "-", "_", "~", "!", "$", "&", "'", "(", "*", "+", ",", ";", "=", " ", "\"", "<", "[", "]", "{", "|", "^", "`", "\\", "é"]
        var state: UInt64 = 0x0DDB_1A5E_5BAD_5EED
        for _ in 0..<3000 {
            var reference = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for _ in 0..<(1 + Int(state >> 60)) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                reference += pieces[Int(state >> 33) % pieces.count]
            }
            let ours = resolver.resolve(reference, allowFiles: false)
            let foundation = URL(string: reference, relativeTo: base)?.absoluteURL
            let expected = foundation.flatMap { url -> String? in
                let scheme = url.scheme?.lowercased()
                return (scheme == "http" || scheme == "https") && url.host?.isEmpty == false ? url.absoluteString : nil
            }
            XCTAssertEqual(ours.map(Self.normalized), expected.map(Self.normalized), reference.debugDescription)
        }
    }

    /// A relative reference with dot segments comes out as Foundation writes it, letter for letter.
    func testDotSegmentsGoAsFoundationTakesThemAway() {
        let base = URL(string: "http://example.test/feeds/opds/catalog.xml")!
        let resolver = URLResolver(base: base)
        for reference in ["./a.pdf", "a/../b.pdf", "x/.", "x/..", "x/./?q=1", "x/.#f", "x/.?q", "..", "../../../a", "a./b", "a../b.pdf", ".a/b"] {
            let expected = URL(string: reference, relativeTo: base)?.absoluteURL.absoluteString
            XCTAssertEqual(resolver.resolve(reference, allowFiles: false), expected, reference)
        }
    }

    /// The bits of the path characters say what RFC 3986's rule says, for every byte.
    func testPathCharactersByBitFollowTheRule() {
        let rule = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~!$&'()*+,;=:@/".utf8)
        for byte in UInt8.min...UInt8.max {
            XCTAssertEqual(URLResolver.isPathCharacterButDot(byte), rule.contains(byte), "byte \(byte)")
        }
    }

    // MARK: Helpers

    private func parse(_ data: Data) throws -> PropertyListValue {
        data.starts(with: Array("bplist00".utf8))
            ? try BinaryPropertyListParser.parse(data, maximumDepth: 16)
            : try XMLPropertyListParser.parse(data, maximumDepth: 16)
    }

    /// Foundation keeps `..` segments in absolute URLs that were written that way; compare paths without them.
    private static func normalized(_ string: String) -> String {
        URL(string: string)?.standardized.absoluteString ?? string
    }

    private static func canonical(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let string): return "s:" + string.debugDescription
        case .integer(let integer): return "i:\(integer)"
        case .bigInteger(let digits): return "I:" + digits
        case .real(let real): return "r:\(real)"
        case .boolean(let bool): return "b:\(bool)"
        case .date(let date): return "d:\(date.timeIntervalSince1970)"
        case .data(let data): return "x:" + data.base64EncodedString()
        case .array(let array): return "[" + array.map(canonical).joined(separator: ",") + "]"
        case .dictionary(let dictionary):
            return "{" + dictionary.pairs.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }
                .map { "\($0.0.debugDescription)=\(canonical($0.1))" }.joined(separator: ",") + "}"
        }
    }

    private static func canonical(foundation value: Any) -> String {
        if type(of: value) == Bool.self { return "b:\(value as! Bool)" }
        switch value {
        case let string as String: return "s:" + string.debugDescription
        case let date as Date: return "d:\(date.timeIntervalSince1970)"
        case let data as Data: return "x:" + data.base64EncodedString()
        case let array as [Any]: return "[" + array.map { canonical(foundation: $0) }.joined(separator: ",") + "]"
        case let dictionary as [String: Any]:
            return "{" + dictionary.sorted { $0.key < $1.key }
                .map { "\($0.key.debugDescription)=\(canonical(foundation: $0.value))" }.joined(separator: ",") + "}"
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            return type == "d" || type == "f" ? "r:\(number.doubleValue)" : "i:\(number.int64Value)"
        default: return "?\(value)"
        }
    }
}
