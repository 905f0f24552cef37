import NewsstandKit
import XCTest

/// The malloc setting a command that ends soon makes (the shelf does not).
final class ProcessMemoryTests: XCTestCase {
    func testMallocTakesTheSetting() {
        // mallopt answers 1 when it took the value, 0 when it refused it.
        XCTAssertTrue(ProcessMemory.keepFreedMemory(upTo: 64 << 20))
        XCTAssertTrue(ProcessMemory.keepFreedMemory(upTo: 128 << 10), "glibc's own default, back again")
    }
}
