/// An extra header a subscription sends to its own origin: checked once, where it is given (the
/// config file or `--header`), so that no request can carry a line break or a false name.
public struct HeaderField: Sendable, Equatable {
    public let name: String
    public let value: String

    /// A header of `name` and `value`; throws what is wrong with them.
    public init(name: String, value: String) throws(SettingError) {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
            throw SettingError(expected: "a header name (\"\(TextSanitizer.inert(name))\" is not one)")
        }
        guard !value.contains("\r") && !value.contains("\n") else {
            throw SettingError(expected: "a value without a line break, which would smuggle in another header")
        }
        self.name = name
        self.value = value
    }

    /// A header written as one line, `Name: value`.
    public init(line: String) throws(SettingError) {
        guard let colon = line.firstIndex(of: ":") else { throw SettingError(expected: "\"Name: value\"") }
        try self.init(name: line[..<colon].trimmingCharacters(in: .whitespaces),
                      value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// The line as sent.
    public var line: String { name + ": " + value }
}
