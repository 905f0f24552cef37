import Foundation
@testable import NewsstandKit
import XCTest

final class StoreStatusTests: XCTestCase {
    /// The status line's time agrees with a DateFormatter's, which it replaced (one was made per frame).
    func testTheTimeIsTheClockTodayAndTheDateBefore() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        let now = Date()
        for offset: TimeInterval in [0, -3_600, -172_800, -34_560_000, -0.4] {
            let date = now.addingTimeInterval(offset)
            formatter.dateFormat = Calendar.current.isDate(date, inSameDayAs: now) ? "HH:mm" : "yyyy-MM-dd HH:mm"
            XCTAssertEqual(Store.Status.time(date, now: now), formatter.string(from: date), "offset \(offset)")
        }
    }
}
