import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// HTTPS through the real libcurl against a loopback server whose certificate comes from a
/// test authority (Tests/TestSupport/TLS, valid until 2125): verified, refused when untrusted or
/// for another name, and never downgraded to http by a redirect.
final class TLSTests: XCTestCase {
    private static let authority = HTTPSServer.authority

    private func makeStore(_ harness: StoreHarness, catalog: URL, trusting authority: String?) -> Store {
        harness.makeStore(url: catalog) { $0.certificateAuthorities = authority }
    }

    /// Writes a catalog of one issue, "a", whose download URL is `download`, into the served folder.
    private func publish(_ root: String, download: String, data: Data) throws {
        try FileManager.default.createDirectory(atPath: root + "/issues", withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: root + "/issues/a.pdf"))
        let entry = Fixtures.entry(id: "a", download: download, size: data.count, sha256: Fixtures.sha256(data))
        try Fixtures.catalog([entry]).write(to: URL(fileURLWithPath: root + "/catalog.plist"))
    }

    func testATrustedCertificateLoadsTheCatalogAndDownloads() throws {
        let harness = try StoreHarness()
        let server = try HTTPSServer(plainPort: harness.server.port)
        defer { server.stop() }
        let data = Fixtures.pdf(size: 300_000, seed: 5)
        try publish(server.root, download: "issues/a.pdf", data: data)

        let store = makeStore(harness, catalog: server.url("/catalog.plist"), trusting: Self.authority)
        XCTAssertEqual(try store.refreshAndWait().get().totalIssues, 1)
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        XCTAssertEqual(issue.entry.downloadURL.scheme, "https")
        harness.newsstand.download(issue)
        XCTAssertTrue(harness.waitUntilFinished(issue).isDownloaded)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.library.filePath(for: "a", as: .pdf))), data)
    }

    func testAnUntrustedCertificateIsRefusedAndNothingIsCached() throws {
        let harness = try StoreHarness()
        let server = try HTTPSServer(plainPort: harness.server.port)
        defer { server.stop() }
        try publish(server.root, download: "issues/a.pdf", data: Fixtures.pdf(size: 1_000))

        // The system's authorities do not know the test authority.
        let store = makeStore(harness, catalog: server.url("/catalog.plist"), trusting: nil)
        guard case .failure(let error) = store.refreshAndWait() else { return XCTFail("an untrusted certificate must fail") }
        XCTAssertEqual(error.code, .insecure, error.message)
        XCTAssertTrue(error.message.contains("certificate could not be verified"), error.message)
        XCTAssertEqual(store.numberOfIssues, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.cache.catalogPath), "nothing from an unverified server is kept")
    }

    func testACertificateForAnotherNameIsRefused() throws {
        let harness = try StoreHarness()
        let server = try HTTPSServer(plainPort: harness.server.port)
        defer { server.stop() }
        try publish(server.root, download: "issues/a.pdf", data: Fixtures.pdf(size: 1_000))

        // Trusted authority, but the certificate names 127.0.0.1, not localhost.
        let store = makeStore(harness, catalog: server.url("/catalog.plist", host: "localhost"), trusting: Self.authority)
        guard case .failure(let error) = store.refreshAndWait() else { return XCTFail("a name mismatch must fail") }
        XCTAssertEqual(error.code, .insecure, error.message)
    }

    func testARedirectFromHTTPSToHTTPIsRefused() throws {
        let harness = try StoreHarness()
        harness.policy.maximumAttempts = 1
        let server = try HTTPSServer(plainPort: harness.server.port)
        defer { server.stop() }
        let data = Fixtures.pdf(size: 50_000)
        try publish(server.root, download: "to-http/issues/a.pdf", data: data)
        harness.server.serve("/issues/a.pdf", .init(body: data))

        let store = makeStore(harness, catalog: server.url("/catalog.plist"), trusting: Self.authority)
        _ = try store.refreshAndWait().get()
        let issue = try XCTUnwrap(store.issue(withID: "a"))
        harness.newsstand.download(issue)
        let failure = try XCTUnwrap(harness.waitUntilFinished(issue).failure)
        XCTAssertEqual(failure.code, .unsupportedURL, failure.message)
        XCTAssertTrue(failure.message.contains("https may not be redirected to http"), failure.message)
        XCTAssertEqual(harness.server.requests(for: "/issues/a.pdf").count, 0, "the plain server was never asked")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.library.filePath(for: "a", as: .pdf)))
    }
}
