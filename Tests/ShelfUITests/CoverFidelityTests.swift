import Foundation
@testable import ShelfUI
import XCTest

/// The measure the covers' colours are chosen by: CIEDE2000 as its authors' test data gives it,
/// and the part of a cell each symbol fills.
final class CoverFidelityTests: XCTestCase {
    func testCIEDE2000MatchesSharmaWuAndDalalsTestData() {
        let pairs: [((Double, Double, Double), (Double, Double, Double), Double)] = [
            ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
            ((50, 0, 0), (50, -1, 2), 2.3669),
            ((50, 2.5, 0), (73, 25, -18), 27.1492),
            ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
            ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
        ]
        for (first, second, expected) in pairs {
            XCTAssertEqual(CoverFidelity.ciede2000(first, second), expected, accuracy: 0.0001, "\(first) \(second)")
        }
    }

    func testEachSymbolFillsItsPartsOfTheCell() {
        XCTAssertEqual(CoverFidelity.mask(of: " "), 0)
        XCTAssertEqual(CoverFidelity.mask(of: "█"), 0xFFF)
        XCTAssertEqual(CoverFidelity.mask(of: "▀"), 0b0000_0011_1111)
        XCTAssertEqual(CoverFidelity.mask(of: "▐"), 0b1010_1010_1010)
        XCTAssertEqual(CoverFidelity.mask(of: "▘"), 0b0000_0001_0101, "upper left quadrant")
        XCTAssertEqual(CoverFidelity.mask(of: "▟"), 0b1111_1110_1010)
        XCTAssertEqual(CoverFidelity.mask(of: "\u{1FB00}"), 0b0101, "sextant 1: the top left sixth")
        XCTAssertEqual(CoverFidelity.mask(of: "\u{1FB14}"), 0b0101_0101_1010, "pattern 22 (21 is the left half): top right, middle and bottom left")
        XCTAssertEqual(CoverFidelity.mask(of: "\u{1FB3B}"), 0b1111_1111_1010, "pattern 62: all but the top left")
        XCTAssertNil(CoverFidelity.mask(of: "x"))
    }
}
