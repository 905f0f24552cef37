import Foundation
@testable import NewsstandKit
import XCTest

/// One table of settings: what the config editor writes, the config reader reads back, and both
/// refuse a bad value in the same words.
final class SubscriptionSettingTests: XCTestCase {
    func testEverySettingWrittenIsReadBackTheSame() throws {
        var subscription = Subscription(name: "weekly", url: URL(string: "https://weekly.example/catalog.plist")!)
        let values: [(SubscriptionSetting, SettingValue)] = [
            (.title, .text("The \"Weekly\"")), (.autoDownload, .text("3")), (.keep, .integer(5)), (.keepSize, .text("2 GiB")),
            (.caFile, .text("/etc/ssl/weekly.pem")), (.jobs, .integer(2)), (.limitRate, .text("500 KiB")), (.maxPages, .integer(40)),
        ]
        XCTAssertEqual(values.map(\.0.key), SubscriptionSetting.all.map(\.key), "every setting in the table is tried")
        for (setting, value) in values { try setting.apply(value, to: &subscription) }
        subscription.headers = [try HeaderField(line: "User-Agent: Weekly/3")]
        subscription.query = [try Subscription.queryArgument("app=4")]
        let text = ConfigEditor.block(for: subscription)
        let back = try XCTUnwrap(try NewsstandConfig.parse(text, path: "config.toml").subscription(named: "weekly"))
        XCTAssertEqual(back, subscription, text)
        XCTAssertEqual(back.keepBytes, 2 << 30)
        XCTAssertEqual(back.autoDownload, .latest(3))
    }

    func testABadValueIsRefusedInTheSameWordsEverywhere() throws {
        let bad: [(SubscriptionSetting, SettingValue)] = [
            (.title, .text("")), (.autoDownload, .text("sometimes")), (.keep, .integer(0)), (.keepSize, .text("big")),
            (.caFile, .text("relative.pem")), (.jobs, .integer(65)), (.limitRate, .text("10")), (.maxPages, .integer(0)),
        ]
        for (setting, value) in bad {
            var subscription = Subscription(name: "a", url: URL(string: "http://a.example/c")!)
            XCTAssertThrowsError(try setting.apply(value, to: &subscription), setting.key) { error in
                XCTAssertEqual((error as? SettingError)?.expected, setting.expected)
            }
            let toml: String = switch value {
            case .text(let text): TOMLText.quoted(text)
            case .integer(let number): String(number)
            }
            let text = "[subscriptions.a]\nurl = \"http://a.example/c\"\n\(setting.key) = \(toml)\n"
            XCTAssertThrowsError(try NewsstandConfig.parse(text, path: "config.toml"), setting.key) { error in
                XCTAssertEqual((error as? NewsstandError)?.message, "config.toml:3: subscriptions.a.\(setting.key): expected \(setting.expected).")
            }
        }
        XCTAssertEqual(SubscriptionSetting.keepSize.option, "--keep-size")
    }
}
