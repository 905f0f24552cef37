import Foundation

/// A publication the reader follows: a stable local name, its catalog, and its settings.
///
/// The name is the subscription's folder and its handle in commands (`weekly/2026-01`): it stays
/// when the catalog's URL changes, and so does the library.
public struct Subscription: Sendable, Equatable {
    public var name: String
    public var url: URL
    /// A title to show instead of the catalog's.
    public var title: String?
    public var autoDownload: AutoDownload = .none
    /// Downloaded issues kept (read and unpinned ones beyond it are removed).
    public var keepIssues: Int?
    /// Bytes of downloaded issues kept.
    public var keepBytes: Int64?
    public var credentials: CredentialSource?
    /// Extra headers sent to the catalog's origin.
    public var headers: [HeaderField] = []
    public var query: [(name: String, value: String)] = []
    public var certificateAuthorities: String?
    /// Downloads of this subscription that run at once (within the newsstand's own limit).
    public var jobs: Int?
    /// A cap on each download's speed, in bytes per second.
    public var limitRate: Int64?
    /// Pages of a paginated feed read at most on one refresh (default 100).
    public var maxPages: Int?

    public init(name: String, url: URL) {
        self.name = name
        self.url = url
    }

    /// What newsstand fetches on its own when a catalog shows new issues.
    public enum AutoDownload: Sendable, Equatable, CustomStringConvertible {
        case none
        /// The newest `count` issues.
        case latest(Int)
        case allFree

        public var description: String {
            switch self {
            case .none: return "none"
            case .latest(1): return "latest"
            case .latest(let count): return String(count)
            case .allFree: return "all-free"
            }
        }

        /// Reads `"none"`, `"latest"`, `"all-free"` or a count.
        public init?(_ text: String) {
            switch text.lowercased() {
            case "none": self = .none
            case "latest": self = .latest(1)
            case "all-free": self = .allFree
            default:
                guard let count = Int(text), count >= 0 else { return nil }
                self = count == 0 ? .none : .latest(count)
            }
        }
    }

    /// Where credentials come from: never the config file itself.
    public enum CredentialSource: Sendable, Equatable {
        /// A user and password, sent in the scheme the server asks for, or only in `pin`
        /// (`auth = "basic"` or `"digest"`).
        case basic(user: String, password: SecretSource, pin: AuthScheme? = nil)
        case bearer(SecretSource)
        /// `~/.netrc`, which is read for every host anyway; named to say so.
        case netrc
    }

    /// A secret's source: a command's first line of output, or an environment variable.
    public enum SecretSource: Sendable, Equatable {
        case command(String)
        case environment(String)
    }

    /// A query argument written `name=value`.
    public static func queryArgument(_ text: String) throws(SettingError) -> (name: String, value: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { throw SettingError(expected: "name=value") }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    /// Whether a text can be a subscription's name: lowercase letters, digits, `-` and `_`,
    /// starting with a letter or digit, at most 64 bytes.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        func isLetterOrDigit(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        return isLetterOrDigit(bytes[0]) && bytes.allSatisfy { isLetterOrDigit($0) || $0 == 0x2D || $0 == 0x5F }
    }

    /// A name made from a URL: its file's stem, or its host's first label when the stem says nothing.
    public static func suggestedName(for url: URL) -> String {
        func slug(_ text: String) -> String {
            var result = ""
            for scalar in text.lowercased().unicodeScalars {
                if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                    result.unicodeScalars.append(scalar)
                } else if !result.isEmpty && !result.hasSuffix("-") {
                    result += "-"
                }
            }
            return String(result.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(40))
        }
        var generic: Set<String> = ["", "catalog", "feed", "index", "opds", "shelf", "rss", "atom", "catalogue", "issues", "v1-2", "v2", "api"]
        // A name is printed and becomes a folder: an API key in the path must not become one.
        for secret in URLSecrets.secrets(in: url) { generic.insert(slug(secret)) }
        let stem = slug(url.deletingPathExtension().lastPathComponent)
        if !generic.contains(stem) { return stem }
        let parent = slug(url.deletingLastPathComponent().lastPathComponent)
        if !generic.contains(parent) { return parent }
        let host = url.host.map { $0.split(separator: ".").first { !["www", "cdn", "media"].contains($0) }.map(String.init) ?? $0 } ?? ""
        let hostSlug = slug(host)
        return hostSlug.isEmpty ? "publication" : hostSlug
    }

    /// ``suggestedName(for:)``, or that name with `-2`, `-3`… when it is taken.
    public static func unusedName(for url: URL, taken: Set<String>) -> String {
        let stem = suggestedName(for: url)
        var name = stem
        var suffix = 2
        while taken.contains(name) {
            name = "\(stem)-\(suffix)"
            suffix += 1
        }
        return name
    }

    public static func == (lhs: Subscription, rhs: Subscription) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.title == rhs.title && lhs.autoDownload == rhs.autoDownload
            && lhs.keepIssues == rhs.keepIssues && lhs.keepBytes == rhs.keepBytes && lhs.credentials == rhs.credentials
            && lhs.headers == rhs.headers && lhs.query.map(\.name) == rhs.query.map(\.name)
            && lhs.query.map(\.value) == rhs.query.map(\.value) && lhs.certificateAuthorities == rhs.certificateAuthorities
            && lhs.jobs == rhs.jobs && lhs.limitRate == rhs.limitRate && lhs.maxPages == rhs.maxPages
    }
}
