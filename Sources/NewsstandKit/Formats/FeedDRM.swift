import Foundation

/// Media types of DRM schemes: an acquisition through one of them gives no file a reader opens.
enum FeedDRM {
    static func isProtected(_ mediaType: String) -> Bool {
        let type = mediaType.lowercased()
        return type.contains("adobe.adept") || type.contains("readium.lcp") || type.contains("lcp+json")
    }
}
