import Foundation

extension Store {
    /// Replaces the issue list, keeping the `Issue` objects (and their downloads) of known keys,
    /// and records in the reading state which issues were seen for the first time.
    func apply(_ catalog: Catalog, source: CatalogSource, fetchedAt: Date) -> RefreshSummary {
        let home = issueHome
        let eagerly = !configuration.makesIssuesWhenAsked
        var previousWasEmpty = false
        let summary = contents.withLock { contents -> RefreshSummary in
            previousWasEmpty = contents.issues.isEmpty
            let (issues, change) = IssueList.replacing(contents.issues, with: catalog, home: home, eagerly: eagerly)
            let changed = change.changed || contents.title != catalog.title
            contents.issues = issues
            contents.title = catalog.title
            contents.warnings = catalog.warnings
            contents.format = catalog.format
            contents.search = catalog.search
            contents.navigation = catalog.navigation
            contents.itemsWithoutDownload = catalog.itemsWithoutDownload
            contents.remarks = catalog.remarks
            contents.fetchedAt = fetchedAt
            contents.source = source
            return RefreshSummary(changed: changed, newIssues: change.new, totalIssues: issues.count, source: source, remarks: catalog.remarks)
        }
        var result = summary
        // Issues never seen before, by the reading state: right even when this process had not
        // loaded the previous copy (a sync reads an old catalog only when it must).
        if let firstSeen = loadReadingState(), previousWasEmpty { result.newIssues = firstSeen }
        if summary.changed { center.post(name: Self.issuesDidChangeNotification, object: self) }
        return result
    }

    /// The newest `count` issues (undated ones last, in the catalog's order), made without
    /// making the others.
    func newestIssues(_ count: Int) -> [Issue] {
        contents.withLock { contents in
            // A closure, not a key path: a key path to an entry's field is looked up at run time for each.
            let dates = contents.issues.entries.map { $0.releaseDate }
            return Newsstand.newestFirst(dates: dates, first: count).compactMap { contents.issues.issue(at: $0) }
        }
    }

    /// Brings the issues up to date with what another process did (a download or a sync from
    /// the command line): their reading records, and what is on disk for those not downloading here.
    public func catchUpWithOtherProcesses() {
        loadReadingState()
        // Issues not made yet read the disk when they are.
        for issue in contents.withLock({ $0.issues.madeIssues }) where !issue.state.isActive { issue.resetStateFromDisk() }
    }

    /// Gives each issue its reading record, recording first sightings; returns how many there were
    /// (nil without a reading state).
    @discardableResult
    private func loadReadingState() -> Int? {
        guard let readingState = configuration.readingState else { return nil }
        // A closure, not a key path: through a key path each key cost 1,500 instructions (valgrind).
        let keys = contents.withLock { $0.issues.entries.map { $0.localKey } }
        guard let snapshot = try? readingState.load(subscription: name, keys: keys) else { return nil }
        let made = contents.withLock { $0.issues.keep(snapshot) }
        for issue in made { issue.setReading(snapshot.record(for: issue.localKey), notify: false) }
        return snapshot.firstSeen
    }
}
