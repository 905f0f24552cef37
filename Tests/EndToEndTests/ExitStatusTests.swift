import Foundation
import TestSupport
import XCTest

/// One failure, one exit status, whatever the command: the table the manual prints.
final class ExitStatusTests: XCTestCase {
    func testTheSameFailureExitsWithTheSameStatusFromEveryCommand() throws {
        let folder = TemporaryDirectory()
        let runner = CommandRunner(folder: folder)
        for arguments in [["search", "nosuch", "words"], ["login", "nosuch", "--clear"], ["list", "--subscription", "nosuch"]] {
            let result = try runner.run(arguments)
            XCTAssertEqual(result.status, 3, "\(arguments): \(result.error)")
            XCTAssertTrue(result.error.contains("no subscription") || result.error.contains("no subscription named"), result.error)
        }
        for url in ["ftp://example.org/catalog.plist", "http://", "http://exa mple.org/catalog.plist", "https:///catalog.plist"] {
            let result = try runner.run("subscribe", url)
            XCTAssertEqual(result.status, 64, "\(url): \(result.error)")
            XCTAssertTrue(result.error.contains("is neither an http(s) URL nor a local file"), result.error)
        }
        let table = try runner.run("exit-status")
        XCTAssertEqual(table.status, 0)
        let codes = table.output.split(separator: "\n").compactMap { Int($0.split(separator: "\t").first ?? "") }
        XCTAssertEqual(codes, [0, 1, 2, 3, 4, 5, 6, 64, 75])
    }
}
