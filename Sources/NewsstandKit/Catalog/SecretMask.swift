import Foundation

/// Stand-ins for the secrets a subscription's URL carries (Kavita's API key in every path), so
/// that the cached copy of its catalog never holds them: masked as the copy is written, put back
/// as it is read.
enum SecretMask {
    /// `text` with each secret replaced by its stand-in.
    static func mask(_ text: String, secrets: [String]) -> String {
        guard !secrets.isEmpty else { return text }
        var result = text
        for (index, secret) in secrets.enumerated() where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: placeholder(index))
        }
        return result
    }

    /// `text` with its stand-ins replaced by the secrets; nil when one has no secret (the
    /// subscription's URL changed since the copy was written).
    static func unmask(_ text: String, secrets: [String]) -> String? {
        guard hasStandIn(text) else { return text }
        var result = text
        for (index, secret) in secrets.enumerated() { result = result.replacingOccurrences(of: placeholder(index), with: secret) }
        return result.contains(marker) ? nil : result
    }

    static func mask(_ search: FeedSearch, secrets: [String]) -> FeedSearch {
        switch search {
        case .template(let text): return .template(mask(text, secrets: secrets))
        case .description(let text): return .description(mask(text, secrets: secrets))
        }
    }

    static func unmask(_ search: FeedSearch, secrets: [String]) -> FeedSearch? {
        switch search {
        case .template(let text): return unmask(text, secrets: secrets).map(FeedSearch.template)
        case .description(let text): return unmask(text, secrets: secrets).map(FeedSearch.description)
        }
    }

    static func mask(_ link: FeedLink, secrets: [String]) -> FeedLink {
        var masked = link
        masked.address = mask(link.address, secrets: secrets)
        return masked
    }

    static func unmask(_ link: FeedLink, secrets: [String]) -> FeedLink? {
        guard let address = unmask(link.address, secrets: secrets) else { return nil }
        var restored = link
        restored.address = address
        return restored
    }

    /// Puts the secrets back into a catalog's links; false when a stand-in has no secret, and the
    /// copy should not be used.
    static func unmask(_ catalog: inout Catalog, secrets: [String]) -> Bool {
        func restored(_ acquisition: Acquisition) -> Acquisition? {
            guard let address = unmask(acquisition.address, secrets: secrets) else { return nil }
            var copy = acquisition
            copy.address = address
            return copy
        }
        for position in catalog.entries.indices {
            var entry = catalog.entries[position]
            let fields = entry.fields
            guard let download = restored(fields.acquisition) else { return false }
            if download != fields.acquisition { entry[dynamicMember: \.acquisition] = download }
            if !fields.alternatives.isEmpty {
                let alternatives = fields.alternatives.compactMap(restored)
                guard alternatives.count == fields.alternatives.count else { return false }
                entry.alternatives = alternatives
            }
            if let cover = fields.coverAddress {
                guard let address = unmask(cover, secrets: secrets) else { return false }
                if address != cover { entry.coverAddress = address }
            }
            catalog.entries[position] = entry
        }
        return true
    }

    private static let marker = "newsstand-masked-secret-"

    /// Whether `text` holds a stand-in, looked for as bytes: every address of a catalog is asked
    /// as its copy is opened, and Foundation's search cost a tenth of listing 10,000 issues.
    private static func hasStandIn(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            let needle = markerBytes
            guard bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
                if memcmp(bytes.baseAddress! + start, needle, needle.count) == 0 { return true }
            }
            return false
        } ?? text.contains(marker)
    }

    private static let markerBytes = Array(marker.utf8)

    /// What stands for the secret at `index`: letters, digits and `-`, which every part of a URL
    /// takes as they are.
    private static func placeholder(_ index: Int) -> String { marker + String(index) }
}
