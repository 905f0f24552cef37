import Foundation

/// Brings an issue's cover into its library: written from the catalog when it is inline (a
/// `data:` image, capped when the catalog was read), else fetched with the subscription's
/// requests and kept, so that the shelf and `covers` work offline after.
struct CoverFetcher: Sendable {
    let requests: CatalogFetcher
    let library: Library
    let engine: TransferEngine

    /// Calls `completion` with the cover's path, on a background thread. Covers larger than
    /// 10 MB are refused.
    func fetch(for issue: Issue, completion: @escaping @Sendable (Result<String, NewsstandError>) -> Void) {
        let path = issue.coverPath
        if FileOps.regularFileSize(path) != nil {
            completion(.success(path))
            return
        }
        if let address = issue.entry.coverAddress, let inline = InlineCover.decode(address) {
            // A cover inside the feed (a `data:` URI, size-capped when read) is written, not fetched.
            do {
                try library.prepareCoversFolder()
                try FileOps.writeAtomically(inline, to: path, durable: false)
                completion(.success(path))
            } catch {
                completion(.failure(error))
            }
            return
        }
        guard let url = issue.entry.coverURL else {
            makeFromIssue(issue, orFail: NewsstandError(.notFound, "\(TextSanitizer.inert(issue.id)) has no cover."), completion: completion)
            return
        }
        let part = path + ".part"
        var request: TransferRequest
        do {
            try library.prepareCoversFolder()
            if library.adoptLegacyCover(for: issue.localKey) {
                completion(.success(path))
                return
            }
            request = try requests.request(url, destination: part)
        } catch {
            completion(.failure(error))
            return
        }
        request.maximumBytes = 10 << 20
        request.maximumBytesPerSecond = nil
        engine.start(request, handlers: TransferHandlers { result in
            let failure = result.failure ?? HTTPFailure.error(result.response, subject: .cover, advice: requests.advice)
            if failure == nil, rename(part, path) == 0 {
                completion(.success(path))
            } else {
                unlink(part)
                makeFromIssue(issue, orFail: failure ?? NewsstandError(.fileSystem, "The cover could not be saved."), completion: completion)
            }
        })
    }

    /// Two covers are made from issues at a time: rendering a PDF's page takes a core.
    private static let makers = DispatchSemaphore(value: 2)

    /// A cover made from the issue on disk, when it is downloaded; else `failure`.
    private func makeFromIssue(_ issue: Issue, orFail failure: NewsstandError,
                               completion: @escaping @Sendable (Result<String, NewsstandError>) -> Void) {
        guard case .downloaded(let installed) = issue.state else {
            completion(.failure(failure))
            return
        }
        let (library, key, path, type) = (library, issue.localKey, issue.coverPath, issue.installedType)
        DispatchQueue.global(qos: .utility).async {
            Self.makers.wait()
            defer { Self.makers.signal() }
            do throws(NewsstandError) {
                try library.prepareCoversFolder()
                try IssueCoverMaker.make(from: installed, type: type, into: path)
                try? FileOps.writeAtomically(Data(), to: library.madeCoverMarkerPath(for: key), durable: false)
                completion(.success(path))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
