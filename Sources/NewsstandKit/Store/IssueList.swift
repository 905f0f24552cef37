import Foundation

/// A catalog's issues in its order, each ``Issue`` made the first time it is asked for.
///
/// A sync wants the newest issue or two of each catalog: making an object (with its lock) for
/// each of a catalog's thousand issues, then freeing them, was an eighth of the instructions of a
/// sync of 100 changed catalogs. A list made ``replacing(_:with:home:eagerly:)`` eagerly (the shelf's)
/// has every issue made at once, on the thread that loaded the catalog, as before.
struct IssueList: Sendable {
    /// The catalog's entries; an issue made keeps its own copy, updated with the list.
    private(set) var entries: [CatalogEntry] = []
    /// Where each local key is.
    private(set) var positions = KeyIndex()
    private var made: [Issue?] = []
    private var home: Issue.Home?
    /// The reading state's records as last loaded, given to each issue made after.
    private var readings: ReadingState.Snapshot?

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The issues made so far, in order: what already has a state or a reading record to keep
    /// up to date.
    var madeIssues: [Issue] { made.compactMap { $0 } }

    /// What replacing `previous` with a catalog's entries did.
    struct Change {
        var new = 0
        var changed = false
    }

    /// The list of `catalog`'s issues in place of `previous`, keeping the issues `previous` made
    /// for the same keys (and with them their downloads), their entries updated.
    static func replacing(_ previous: IssueList, with catalog: Catalog, home: Issue.Home, eagerly: Bool) -> (list: IssueList, change: Change) {
        var list = IssueList()
        list.entries = catalog.entries
        list.positions = catalog.positions
        list.home = home
        list.readings = previous.readings
        var change = Change()
        if previous.isEmpty {
            change.new = catalog.entries.count
            change.changed = !catalog.entries.isEmpty
            list.made = Array(repeating: nil, count: catalog.entries.count)
        } else {
            list.made.reserveCapacity(catalog.entries.count)
            for (index, entry) in catalog.entries.enumerated() {
                let hash = catalog.positions.hash(at: index) ?? KeyIndex.hash(entry.localKey)
                guard let position = previous.positions.position(of: entry.localKey, hash: hash, in: previous.entries) else {
                    change.new += 1
                    change.changed = true
                    list.made.append(nil)
                    continue
                }
                if position != index { change.changed = true }
                if let existing = previous.made[position] {
                    if existing.entry != entry {
                        existing.update(entry: entry)
                        change.changed = true
                    }
                    list.made.append(existing)
                } else {
                    if previous.entries[position] != entry { change.changed = true }
                    list.made.append(nil)
                }
            }
            if previous.count != catalog.entries.count { change.changed = true }
        }
        if eagerly { _ = list.all() }
        return (list, change)
    }

    /// The issue at `index`, made now if it was not.
    mutating func issue(at index: Int) -> Issue? {
        guard made.indices.contains(index) else { return nil }
        if let issue = made[index] { return issue }
        // One issue: its own folder looked at, not the library listed.
        let issue = make(entries[index], hasFolder: true)
        made[index] = issue
        return issue
    }

    /// Every issue, those not made yet made now (on every core, for a catalog of many).
    mutating func all() -> [Issue] {
        let missing = made.indices.filter { made[$0] == nil }
        guard !missing.isEmpty, let home else { return made.map { $0! } }
        let folders = home.library.keysWithFolders()
        let (entries, readings) = (self.entries, self.readings)
        // A first load of 100,000 issues makes as many objects: made on every core.
        let pieces = Pieces.map(missing.count) { range, _ -> [Issue] in
            range.map { slot in
                let entry = entries[missing[slot]]
                return Self.make(entry, home: home, hasFolder: folders.contains(entry.localKey), reading: readings?.record(for: entry.localKey))
            }
        }
        var filled = self.made
        var slot = 0
        for piece in pieces {
            for issue in piece {
                filled[missing[slot]] = issue
                slot += 1
            }
        }
        self.made = filled
        return filled.map { $0! }
    }

    /// Keeps `snapshot` for the issues made from now on; returns the issues already made, whose
    /// records the caller sets (outside any lock).
    mutating func keep(_ snapshot: ReadingState.Snapshot) -> [Issue] {
        readings = snapshot
        return madeIssues
    }

    private func make(_ entry: CatalogEntry, hasFolder: Bool) -> Issue {
        Self.make(entry, home: home!, hasFolder: hasFolder, reading: readings?.record(for: entry.localKey))
    }

    private static func make(_ entry: CatalogEntry, home: Issue.Home, hasFolder: Bool, reading: ReadingState.Record?) -> Issue {
        let issue = Issue(entry: entry, home: home, hasFolder: hasFolder)
        if let reading { issue.setReading(reading, notify: false) }
        return issue
    }
}
