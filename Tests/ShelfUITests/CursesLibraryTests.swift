@testable import ShelfUI
import XCTest

/// ncursesw is opened when the shelf starts, not linked: what it says when that fails.
final class CursesLibraryTests: XCTestCase {
    func testTheSystemsCursesLibraryOpensWithEveryEntryPoint() {
        guard case .success = CursesTerminal.Library.open(CursesTerminal.Library.soname) else {
            return XCTFail("\(CursesTerminal.Library.soname) did not open with every entry point the shelf uses")
        }
    }

    func testAMissingCursesLibrarySaysWhatToInstall() {
        guard case .failure(let problem) = CursesTerminal.Library.open("libncursesw-not-here.so.6") else {
            return XCTFail("a library that is not there opened")
        }
        XCTAssertTrue(problem.message.hasPrefix("The shelf needs ncursesw (libncursesw-not-here.so.6), which could not be loaded: "), problem.message)
        XCTAssertTrue(problem.message.contains("apt install libncursesw6"), problem.message)
        XCTAssertTrue(problem.message.contains("newsstand list"), "what works without it: \(problem.message)")
    }

    func testALibraryWithoutAnEntryPointNamesIt() {
        // The C library opens, but it is not curses: the first entry point looked up is missing.
        guard case .failure(let problem) = CursesTerminal.Library.open("libc.so.6") else {
            return XCTFail("libc passed for curses")
        }
        XCTAssertTrue(problem.message.contains("it has no set_escdelay"), problem.message)
    }
}
