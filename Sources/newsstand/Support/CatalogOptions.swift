import ArgumentParser
import Foundation
import NewsstandKit

/// The options every subcommand shares: which catalog, and how to download.
struct CatalogOptions: ParsableArguments {
    @Option(name: .long, help: "The catalog: an http(s) URL or a local property list (default: $NEWSSTAND_CATALOG, else the demo).")
    var catalog: String?

    @Option(name: .long, help: "Downloads that run at once.")
    var jobs: Int = 3

    @Option(name: .long, help: "Seconds without data before a download is retried.")
    var stallTimeout: Int = 30

    @Option(name: .long, help: "Attempts per download before giving up.")
    var attempts: Int = 5

    @Option(name: .long, help: "Seconds before the second attempt; later waits double.")
    var retryDelay: Double = 1

    @Option(name: .long, help: ArgumentHelp(
        "Trust the certificate authorities in this PEM file instead of the system's.",
        discussion: "For a publisher with a private authority. Certificates are always verified.", valueName: "pem-file"))
    var caFile: String?

    func validate() throws {
        guard jobs >= 1, jobs <= 64 else { throw ValidationError("--jobs must be between 1 and 64.") }
        guard stallTimeout >= 1 else { throw ValidationError("--stall-timeout must be at least 1 second.") }
        guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1.") }
        guard retryDelay >= 0 else { throw ValidationError("--retry-delay cannot be negative.") }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--ca-file \(TextSanitizer.inert(caFile)) is not a readable file.")
        }
    }

    /// The catalog URL chosen by the option, the environment or the bundled demo.
    func catalogURL() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let value = catalog ?? environment["NEWSSTAND_CATALOG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return try Self.parse(value)
        }
        guard let demo = BundledDemo.catalogURL else {
            throw CommandFailure("The bundled demo catalog is missing: pass --catalog URL or set NEWSSTAND_CATALOG.")
        }
        return demo
    }

    static func parse(_ value: String) throws -> URL {
        if value.contains("://") {
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(),
                  ["http", "https", "file"].contains(scheme)
            else {
                throw CommandFailure("The catalog must be an http or https URL or a local file, not \(TextSanitizer.inert(value)).")
            }
            return url
        }
        let path = value.hasPrefix("/") ? value : FileManager.default.currentDirectoryPath + "/" + value
        return URL(fileURLWithPath: path).standardizedFileURL
    }

    /// Every store made, kept until the process exits: freeing 100,000 issues one by one after
    /// the output is written took a tenth of `list`'s time, and the kernel frees them at once.
    /// Written only on the main thread, before any other thread exists.
    nonisolated(unsafe) private static var storesKeptUntilExit: [Store] = []

    /// A store for the chosen catalog.
    func makeStore() throws -> Store {
        var configuration = Store.Configuration(catalogURL: try catalogURL())
        configuration.policy.maximumConcurrentDownloads = jobs
        configuration.policy.stallTimeout = stallTimeout
        configuration.policy.maximumAttempts = attempts
        configuration.policy.baseRetryDelay = retryDelay
        if let caFile {
            let path = caFile.hasPrefix("/") ? caFile : FileManager.default.currentDirectoryPath + "/" + caFile
            configuration.engine = TransferEngine(certificateAuthorities: path)
        }
        let store = Store(configuration: configuration)
        Self.storesKeptUntilExit.append(store)
        return store
    }
}

/// Loads the catalog for a command that looks issues up: the cached copy when it knows every
/// ID asked for, else a fresh fetch.
func loadCatalog(_ store: Store, needing ids: [String] = []) throws {
    if store.loadCache(), ids.allSatisfy({ store.issue(withID: $0) != nil }) {
        return
    }
    let result = store.refreshAndWait()
    printWarnings(store)
    if case .failure(let error) = result, store.numberOfIssues == 0 {
        throw CommandFailure(error: error, store: store)
    }
}

func printWarnings(_ store: Store) {
    for warning in store.warnings {
        Output.error("warning: \(warning)")
    }
}
