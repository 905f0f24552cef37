import Foundation
import NewsstandKit

/// Digests made by other people's code, for the tests to hold newsstand's own against: coreutils'
/// `sha256sum` and `md5sum` for one input, Python's hashlib (OpenSSL) for many at once. The
/// input goes through a temporary file and the tool is started by newsstand's `Subprocess`
/// (posix_spawn, then waitpid): Foundation's `Process` sometimes never returned from
/// `waitUntilExit` when a test started a few thousand of them.
public enum ReferenceDigest {
    /// The lowercase hex SHA-256 of `data`, by `sha256sum`.
    public static func sha256(_ data: Data) -> String {
        firstWord(of: output(["sha256sum"], input: data))
    }

    /// The lowercase hex MD5 of a text's UTF-8, by `md5sum`.
    public static func md5(_ text: String) -> String {
        firstWord(of: output(["md5sum"], input: Data(text.utf8)))
    }

    /// The lowercase hex digests of each input by hashlib's `algorithm` ("sha256", "md5"), in order:
    /// one Python for thousands of inputs.
    public static func hashlib(_ algorithm: String, _ inputs: [[UInt8]]) -> [String] {
        let lines = inputs.map { bytes in bytes.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n") + "\n"
        let script = "import hashlib, sys\nfor line in open(sys.argv[2]):\n    print(hashlib.new(sys.argv[1], bytes.fromhex(line.strip())).hexdigest())\n"
        return (output(["python3", "-c", script, algorithm], input: Data(lines.utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// What the program prints given a file of `input` as its last argument; nil when it fails.
    private static func output(_ arguments: [String], input: Data) -> String? {
        let path = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reference-digest-" + UUID().uuidString).path
        guard FileManager.default.createFile(atPath: path, contents: input) else { return nil }
        defer { try? FileManager.default.removeItem(atPath: path) }
        return Subprocess.output(of: arguments + [path])
    }

    /// "<hex>  <file>": the digest is the first word.
    private static func firstWord(of output: String?) -> String {
        guard let output else { return "(no digest: the tool failed)" }
        return String(output.prefix { $0 != " " })
    }
}
