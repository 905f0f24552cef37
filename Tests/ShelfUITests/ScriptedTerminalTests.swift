import Foundation
import NewsstandKit
import ShelfUI
import XCTest

final class ScriptedTerminalTests: XCTestCase {
    func testAStepWhoseScreenNeverComesIsNamedAndTheRunEnds() throws {
        let (newsstand, _, folder) = try LocalNewsstand.make(entries: [["ID": "a", "Title": "Alpha", "Download URL": "a.pdf"]])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let terminal = ScriptedTerminal(width: 60, height: 20, steps: [
            .init(waitFor: "Alpha", event: .key(.character("j"))),
            .init(waitFor: "Omega", event: .key(.enter)),
        ], patience: 1)
        _ = ShelfController(newsstand: newsstand, terminal: terminal).run()
        let unmet = try XCTUnwrap(terminal.unmetStep)
        XCTAssertTrue(unmet.hasPrefix("step 2: the screen never showed “Omega” within 1 s"), unmet)
        XCTAssertTrue(unmet.contains("Alpha"), "what the screen showed instead")
    }
}
