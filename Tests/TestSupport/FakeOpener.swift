import Foundation

/// A stand-in for xdg-open: a script in the test's folder that writes the arguments it was
/// given (one per line, the count first when asked) to `record`, so that a test can see what
/// newsstand asked to open.
public struct FakeOpener {
    /// The script, for `NEWSSTAND_OPENER`.
    public let path: String
    /// Where it writes its arguments. The record appears whole or not at all (written beside it,
    /// then renamed): a test that waits for the file reads it as soon as it exists, and under
    /// ThreadSanitizer once read it empty, between the shell's `>` creating it and `printf`
    /// writing it.
    public let record: String

    public init(in folder: TemporaryDirectory, name: String = "fake-opener", countingArguments: Bool = false) throws {
        path = folder.path + "/" + name
        record = folder.path + "/opened.txt"
        let arguments = countingArguments ? "\"$#\" \"$@\"" : "\"$@\""
        try "#!/bin/sh\nprintf '%s\\n' \(arguments) > '\(record).part' && mv -f '\(record).part' '\(record)'\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }
}

extension TemporaryDirectory {
    /// The folder's XDG environment for newsstand run in a terminal (tmux): this PATH, UTF-8,
    /// a terminal type with colours, and `opener` as the reader's opener.
    public func terminalEnvironment(opener: String) -> [String: String] {
        var environment = self.environment
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        environment["LANG"] = "C.UTF-8"
        environment["TERM"] = "tmux-256color"
        environment["NEWSSTAND_OPENER"] = opener
        return environment
    }
}
