import Foundation

/// The program that shows a PDF: `$NEWSSTAND_OPENER`, else `xdg-open`.
///
/// It is started directly with an argument vector — the program, then the PDF's absolute path as
/// one argument — and never through a shell, so no file name can become a command.
public struct Opener: Sendable {
    /// A program name (looked up on `PATH`) or a path.
    public var program: String

    public init(program: String) {
        self.program = program
    }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Opener {
        if let program = environment["NEWSSTAND_OPENER"], !program.isEmpty {
            return Opener(program: program)
        }
        return Opener(program: "xdg-open")
    }

    /// Runs the opener on `path` and waits for it to exit.
    public func open(_ path: String) throws(NewsstandError) {
        guard path.hasPrefix("/"), FileOps.regularFileSize(path) != nil else {
            throw NewsstandError(.notDownloaded, "\(path) is not a downloaded issue.")
        }
        let status = try run(arguments: [program, path])
        guard status == 0 else {
            let hint = program == "xdg-open" && status == 3
                ? " xdg-open found no PDF reader: install one, or set NEWSSTAND_OPENER to a reader."
                : " Set NEWSSTAND_OPENER to a PDF reader."
            throw NewsstandError(.openerFailed, "\(TextSanitizer.inert(program)) failed to open the issue (exit status \(status)).\(hint)")
        }
    }

    /// Starts `arguments[0]` with `arguments` on this terminal and returns its exit status.
    private func run(arguments: [String]) throws(NewsstandError) -> Int32 {
        switch Subprocess.run(arguments, environment: nil, capturingOutput: false) {
        case .success(let outcome):
            return outcome.status
        case .failure(let error):
            let reason = error.code == ENOENT ? "is not installed" : "could not start: \(String(cString: strerror(error.code)))"
            throw NewsstandError(.openerFailed, "The PDF opener \(TextSanitizer.inert(program)) \(reason); install xdg-utils or set NEWSSTAND_OPENER.")
        }
    }
}
