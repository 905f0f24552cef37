import Foundation
import NewsstandKit
@testable import ShelfUI
import XCTest

/// Pictures of covers: kitty's sequences, the placements found in a frame and what each
/// protocol is sent for them, and the terminal's answers to the probe.
final class PictureTests: XCTestCase {
    func testPlaceholderCellsNameTheirRowColumnAndImage() {
        for row in 0..<9 {
            for column in 0..<12 {
                let text = KittyGraphics.cellText(row: row, column: column)
                XCTAssertEqual(text.unicodeScalars.first, "\u{10EEEE}")
                XCTAssertTrue(KittyGraphics.position(of: text)! == (row, column))
            }
        }
        XCTAssertNil(KittyGraphics.position(of: "x"))
        XCTAssertEqual(KittyGraphics.id(of: KittyGraphics.color(for: 0x4E_0123)), 0x4E_0123)
        XCTAssertEqual(KittyGraphics.color(for: 200), .palette(200), "a palette index where the terminal has 256 colours")
    }

    func testAnUploadComesInPiecesOf4096AndTmuxGetsItWrapped() {
        let rgba = [UInt8](repeating: 7, count: 40 * 60 * 4)
        let upload = String(decoding: KittyGraphics.transmit(id: 0x4E_0101, rgba: rgba, width: 40, height: 60), as: UTF8.self)
        let pieces = upload.components(separatedBy: "\u{1B}_G").dropFirst()
        XCTAssertEqual(pieces.count, (rgba.count * 4 / 3 + 4095) / 4096)
        XCTAssertTrue(pieces.first!.hasPrefix("a=t,q=2,f=32,s=40,v=60,i=5112065,m=1;"), pieces.first!)
        XCTAssertTrue(pieces.last!.hasPrefix("m=0;"))
        XCTAssertTrue(pieces.dropLast().allSatisfy { $0.hasSuffix("\u{1B}\\") && $0.split(separator: ";")[1].count == 4096 + 2 })
        let payload = pieces.map { String($0.split(separator: ";")[1].dropLast(2)) }.joined()
        XCTAssertEqual(Data(base64Encoded: payload), Data(rgba))

        let wrapped = KittyGraphics.throughTmux(Array("\u{1B}_Ga=p\u{1B}\\".utf8))
        XCTAssertEqual(String(decoding: wrapped, as: UTF8.self), "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=p\u{1B}\u{1B}\\\u{1B}\\")
    }

    private func store(_ pictureProtocol: PictureProtocol) -> PictureStore {
        let store = PictureStore(support: PictureSupport(pictureProtocol: pictureProtocol), colors: .direct)
        for _ in 0..<3 {
            let id = store.nextID()
            store.add(PictureStore.Picture(id: id, columns: 3, rows: 2, payload: Array("<\(id)>".utf8)))
        }
        return store
    }

    /// A 20×8 frame with pictures 1 and 2 (of the store's first IDs) at the given cells.
    private func frame(_ pictures: [(index: Int, x: Int, y: Int)], store: PictureStore, overlay: Rect? = nil) -> Buffer {
        var buffer = Buffer(width: 20, height: 8)
        for picture in pictures {
            CoverImage.picture(id: 0x4E_0100 + UInt32(picture.index), columns: 3, rows: 2)
                .render(into: &buffer, area: Rect(x: picture.x, y: picture.y, width: 3, height: 2))
        }
        if let overlay { buffer.fill(overlay, with: Cell("#")) }
        return buffer
    }

    func testSixelsArePaintedOnceAndTheirRowsWrittenAgainWhenTheyGo() {
        let store = store(.sixel)
        var layer = PictureLayer(store: store)
        XCTAssertFalse(layer.drawsPlaceholderCells)
        var step = layer.frame(for: frame([(1, 2, 1), (2, 10, 1)], store: store), repainted: true)
        XCTAssertEqual(step.after.map { "\($0.x),\($0.y):" + String(decoding: $0.bytes, as: UTF8.self) }, ["2,1:<5112065>", "10,1:<5112066>"])
        XCTAssertTrue(step.redrawRows.isEmpty)

        // The same frame again: nothing is sent.
        step = layer.frame(for: frame([(1, 2, 1), (2, 10, 1)], store: store), repainted: false)
        XCTAssertTrue(step.after.isEmpty && step.redrawRows.isEmpty && step.before.isEmpty)

        // A dialog over part of the second: its rows are written again, and the first, on them
        // too, is painted again.
        step = layer.frame(for: frame([(1, 2, 1), (2, 10, 1)], store: store, overlay: Rect(x: 11, y: 2, width: 5, height: 3)), repainted: false)
        XCTAssertEqual(step.redrawRows, [1, 2])
        XCTAssertEqual(step.after.map(\.x), [2], "the first is painted again over its rewritten rows")

        // The dialog closes: the second is painted again.
        step = layer.frame(for: frame([(1, 2, 1), (2, 10, 1)], store: store), repainted: false)
        XCTAssertEqual(step.after.map(\.x), [10])

        // A repaint (a resize) sends everything again.
        step = layer.frame(for: frame([(1, 2, 1)], store: store), repainted: true)
        XCTAssertEqual(step.after.map(\.x), [2])
        XCTAssertTrue(step.redrawRows.isEmpty, "the cleared screen has no picture to erase")
    }

    func testKittyPlaceholdersAreUploadedOnceAndDirectPlacementsDeletedByID() {
        let placeholders = store(.kittyPlaceholders)
        var layer = PictureLayer(store: placeholders)
        XCTAssertTrue(layer.drawsPlaceholderCells)
        var step = layer.frame(for: frame([(1, 2, 1), (1, 10, 4)], store: placeholders), repainted: true)
        let sent = String(decoding: step.before, as: UTF8.self)
        XCTAssertEqual(sent.components(separatedBy: "<5112065>").count, 2, "one upload for the same cover twice: \(sent)")
        XCTAssertTrue(sent.contains("a=p,U=1,q=2,i=5112065,c=3,r=2"))
        XCTAssertTrue(step.after.isEmpty, "the cells show it")
        step = layer.frame(for: frame([(1, 5, 1)], store: placeholders), repainted: false)
        XCTAssertTrue(step.before.isEmpty, "moved: the terminal has it")

        let direct = store(.kittyDirect)
        var placed = PictureLayer(store: direct)
        step = placed.frame(for: frame([(1, 2, 1)], store: direct), repainted: true)
        XCTAssertEqual(String(decoding: step.before, as: UTF8.self), "<5112065>")
        XCTAssertTrue(String(decoding: step.after[0].bytes, as: UTF8.self).contains("a=p,q=2,i=5112065,p=1003,c=3,r=2,C=1"))
        step = placed.frame(for: frame([(1, 6, 1)], store: direct), repainted: false)
        XCTAssertEqual(String(decoding: step.before, as: UTF8.self), "\u{1B}_Ga=d,d=i,q=2,i=5112065,p=1003\u{1B}\\", "the old place is deleted, the image kept")
        XCTAssertTrue(String(decoding: step.after[0].bytes, as: UTF8.self).contains("p=1007"))
    }

    /// The store keeps pictures up to its cap in bytes, letting the oldest go first; an ID used
    /// again is let go from the cover that had it.
    func testTheStoreLetsTheOldestPicturesGoAtItsCap() {
        let store = PictureStore(support: PictureSupport(pictureProtocol: .sixel), colors: .basic, maximumBytes: 25)
        func add(_ id: UInt32) -> [UInt32] { store.add(PictureStore.Picture(id: id, columns: 1, rows: 1, payload: [UInt8](repeating: 0, count: 10))) }
        XCTAssertEqual(add(16), [])
        XCTAssertEqual(add(17), [])
        XCTAssertEqual(add(18), [16], "30 bytes: the oldest goes")
        XCTAssertNil(store.picture(16))
        XCTAssertNotNil(store.picture(17))
        XCTAssertEqual(add(17), [17], "used again")
        XCTAssertEqual(add(19), [18], "17 is the newest now")
        XCTAssertEqual((0..<240).map { _ in store.nextID() }.min(), 16, "palette IDs above the 16 basic colours")
    }

    /// chafa writes sixel and iTerm2 pictures sized for the cells they cover.
    func testSixelAndITerm2PicturesFromChafa() throws {
        var rgba = [UInt8](repeating: 255, count: 60 * 90 * 4)
        for index in stride(from: 0, to: rgba.count, by: 4) { rgba[index + 1] = 0 }  // magenta
        let sixel = String(decoding: ChafaCanvas.picture(rgba: rgba, width: 60, height: 90, columns: 6, rows: 5, cellWidth: 10, cellHeight: 18,
                                                         sixel: true), as: UTF8.self)
        XCTAssertTrue(sixel.hasPrefix("\u{1B}P0;1;0q\"1;1;60;90"), String(sixel.prefix(40)))
        XCTAssertTrue(sixel.hasSuffix("\u{1B}\\"))
        let inline = String(decoding: ChafaCanvas.picture(rgba: rgba, width: 60, height: 90, columns: 6, rows: 5, cellWidth: 10, cellHeight: 18,
                                                          sixel: false), as: UTF8.self)
        XCTAssertTrue(inline.hasPrefix("\u{1B}]1337;File=inline=1;width=6;height=5;"), String(inline.prefix(60)))
        XCTAssertTrue(inline.hasSuffix("\u{07}"))
    }

    func testTheProbeReadsEachAnswerAndHandsBackKeysTypedMeanwhile() {
        let answers = "\u{1B}_Gi=31;OK\u{1B}\\" + "\u{1B}[6;20;10t" + "\u{1B}P>|kitty(0.35.2)\u{1B}\\" + "j" + "\u{1B}[A" + "\u{1B}[?62;4;22c" + "q"
        let parsed = TerminalGraphicsProbe.parse(Array(answers.utf8))
        XCTAssertTrue(parsed.complete)
        XCTAssertTrue(parsed.answers.kitty)
        XCTAssertEqual(parsed.answers.deviceAttributes, [62, 4, 22])
        XCTAssertTrue(parsed.answers.cellSize! == (10, 20))
        XCTAssertEqual(parsed.answers.version, "kitty(0.35.2)")
        XCTAssertEqual(String(decoding: parsed.typed, as: UTF8.self), "j\u{1B}[Aq")
        XCTAssertFalse(TerminalGraphicsProbe.parse(Array("\u{1B}_Gi=31;OK\u{1B}\\".utf8)).complete, "not until DA1's answer")
    }

    func testWhatEachTerminalGets() {
        func support(_ choice: CoverGraphics, _ answers: String?, environment: [String: String] = [:],
                     tmux: (String, Bool)? = nil, colors: ColorSupport = .direct) -> PictureSupport? {
            TerminalGraphicsProbe.support(for: choice, environment: environment, colors: colors, ask: {
                answers.map { TerminalGraphicsProbe.parse(Array($0.utf8)).answers }
            }, tmux: { tmux.map { (terminal: $0.0, passthrough: $0.1) } })
        }
        let xterm = "\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[?63;1;2;4;6;9;15;16;22;28c"
        let oldKitty = "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}[?62;c"
        let newKitty = "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;22;11t\u{1B}P>|kitty(0.35.2)\u{1B}\\\u{1B}[?62;c"
        XCTAssertEqual(support(.auto, xterm)?.pictureProtocol, .sixel)
        XCTAssertEqual(support(.auto, oldKitty)?.pictureProtocol, .kittyDirect, "kitty before 0.28 has no placeholders")
        XCTAssertEqual(support(.auto, newKitty), PictureSupport(pictureProtocol: .kittyPlaceholders, cellWidth: 11, cellHeight: 22))
        XCTAssertNil(support(.auto, "\u{1B}[?62;22c"), "DA1 alone: no pictures")
        XCTAssertNil(support(.auto, nil), "a terminal that answers nothing: symbols")
        XCTAssertEqual(support(.auto, nil, environment: ["TERM_PROGRAM": "WezTerm"])?.pictureProtocol, .iterm2)
        XCTAssertNil(support(.auto, xterm, colors: .none), "NO_COLOR: title cards")
        XCTAssertNil(support(.symbols, newKitty))
        XCTAssertNil(support(.off, newKitty))
        XCTAssertEqual(support(.sixel, nil)?.pictureProtocol, .sixel, "asked for: given")
        // Inside tmux: kitty's placeholders when the outer terminal is kitty and tmux passes them.
        XCTAssertEqual(support(.auto, nil, environment: ["TMUX": "/tmp/x"], tmux: ("xterm-kitty", true)),
                       PictureSupport(pictureProtocol: .kittyPlaceholders, throughTmux: true))
        XCTAssertNil(support(.auto, nil, environment: ["TMUX": "/tmp/x"], tmux: ("xterm-kitty", false)), "passthrough off")
        XCTAssertNil(support(.auto, nil, environment: ["TMUX": "/tmp/x"], tmux: ("xterm-256color", true)))
        XCTAssertNil(support(.sixel, nil, environment: ["TMUX": "/tmp/x"], tmux: ("xterm-256color", true)), "tmux 3.3 passes no sixels")
    }

    /// Through ssh the answers cross the network: the wait allows a far host's round trip.
    func testTheProbeWaitsLongerForATerminalReachedThroughSSH() {
        XCTAssertEqual(TerminalGraphicsProbe.deadline(environment: ["TERM": "xterm-256color"]), TerminalGraphicsProbe.deadline)
        XCTAssertEqual(TerminalGraphicsProbe.deadline(environment: ["SSH_TTY": "/dev/pts/3"]), TerminalGraphicsProbe.remoteDeadline)
        XCTAssertEqual(TerminalGraphicsProbe.deadline(environment: ["SSH_CONNECTION": "10.0.0.2 51234 10.0.0.1 22"]), TerminalGraphicsProbe.remoteDeadline)
        XCTAssertEqual(TerminalGraphicsProbe.deadline(environment: ["SSH_TTY": ""]), TerminalGraphicsProbe.deadline)
        XCTAssertGreaterThan(TerminalGraphicsProbe.remoteDeadline, 0.5)
    }

    /// A pty that answers nothing holds the first frame no longer than the deadline; one that
    /// answers is done at its answer.
    func testTheProbeWaitsForAnAnswerNoLongerThanItsDeadline() throws {
        var master: Int32 = 0, slave: Int32 = 0
        XCTAssertEqual(openpty(&master, &slave, nil, nil, nil), 0)
        defer {
            close(master)
            close(slave)
        }
        let started = Date()
        let silent = TerminalGraphicsProbe.ask(input: slave, output: slave, deadline: 0.3)
        let waited = Date().timeIntervalSince(started)
        XCTAssertNil(silent.answers)
        XCTAssertGreaterThanOrEqual(waited, 0.3)
        XCTAssertLessThan(waited, 1.5, "held no longer than the deadline (and the test's slack)")
        var drained = [UInt8](repeating: 0, count: 4096)
        _ = read(master, &drained, drained.count)

        // A terminal that answers at once, on another thread.
        let answerer = Thread { [master] in
            var query = [UInt8](repeating: 0, count: 4096)
            var received: [UInt8] = []
            while !String(decoding: received, as: UTF8.self).contains("\u{1B}[c") {
                let count = read(master, &query, query.count)
                guard count > 0 else { return }
                received += query[0..<count]
            }
            let answer = Array("\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[?63;4c".utf8)
            _ = answer.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }
        answerer.start()
        let answering = Date()
        let answered = TerminalGraphicsProbe.ask(input: slave, output: slave, deadline: 5)
        XCTAssertLessThan(Date().timeIntervalSince(answering), 2, "done at the answer, not at the deadline")
        XCTAssertEqual(answered.answers?.deviceAttributes, [63, 4])
        XCTAssertEqual(answered.answers?.version, "XTerm(379)")
    }
}
