import Foundation

/// Changes the configuration file the way a careful person would: a new subscription is a block
/// appended at the end, a removed one is its block cut out; every other line, comments and all,
/// stays as it was. The result is read back before it is written, and written atomically.
public struct ConfigEditor {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    private static let newFileHeader = """
        # newsstand configuration: see `man newsstand` or the README for every setting.
        # max_storage = "20 GiB"   # the most all downloaded issues may take
        # jobs = 3                 # downloads at once, across all subscriptions

        """

    /// Appends a `[subscriptions.NAME]` block; refuses a name already used.
    public func add(_ subscription: Subscription) throws(NewsstandError) {
        let text = try currentText() ?? Self.newFileHeader
        if let config = try? NewsstandConfig.parse(text, path: path), config.subscription(named: subscription.name) != nil {
            throw NewsstandError(.configuration, "A subscription named \(subscription.name) exists already: choose another --name.")
        }
        var updated = text
        if !updated.isEmpty && !updated.hasSuffix("\n") { updated += "\n" }
        if !updated.isEmpty && !updated.hasSuffix("\n\n") { updated += "\n" }
        updated += Self.block(for: subscription)
        try write(updated)
    }

    /// Cuts out the subscription's block (and the comment lines right above it).
    public func remove(name: String) throws(NewsstandError) {
        guard let text = try currentText() else {
            throw NewsstandError(.unknownSubscription, "There is no subscription named \(TextSanitizer.inert(name)) (no configuration file yet).")
        }
        let lines = ConfigText(text).lines
        let table = "subscriptions." + name
        guard let header = lines.firstIndex(where: { ConfigText.header($0) == table }) else {
            let config = try NewsstandConfig.parse(text, path: path)
            if config.subscription(named: name) != nil {
                throw NewsstandError(.configuration, "\(path): \(name) is not written as a [\(table)] table; remove it by hand.")
            }
            throw NewsstandError(.unknownSubscription, "There is no subscription named \(TextSanitizer.inert(name)).")
        }
        var end = header + 1
        while end < lines.count {
            if let other = ConfigText.header(lines[end]), other != table, !other.hasPrefix(table + ".") { break }
            end += 1
        }
        // Comment lines that run straight into the next table belong to it.
        if end < lines.count {
            while end - 1 > header, Self.isComment(lines[end - 1]) { end -= 1 }
        }
        var start = header
        while start > 0, Self.isComment(lines[start - 1]) { start -= 1 }
        var kept = Array(lines[..<start]) + Array(lines[end...])
        // One blank line where the block was, not two.
        if start > 0, start < kept.count, kept[start - 1].trimmingCharacters(in: .whitespaces).isEmpty,
           kept[start].trimmingCharacters(in: .whitespaces).isEmpty {
            kept.remove(at: start)
        }
        try write(kept.joined(separator: "\n"))
    }

    private static func isComment(_ line: Substring) -> Bool {
        line.trimmingCharacters(in: .whitespaces).hasPrefix("#")
    }

    private func currentText() throws(NewsstandError) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let text = String(data: data, encoding: .utf8) else { throw NewsstandError(.configuration, "\(path): is not UTF-8 text.") }
        return text
    }

    private func write(_ text: String) throws(NewsstandError) {
        // Never leave a file the next start cannot read.
        _ = try NewsstandConfig.parse(text, path: path)
        let folder = (path as NSString).deletingLastPathComponent
        try FileOps.makeDirectory(folder, trusted: folder)
        var mode: mode_t = 0o600
        var info = stat()
        if stat(path, &info) == 0 { mode = info.st_mode & 0o777 }
        try FileOps.writeAtomically(Data(text.utf8), to: path, mode: mode)
    }

    /// The TOML block for a subscription, settings in a fixed order.
    static func block(for subscription: Subscription) -> String {
        var lines = ["[subscriptions.\(subscription.name)]", "url = \(quoted(subscription.url.absoluteString))"]
        for setting in SubscriptionSetting.all {
            if let value = setting.tomlValue(of: subscription) { lines.append("\(setting.key) = \(value)") }
        }
        lines += credentialLines(subscription.credentials)
        if !subscription.headers.isEmpty {
            lines.append("headers = { \(subscription.headers.map { "\(quoted($0.name)) = \(quoted($0.value))" }.joined(separator: ", ")) }")
        }
        if !subscription.query.isEmpty {
            lines.append("query = { \(subscription.query.map { "\(quoted($0.name)) = \(quoted($0.value))" }.joined(separator: ", ")) }")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func quoted(_ text: String) -> String { TOMLText.quoted(text) }

    /// The keys that say where a subscription's credentials come from.
    static let credentialKeys: Set<String> = ["user", "password_command", "password_env", "auth", "token_command", "token_env", "netrc"]

    static func credentialLines(_ credentials: Subscription.CredentialSource?) -> [String] {
        switch credentials {
        case .basic(let user, let password, let pin)?:
            return ["user = \(quoted(user))", secretLine("password", password)] + (pin.map { ["auth = \"\($0.rawValue)\""] } ?? [])
        case .bearer(let token)?:
            return [secretLine("token", token)]
        case .netrc?:
            return ["netrc = true"]
        case nil:
            return []
        }
    }

    /// Replaces the credential lines of a subscription's block (or adds them after its `url`),
    /// leaving every other line of the file — the block's comments and settings too — as it was.
    public func setCredentials(_ credentials: Subscription.CredentialSource?, of name: String) throws(NewsstandError) {
        guard let text = try currentText() else {
            throw NewsstandError(.unknownSubscription, "There is no subscription named \(TextSanitizer.inert(name)) (no configuration file yet).")
        }
        var lines = ConfigText(text).lines.map(String.init)
        let table = "subscriptions." + name
        guard let header = lines.firstIndex(where: { ConfigText.header(Substring($0)) == table }) else {
            throw NewsstandError(.unknownSubscription, "There is no subscription named \(TextSanitizer.inert(name)) written as a [\(table)] table.")
        }
        var end = header + 1
        while end < lines.count, ConfigText.header(Substring(lines[end])) == nil { end += 1 }
        func key(_ line: String) -> String? {
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return line[..<equals].trimmingCharacters(in: .whitespaces)
        }
        var insertAt = header + 1
        var index = header + 1
        while index < end {
            if let name = key(lines[index]), Self.credentialKeys.contains(name) {
                lines.remove(at: index)
                end -= 1
                continue
            }
            if key(lines[index]) == "url" { insertAt = index + 1 }
            index += 1
        }
        lines.insert(contentsOf: Self.credentialLines(credentials), at: insertAt)
        try write(lines.joined(separator: "\n"))
    }

    private static func secretLine(_ kind: String, _ source: Subscription.SecretSource) -> String {
        switch source {
        case .command(let command): return "\(kind)_command = \(quoted(command))"
        case .environment(let variable): return "\(kind)_env = \(quoted(variable))"
        }
    }
}
