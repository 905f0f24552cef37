import Foundation

/// A cover carried inside a catalog as a `data:` URI.
public enum InlineCover {
    /// The image's bytes, or nil when it is not a base64 `data:image/…` URI.
    public static func decode(_ address: String) -> Data? {
        guard address.hasPrefix("data:image/"), let comma = address.firstIndex(of: ",") else { return nil }
        let header = address[..<comma]
        guard header.hasSuffix(";base64") else { return nil }
        let payload = address[address.index(after: comma)...].filter { !$0.isWhitespace }
        return Data(base64Encoded: String(payload))
    }
}
