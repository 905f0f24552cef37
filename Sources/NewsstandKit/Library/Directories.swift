import Foundation

/// Where newsstand keeps its files, following the XDG base-directory specification.
public struct Directories: Sendable, Equatable {
    /// Root for downloaded issues and covers (`$XDG_DATA_HOME/newsstand`).
    public var data: String
    /// Root for cached catalogs (`$XDG_CACHE_HOME/newsstand`).
    public var cache: String
    /// Root for the log file (`$XDG_STATE_HOME/newsstand`).
    public var state: String
    /// Root for the configuration a person edits (`$XDG_CONFIG_HOME/newsstand`).
    public var config: String

    public init(data: String, cache: String, state: String, config: String? = nil) {
        self.data = data
        self.cache = cache
        self.state = state
        self.config = config ?? (state as NSString).deletingLastPathComponent + "/config/newsstand"
    }

    /// The configuration file: `$XDG_CONFIG_HOME/newsstand/config.toml`.
    public var configFile: String { config + "/config.toml" }

    /// The directories for an environment.
    ///
    /// A variable that is unset, empty or relative is ignored, as the specification asks,
    /// and the default under `$HOME` is used instead.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Directories {
        let home = homeDirectory(environment)
        func base(_ variable: String, _ fallback: String) -> String {
            if let value = environment[variable], value.hasPrefix("/") {
                return value
            }
            return home + "/" + fallback
        }
        return Directories(
            data: base("XDG_DATA_HOME", ".local/share") + "/newsstand",
            cache: base("XDG_CACHE_HOME", ".cache") + "/newsstand",
            state: base("XDG_STATE_HOME", ".local/state") + "/newsstand",
            config: base("XDG_CONFIG_HOME", ".config") + "/newsstand"
        )
    }

    private static func homeDirectory(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], home.hasPrefix("/") {
            return home
        }
        return NSHomeDirectory()
    }
}

extension Directories {
    /// A short note of the program's own kept under the state folder between runs (the shelf's
    /// last view): nil when there is none, or it is not a short text.
    public func stateNote(_ name: String) -> String? {
        precondition(LocalKey.isValid(name), "unsafe state note name")
        guard let data = FileManager.default.contents(atPath: state + "/" + name), data.count <= 256 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Keeps `text` as the note `name`, written whole or not at all.
    public func saveStateNote(_ name: String, _ text: String) throws(NewsstandError) {
        precondition(LocalKey.isValid(name), "unsafe state note name")
        try FileOps.makeDirectory(state, trusted: state)
        try FileOps.writeAtomically(Data((text + "\n").utf8), to: state + "/" + name, durable: false)
    }
}
