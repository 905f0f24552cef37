import Foundation

/// One setting of a subscription as a person writes it — `keep_size = "2 GiB"` in the config
/// file, `--keep-size "2 GiB"` to `subscribe` — with how a value is read into a subscription
/// and written back. The config reader, `subscribe` and the config editor all go through
/// ``all``, so that a setting is defined, checked and written in one place.
public struct SubscriptionSetting: Sendable {
    /// The key in the config file.
    public let key: String
    /// What a good value looks like, the end of every complaint: `a size such as "2 GiB"`.
    public let expected: String
    private let read: @Sendable (SettingValue, inout Subscription) -> Bool
    private let write: @Sendable (Subscription) -> String?

    /// The command-line option of `subscribe` that sets it.
    public var option: String { "--" + key.replacingOccurrences(of: "_", with: "-") }

    /// Sets the subscription's value; throws what a good value looks like when `value` is not one.
    public func apply(_ value: SettingValue, to subscription: inout Subscription) throws(SettingError) {
        guard read(value, &subscription) else { throw SettingError(expected: expected) }
    }

    /// The value as the config file writes it (a TOML string or integer), nil when unset.
    public func tomlValue(of subscription: Subscription) -> String? {
        write(subscription)
    }

    public static let title = SubscriptionSetting(key: "title", expected: "a non-empty string") { value, subscription in
        guard case .text(let text) = value, !text.isEmpty else { return false }
        subscription.title = text
        return true
    } write: { $0.title.map(TOMLText.quoted) }

    public static let autoDownload = SubscriptionSetting(
        key: "auto_download", expected: "\"none\", \"latest\", \"all-free\" or a number of issues"
    ) { value, subscription in
        let parsed: Subscription.AutoDownload? = switch value {
        case .integer(let count): count >= 0 ? Subscription.AutoDownload(String(count)) : nil
        case .text(let text): Subscription.AutoDownload(text)
        }
        guard let parsed else { return false }
        subscription.autoDownload = parsed
        return true
    } write: { $0.autoDownload == .none ? nil : TOMLText.quoted($0.autoDownload.description) }

    public static let keep = counted(key: "keep", expected: "a number of issues, at least 1", 1...Int.max, \.keepIssues)

    public static let keepSize = SubscriptionSetting(key: "keep_size", expected: "a size such as \"2 GiB\"") { value, subscription in
        guard let bytes = value.size else { return false }
        subscription.keepBytes = bytes
        return true
    } write: { $0.keepBytes.map { TOMLText.quoted(TOMLText.size($0)) } }

    public static let caFile = SubscriptionSetting(key: "ca_file", expected: "an absolute path") { value, subscription in
        guard case .text(let path) = value, path.hasPrefix("/") || path.hasPrefix("~/") else { return false }
        subscription.certificateAuthorities = path.hasPrefix("~/") ? NSHomeDirectory() + path.dropFirst(1) : path
        return true
    } write: { $0.certificateAuthorities.map(TOMLText.quoted) }

    public static let jobs = counted(key: "jobs", expected: "a number from 1 to 64", 1...64, \.jobs)

    public static let limitRate = SubscriptionSetting(
        key: "limit_rate", expected: "a speed such as \"500 KiB\" (per second, at least 1 KiB)"
    ) { value, subscription in
        guard let bytes = value.size, bytes >= 1024 else { return false }
        subscription.limitRate = bytes
        return true
    } write: { $0.limitRate.map { TOMLText.quoted(TOMLText.size($0)) } }

    public static let maxPages = counted(key: "max_pages", expected: "a number of pages from 1 to 10,000", 1...10_000, \.maxPages)

    /// Every setting of one value, in the order a new block is written.
    public static let all: [SubscriptionSetting] = [title, autoDownload, keep, keepSize, caFile, jobs, limitRate, maxPages]

    /// A setting that is a whole number within `range`.
    private static func counted(key: String, expected: String, _ range: ClosedRange<Int>,
                                _ field: any WritableKeyPath<Subscription, Int?> & Sendable) -> SubscriptionSetting {
        SubscriptionSetting(key: key, expected: expected) { value, subscription in
            guard case .integer(let count) = value, range.contains(count) else { return false }
            subscription[keyPath: field] = count
            return true
        } write: { $0[keyPath: field].map(String.init) }
    }

    private init(key: String, expected: String, read: @escaping @Sendable (SettingValue, inout Subscription) -> Bool,
                 write: @escaping @Sendable (Subscription) -> String?) {
        self.key = key
        self.expected = expected
        self.read = read
        self.write = write
    }
}
