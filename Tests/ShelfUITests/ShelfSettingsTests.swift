import Foundation
import NewsstandKit
import ShelfUI
import XCTest

/// The shelf's `[keys]` and `[colors]`: read from the configuration's text, checked by the shelf,
/// each mistake named with the file, the line and the key.
final class ShelfSettingsTests: XCTestCase {
    func testKeysAndColoursOfTheShelf() throws {
        let text = """
            [keys]
            toggle-read = "u"
            refresh-all = ["R", "F"]
            back = "backspace"

            [colors]
            header = "black on #ffd700 bold"
            new-badge = "bright-white on color196"
            border = "default"
            """
        let shelf = try ShelfSettings(config: NewsstandConfig.parse(text, path: "c.toml"))
        XCTAssertEqual(shelf.action(for: "u"), .toggleRead)
        XCTAssertNil(shelf.action(for: "m"), "a bound action loses its default key")
        XCTAssertEqual(shelf.action(for: "F"), .refreshAll)
        XCTAssertEqual(shelf.action(for: "escape"), nil, "back is Backspace only now")
        XCTAssertEqual(shelf.action(for: "d"), .download, "unbound actions keep theirs")
        XCTAssertEqual(shelf.colors[.header], ShelfSettings.ColorSpec(foreground: .black, background: .rgb(255, 215, 0), bold: true))
        XCTAssertEqual(shelf.colors[.newBadge], ShelfSettings.ColorSpec(foreground: .palette(15), background: .palette(196)))
        XCTAssertEqual(shelf.colors[.border], ShelfSettings.ColorSpec(foreground: .default))
    }

    func testTheViewTheShelfOpensIn() throws {
        XCTAssertEqual(try ShelfSettings(config: NewsstandConfig.parse("view = \"list\"\n", path: "c.toml")).view, .list)
        XCTAssertEqual(try ShelfSettings(config: NewsstandConfig.parse("jobs = 2\n", path: "c.toml")).view, .grid)
        XCTAssertThrowsError(try NewsstandConfig.parse("jobs = 2\nview = \"tiles\"\n", path: "c.toml")) { error in
            XCTAssertEqual((error as? NewsstandError)?.message, "c.toml:2: view: expected \"grid\" or \"list\".")
        }
        XCTAssertEqual(ShelfSettings().action(for: "v"), .toggleView)
    }

    func testHowCoversAreDrawn() throws {
        XCTAssertEqual(try ShelfSettings(config: NewsstandConfig.parse("covers = \"sixel\"\n", path: "c.toml")).covers, .sixel)
        XCTAssertEqual(try ShelfSettings(config: NewsstandConfig.parse("jobs = 2\n", path: "c.toml")).covers, .auto)
        XCTAssertThrowsError(try NewsstandConfig.parse("jobs = 2\ncovers = \"pixels\"\n", path: "c.toml")) { error in
            XCTAssertEqual((error as? NewsstandError)?.message,
                           "c.toml:2: covers: expected one of \"auto\", \"kitty\", \"sixel\", \"iterm2\", \"symbols\", \"off\".")
        }
    }

    func testAMistakeInKeysOrColoursIsNamedInOneLine() {
        let cases: [(String, String)] = [
            ("[keys]\ndownlaod = \"d\"\n", "c.toml:2: keys.downlaod: no such action; the actions are open, download, cancel,"),
            ("[keys]\nsort = \"d\"\n", "c.toml:2: keys.sort: d is bound to both download and sort."),
            ("[keys]\nhelp = \"j\"\n", "c.toml:2: keys.help: j moves the selection and cannot be bound."),
            ("[keys]\nhelp = \"F1\"\n", "c.toml:2: keys.help: F1 is not a key: use one character, or one of backspace, delete, enter,"),
            ("\n[colors]\nheader = \"purple on blue\"\n", "c.toml:3: colors.header: purple is not a colour or attribute: use black, red,"),
            ("[colors]\ntitle = \"bold blinking\"\n", "c.toml:2: colors.title: blinking is not a colour or attribute"),
            ("[colors]\nheadline = \"red\"\n", "c.toml:2: colors.headline: no such part of the shelf; the parts are header, status,"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ShelfSettings(config: NewsstandConfig.parse(text, path: "c.toml")), text) { error in
                let message = (error as? NewsstandError)?.message ?? "\(error)"
                XCTAssertTrue(message.hasPrefix(expected), "\(message)\n  expected: \(expected)")
                XCTAssertFalse(message.contains("\n"), message)
                XCTAssertEqual((error as? NewsstandError)?.code, .configuration)
            }
        }
    }
}
