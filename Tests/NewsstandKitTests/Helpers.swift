import Foundation
import NewsstandKit
import TestSupport
import XCTest

extension TransferEngine {
    /// An engine that holds nothing back for a host: for tests of everything but the host limits
    /// (HostLimitTests), which a pause one test's server asked for must not reach into another's
    /// on the same port, and whose counts of transfers at once are their own.
    static let withoutHostLimits = TransferEngine(hostConnections: 0)
}

/// A store on a loopback server, in a temporary folder, with its own notification center.
final class StoreHarness {
    let folder = TemporaryDirectory()
    let server: TestServer
    let center = NotificationCenter()
    var policy = DownloadPolicy()

    init() throws {
        server = try TestServer()
        policy.baseRetryDelay = 0.05
        policy.stallTimeout = 5
    }

    deinit {
        // The accept thread holds the server until it is stopped.
        server.stop()
    }

    var directories: Directories { Directories.fromEnvironment(folder.environment) }

    /// The newsstand of the last store made: the one that downloads its issues.
    private(set) var newsstand: Newsstand!

    func makeStore(catalog path: String = "/catalog.plist", configure: (inout Subscription) -> Void = { _ in }) -> Store {
        makeStore(url: server.url(path), configure: configure)
    }

    /// A newsstand with one subscription, `test`, of `url`; returns its store.
    func makeStore(url: URL, directories: Directories? = nil, configure: (inout Subscription) -> Void = { _ in }) -> Store {
        var subscription = Subscription(name: "test", url: url)
        configure(&subscription)
        return makeNewsstand([subscription], directories: directories).stores[0]
    }

    /// A newsstand of `subscriptions` in the harness's folder (or `directories`), with its policy
    /// and notification center.
    func makeNewsstand(_ subscriptions: [Subscription], directories: Directories? = nil, maxStorage: Int64? = nil,
                       engine: TransferEngine = .withoutHostLimits, makesIssuesWhenAsked: Bool = false) -> Newsstand {
        var configuration = Newsstand.Configuration(directories: directories ?? self.directories)
        configuration.makesIssuesWhenAsked = makesIssuesWhenAsked
        configuration.engine = engine
        configuration.policy = policy
        configuration.notificationCenter = center
        configuration.maxStorage = maxStorage
        newsstand = try! Newsstand(configuration: configuration, subscriptions: subscriptions)
        return newsstand
    }

    /// Serves a catalog of `entries` at /catalog.plist.
    func serveCatalog(_ entries: [[String: Any]], etag: String? = "\"c1\"") {
        server.serve("/catalog.plist", .init(body: Fixtures.catalog(entries), contentType: "application/xml", etag: etag))
    }

    /// Serves a PDF at /issues/ID.pdf and returns its bytes and catalog entry.
    @discardableResult
    func serveIssue(_ id: String, size: Int = 300_000, seed: UInt8 = 1, withDigest: Bool = true, throttle: Int? = nil,
                    etag: String? = "\"v1\"") -> (data: Data, entry: [String: Any]) {
        let data = Fixtures.pdf(size: size, seed: seed)
        server.serve("/issues/\(id).pdf", .init(body: data, etag: etag, throttle: throttle))
        let entry = Fixtures.entry(id: id, download: "issues/\(id).pdf", size: withDigest ? size : nil,
                                   sha256: withDigest ? Fixtures.sha256(data) : nil)
        return (data, entry)
    }

    /// Waits until the issue's state satisfies `predicate`, woken by the issue's notifications.
    @discardableResult
    func wait(for issue: Issue, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line,
              until predicate: @escaping (DownloadState) -> Bool) -> DownloadState {
        let wake = DispatchSemaphore(value: 0)
        let observers = [Issue.stateDidChangeNotification, Issue.downloadDidProgressNotification].map {
            center.addObserver(forName: $0, object: issue, queue: nil) { _ in wake.signal() }
        }
        defer { observers.forEach(center.removeObserver) }
        let deadline = Date().addingTimeInterval(timeout)
        while !predicate(issue.state) {
            if wake.wait(timeout: .now() + .milliseconds(200)) == .timedOut && Date() > deadline {
                XCTFail("timed out waiting; state is \(issue.state)", file: file, line: line)
                break
            }
        }
        return issue.state
    }

    func waitUntilFinished(_ issue: Issue, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line) -> DownloadState {
        wait(for: issue, timeout: timeout, file: file, line: line) { state in
            switch state {
            case .downloaded, .failed: return true
            default: return false
            }
        }
    }
}

extension DownloadState {
    var failure: NewsstandError? {
        if case .failed(let error) = self { return error }
        return nil
    }

    var isDownloaded: Bool {
        if case .downloaded = self { return true }
        return false
    }
}
