/// Something about a catalog as a whole that a person should know: a pagination cut short, items
/// left out in bulk. The core says what happened; its description is the sentence both the CLI
/// and the shelf show.
public enum CatalogRemark: Sendable, Equatable, CustomStringConvertible {
    /// Page `page` links back to an earlier one; reading stopped there.
    case pagesLoop(page: Int)
    /// The first `pages` pages (`entries` entries) were read, then the subscription's page bound
    /// (or, `byEntries`, the bound on entries one refresh reads) stopped it.
    case pagesCut(pages: Int, entries: Int, byEntries: Bool)
    /// Page `page` could not be read, for `reason` (secrets already redacted); those before it are the catalog.
    case pageUnreadable(page: Int, reason: String)
    /// Items that offer only a sample, which is never the issue.
    case samplesOnly(count: Int)
    /// Links that are templates this client cannot fill (`{authentication_token}`).
    case templatedLinks(count: Int)
    /// The catalog was read and is shown, but no copy of it could be kept for offline use
    /// (`failure`, secrets already redacted): the copy before it, if any, is what an offline start shows.
    case copyNotKept(NewsstandError)

    public var description: String {
        switch self {
        case .pagesLoop(let page):
            return "The feed's page \(page) links back to an earlier page; stopped there."
        case .pagesCut(let pages, let entries, let byEntries):
            let bound = byEntries ? "the most entries one refresh reads" : "its max_pages"
            return "Read the first \(pages) pages (\(entries == 1 ? "1 entry" : "\(entries) entries")) of the feed, \(bound)."
        case .pageUnreadable(let page, let reason):
            let kept = page == 2 ? "the first page is" : "the first \(page - 1) pages are"
            return "Page \(page) of the feed could not be read (\(reason)) \(kept) shown."
        case .samplesOnly(let count):
            return "\(count == 1 ? "1 item offers" : "\(count) items offer") only a sample, which is not the issue: not listed."
        case .copyNotKept(let failure) where failure.code == .diskFull:
            return "No copy of this catalog was kept for offline use: the disk is full. Free some space; the next refresh keeps one."
        case .copyNotKept(let failure):
            return "No copy of this catalog was kept for offline use (\(failure.message))"
        case .templatedLinks(let count):
            return "\(count == 1 ? "1 link is a template" : "\(count) links are templates") (such as {authentication_token}) that this client cannot fill: left out."
        }
    }
}
