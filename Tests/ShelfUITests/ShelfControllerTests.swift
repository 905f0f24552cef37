import Foundation
import NewsstandKit
import ShelfUI
import XCTest

/// A terminal double: plays a script of events, each once the screen shows what it waits for.
final class ScriptedTerminal: Terminal {
    struct Step {
        var waitFor: String?
        var event: InputEvent
    }

    var width: Int
    var height: Int
    let colorSupport = ColorSupport.none
    private var steps: [Step]
    private(set) var frames: [Buffer] = []
    private let deadline = Date().addingTimeInterval(20)
    /// How many frames there were when the last scripted event was handed out.
    private var framesAtLastEvent = Int.max

    init(width: Int, height: Int, steps: [Step]) {
        self.width = width
        self.height = height
        self.steps = steps
    }

    var screen: String { frames.last?.lines().joined(separator: "\n") ?? "" }

    func draw(_ buffer: Buffer) { frames.append(buffer) }

    func nextEvent(timeout: Double?, wakeDescriptor: Int32) -> InputEvent? {
        guard let step = steps.first else {
            // Quit once the last event's effect has been drawn.
            if frames.count > framesAtLastEvent || Date() > deadline { return .key(.character("q")) }
            var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(timeout ?? 0.2, 0.2) * 1000))
            return nil
        }
        if let text = step.waitFor, !screen.contains(text), Date() < deadline {
            // Not there yet: wait for the controller to be woken (a notification) or a frame to be due.
            var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(timeout ?? 0.2, 0.2) * 1000))
            return nil
        }
        steps.removeFirst()
        framesAtLastEvent = frames.count
        if case .resize(let width, let height) = step.event {
            self.width = width
            self.height = height
        }
        return step.event
    }

    func suspend() {}
    func resume() {}
    func end() {}
}

final class ShelfControllerTests: XCTestCase {
    private func makeStore(count: Int) throws -> (Store, String) {
        let folder = NSTemporaryDirectory() + "newsstand-shelf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let entries: [[String: Any]] = (1...count).map { number in
            ["ID": String(format: "n%02d", number), "Title": String(format: "Number %02d", number), "Download URL": "x.pdf",
             "Free": true, "Release date": Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 86_400)]
        }
        let data = try PropertyListSerialization.data(fromPropertyList: ["Title": "Mag", "Issues": entries], format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: folder + "/catalog.plist"))
        var configuration = Store.Configuration(
            catalogURL: URL(fileURLWithPath: folder + "/catalog.plist"),
            directories: Directories(data: folder + "/data", cache: folder + "/cache", state: folder + "/state"))
        configuration.notificationCenter = NotificationCenter()
        return (Store(configuration: configuration), folder)
    }

    private func selectedTitle(_ terminal: ScriptedTerminal) -> String? {
        // The selected card has the heavy frame; its title is on the card's tenth line.
        guard let buffer = terminal.frames.last else { return nil }
        for y in 0..<buffer.height {
            for x in 0..<buffer.width where buffer[x, y].text == "┏" {
                return String(buffer.lines()[y + 9].dropFirst(x + 1).prefix(16)).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    func testMouseClickSelectsWheelScrollsAndKeysPage() throws {
        let (store, folder) = try makeStore(count: 12)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 60×20: three cards a row, one row visible; newest first (Number 12, 11, 10 …).
        let terminal = ScriptedTerminal(width: 60, height: 20, steps: [
            .init(waitFor: "Number 12", event: .mouse(.click, x: 25, y: 5)),
        ])
        _ = ShelfController(store: store, terminal: terminal).run()
        XCTAssertEqual(selectedTitle(terminal), "Number 11")

        let scroll = ScriptedTerminal(width: 60, height: 20, steps: [
            .init(waitFor: "Number 12", event: .mouse(.scrollDown, x: 5, y: 5)),
            .init(waitFor: "Number 09", event: .key(.pageDown)),
            .init(waitFor: "Number 06", event: .key(.end)),
        ])
        _ = ShelfController(store: store, terminal: scroll).run()
        XCTAssertEqual(selectedTitle(scroll), "Number 01")
        XCTAssertTrue(scroll.screen.contains("Number 03"), "the last row is scrolled into view")
    }

    func testFilterAsYouTypeAndEscapeClears() throws {
        let (store, folder) = try makeStore(count: 12)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let terminal = ScriptedTerminal(width: 80, height: 20, steps: [
            .init(waitFor: "12 of 12", event: .key(.character("/"))),
            .init(waitFor: "Esc clear", event: .key(.character("0"))),
            .init(waitFor: "10 of 12", event: .key(.character("7"))),
            .init(waitFor: "1 of 12", event: .key(.enter)),
        ])
        _ = ShelfController(store: store, terminal: terminal).run()
        XCTAssertTrue(terminal.screen.contains("filter: 07"), terminal.screen)
        XCTAssertEqual(selectedTitle(terminal), "Number 07")

        let cleared = ScriptedTerminal(width: 80, height: 20, steps: [
            .init(waitFor: "12 of 12", event: .key(.character("/"))),
            .init(waitFor: "Esc clear", event: .key(.character("1"))),
            .init(waitFor: "4 of 12", event: .key(.escape)),
        ])
        _ = ShelfController(store: store, terminal: cleared).run()
        XCTAssertTrue(cleared.screen.contains("12 of 12"), cleared.screen)
    }

    func testDoubleClickDownloadsAndAResizeRelaysOut() throws {
        let (store, folder) = try makeStore(count: 3)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("%PDF-1.4\nhello".utf8).write(to: URL(fileURLWithPath: folder + "/x.pdf"))
        let terminal = ScriptedTerminal(width: 60, height: 20, steps: [
            .init(waitFor: "Number 03", event: .mouse(.doubleClick, x: 5, y: 5)),
            .init(waitFor: "READ", event: .resize(width: 100, height: 30)),
            .init(waitFor: "Details", event: .key(.character("s"))),
        ])
        _ = ShelfController(store: store, terminal: terminal).run()
        XCTAssertEqual(store.issue(withID: "n03")?.pdfPath, store.library.pdfPath(for: "n03"))
        XCTAssertTrue(terminal.screen.contains("sort: title"), terminal.screen)
        XCTAssertEqual(terminal.frames.last?.width, 100)
    }
}
