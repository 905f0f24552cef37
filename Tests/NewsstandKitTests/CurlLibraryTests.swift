@testable import NewsstandKit
import XCTest

/// libcurl is opened on the first transfer rather than linked (an offline command never pays for
/// it): a machine without it, or with something else under its name, gets a sentence naming the
/// library and the package, not a crash.
final class CurlLibraryTests: XCTestCase {
    func testAMissingLibcurlIsNamedWithThePackageToInstall() {
        guard case .failure(let error) = CurlLibrary.open("libcurl-newsstand-missing.so.4") else {
            return XCTFail("a library that does not exist was opened")
        }
        XCTAssertEqual(error.code, .libcurl)
        XCTAssertTrue(error.message.hasPrefix("Could not load libcurl (libcurl-newsstand-missing.so.4): "), error.message)
        XCTAssertTrue(error.message.hasSuffix("(on Debian: apt install libcurl4)."), error.message)
    }

    func testALibraryWithoutLibcurlsEntryPointsIsRefused() {
        guard case .failure(let error) = CurlLibrary.open("libz.so.1") else {
            return XCTFail("zlib was taken for libcurl")
        }
        XCTAssertTrue(error.message.contains("it has no curl_global_init"), error.message)
    }

    func testTheProcesssLibcurlOpens() throws {
        guard case .success = CurlLibrary.shared else { return XCTFail("libcurl.so.4 did not open") }
        guard case .success = CurlLibrary.open(CurlLibrary.soname) else { return XCTFail("a second open failed") }
    }
}
