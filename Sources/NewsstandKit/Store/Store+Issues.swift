import Foundation

extension Store {
    /// Replaces the issue list, keeping the `Issue` objects (and their downloads) of known keys,
    /// and records in the reading state which issues were seen for the first time.
    func apply(_ catalog: Catalog, source: CatalogSource, fetchedAt: Date) -> RefreshSummary {
        let folders = library.keysWithFolders()
        let home = issueHome
        var previousWasEmpty = false
        let summary = contents.withLock { contents -> RefreshSummary in
            let previous = (issues: contents.issues, positions: contents.positions)
            previousWasEmpty = previous.issues.isEmpty
            let entries = catalog.entries
            // A first load of 100,000 issues makes as many objects: made on every core.
            let pieces = Pieces.map(entries.count) { range, _ -> (issues: [Issue], new: Int, changed: Bool) in
                var issues: [Issue] = []
                issues.reserveCapacity(range.count)
                var new = 0
                var changed = false
                for entry in entries[range] {
                    if let position = previous.positions[entry.localKey] {
                        let existing = previous.issues[position]
                        if existing.entry != entry {
                            existing.update(entry: entry)
                            changed = true
                        }
                        issues.append(existing)
                    } else {
                        issues.append(Issue(entry: entry, home: home, hasFolder: folders.contains(entry.localKey)))
                        new += 1
                        changed = true
                    }
                }
                return (issues, new, changed)
            }
            var issues: [Issue] = pieces.count == 1 ? pieces[0].issues : []
            if pieces.count > 1 {
                issues.reserveCapacity(entries.count)
                for piece in pieces { issues.append(contentsOf: piece.issues) }
            }
            let newIssues = pieces.reduce(0) { $0 + $1.new }
            var changed = pieces.contains { $0.changed } || previous.issues.count != entries.count || contents.title != catalog.title
            if !changed {
                changed = zip(issues, previous.issues).contains { $0 !== $1 }
            }
            contents.issues = issues
            contents.positions = catalog.positions
            contents.title = catalog.title
            contents.warnings = catalog.warnings
            contents.format = catalog.format
            contents.search = catalog.search
            contents.navigation = catalog.navigation
            contents.itemsWithoutDownload = catalog.itemsWithoutDownload
            contents.remarks = catalog.remarks
            contents.fetchedAt = fetchedAt
            contents.source = source
            return RefreshSummary(
                changed: changed, newIssues: previous.issues.isEmpty ? entries.count : newIssues,
                totalIssues: issues.count, source: source)
        }
        var result = summary
        // Issues never seen before, by the reading state: right even when this process had not
        // loaded the previous copy (a sync reads an old catalog only when it must).
        if let firstSeen = loadReadingState(), previousWasEmpty { result.newIssues = firstSeen }
        if summary.changed { center.post(name: Self.issuesDidChangeNotification, object: self) }
        return result
    }

    /// Brings the issues up to date with what another process did (a download or a sync from
    /// the command line): their reading records, and what is on disk for those not downloading here.
    public func catchUpWithOtherProcesses() {
        loadReadingState()
        for issue in issues where !issue.state.isActive { issue.resetStateFromDisk() }
    }

    /// Gives each issue its reading record, recording first sightings; returns how many there were
    /// (nil without a reading state).
    @discardableResult
    private func loadReadingState() -> Int? {
        guard let readingState = configuration.readingState else { return nil }
        let issues = self.issues
        guard let snapshot = try? readingState.load(subscription: name, keys: issues.map(\.localKey)) else { return nil }
        for issue in issues { issue.setReading(snapshot.record(for: issue.localKey), notify: false) }
        return snapshot.firstSeen
    }
}
