import Foundation

/// A value that is not one a setting takes: what a good one looks like.
public struct SettingError: Error, Sendable {
    public let expected: String
}
