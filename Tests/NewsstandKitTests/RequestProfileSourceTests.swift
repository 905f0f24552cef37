import Foundation
@testable import NewsstandKit
import XCTest

/// Where a subscription's secret comes from: a variable of the environment it was given, or of
/// the process's own, read when the profile is first asked for.
final class RequestProfileSourceTests: XCTestCase {
    private func subscription(token variable: String) -> Subscription {
        var subscription = Subscription(name: "club", url: URL(string: "https://club.example/issues.plist")!)
        subscription.credentials = .bearer(.environment(variable))
        return subscription
    }

    func testAGivenEnvironmentIsTheOneRead() throws {
        let source = RequestProfileSource(subscription: subscription(token: "CLUB_TOKEN"), environment: ["CLUB_TOKEN": "t-given"])
        XCTAssertEqual(try source.profile()?.credentials, .bearer(token: "t-given"))
    }

    func testTheProcesssOwnIsReadWhenTheProfileIsFirstAskedFor() throws {
        let variable = "NEWSSTAND_TEST_TOKEN_\(getpid())"
        unsetenv(variable)
        defer { unsetenv(variable) }
        let source = RequestProfileSource(subscription: subscription(token: variable))
        // Set after the source was made, before it was asked: a sync makes every source at start.
        setenv(variable, "t-process", 1)
        XCTAssertEqual(try source.profile()?.credentials, .bearer(token: "t-process"))

        let unset = RequestProfileSource(subscription: subscription(token: variable + "_UNSET"))
        XCTAssertThrowsError(try unset.profile()) { error in
            XCTAssertEqual((error as? NewsstandError)?.code, .unauthorized)
            XCTAssertTrue((error as? NewsstandError)?.message.contains("$\(variable)_UNSET, which is not set") ?? false, "\(error)")
        }
    }
}
