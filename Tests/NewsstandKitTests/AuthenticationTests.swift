@testable import NewsstandKit
import Foundation
import TestSupport
import XCTest

/// Answering a server's challenge: the scheme it asks for, Digest as RFC 7616 computes it,
/// remembered per origin, a stale nonce renewed, and a 401's Authentication for OPDS document.
final class AuthenticationTests: XCTestCase {
    /// RFC 7616 §3.9.1: the same request answered with MD5 and with SHA-256.
    func testDigestMatchesTheRFCExamples() {
        var challenge = AuthChallenge(scheme: .digest)
        challenge.realm = "http-auth@example.org"
        challenge.nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
        challenge.opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        challenge.qop = ["auth", "auth-int"]
        for (algorithm, response) in [("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
                                      ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")] {
            challenge.algorithm = algorithm
            let header = HTTPAuthenticator.authorization(
                answering: challenge, user: "Mufasa", password: "Circle of Life", uri: "/dir/index.html", nonceCount: 1,
                cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
            XCTAssertTrue(header.contains("response=\"\(response)\""), header)
            XCTAssertTrue(header.contains("nc=00000001") && header.contains("qop=auth,") && header.contains("opaque=\"FQhe"), header)
        }
    }

    func testChallengesAreReadStrongestFirstAndOthersPassedOver() {
        let header = #"Negotiate abc==, Basic realm="Members", Digest realm="lib", nonce="n1", qop="auth,auth-int", algorithm=MD5, "#
            + #"Digest realm="lib", nonce="n2", algorithm=SHA-256, stale=TRUE, Bearer realm="x""#
        let challenges = AuthChallenge.parse(header)
        XCTAssertEqual(challenges.map(\.scheme), [.digest, .digest, .basic])
        XCTAssertEqual(challenges[0].nonce, "n2")
        XCTAssertTrue(challenges[0].stale)
        XCTAssertEqual(challenges[1].qop, ["auth", "auth-int"])
        XCTAssertEqual(challenges[2].realm, "Members")
        XCTAssertEqual(AuthChallenge.parse(#"Digest realm="x", algorithm=SHA-512-256, nonce="n""#), [], "an algorithm it cannot compute")
        XCTAssertEqual(AuthChallenge.parse(#"Basic realm="a \"quoted\" realm""#).first?.realm, #"a "quoted" realm"#)
    }

    func testNetrcMachinesDefaultQuotesAndMacros() {
        let netrc = Netrc(text: """
            machine Library.Example login ann password "pass word"
            macdef init
            machine evil.example login x password y

            machine other.example
              login bo
              password pw2
            default login anon password guest
            """)
        XCTAssertEqual(netrc.credentials(for: "library.example")?.password, "pass word")
        XCTAssertEqual(netrc.credentials(for: "other.example")?.user, "bo")
        XCTAssertEqual(netrc.credentials(for: "evil.example")?.user, "anon", "inside a macro, not a machine")
        XCTAssertEqual(netrc.credentials(for: "unknown.example")?.user, "anon")
    }

    func testDigestIsAskedOnceThenAnsweredAtOnceAndAStaleNonceIsRenewedWithoutAFailure() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        harness.server.requireDigest(user: "ann", password: "digest-pw-1")
        let store = harness.makeStore { $0.credentials = .basic(user: "ann", password: .command("echo digest-pw-1")) }
        XCTAssertNoThrow(try store.refreshAndWait().get())
        XCTAssertEqual(harness.server.requests(for: "/catalog.plist").map { $0.headers["authorization"] == nil }, [true, false],
                       "over http nothing before the challenge, then Digest")
        XCTAssertNoThrow(try store.refreshAndWait().get())
        XCTAssertEqual(harness.server.requests(for: "/catalog.plist").count, 3, "a known origin: one request")
        let counts = harness.server.requests(for: "/catalog.plist").compactMap { request -> String? in
            request.headers["authorization"].flatMap { $0.range(of: "nc=").map { String(request.headers["authorization"]![$0.upperBound...].prefix(8)) } }
        }
        XCTAssertEqual(counts, ["00000001", "00000002"], "the nonce is reused, counted")

        harness.server.expireDigestNonce()
        XCTAssertNoThrow(try store.refreshAndWait().get(), "a stale nonce is renewed, not reported as a wrong password")
        XCTAssertEqual(harness.server.requests(for: "/catalog.plist").count, 5)
        XCTAssertNoThrow(try store.refreshAndWait().get())
        XCTAssertEqual(harness.server.requests(for: "/catalog.plist").count, 6)

        // What was learned is in the cache's info, never the password.
        let info = String(decoding: try XCTUnwrap(FileOps.attribute(CatalogCache.infoAttributeName, of: store.cache.catalogPath)), as: UTF8.self)
        XCTAssertTrue(info.contains("\"digest\""), info)
        XCTAssertFalse(info.contains("digest-pw-1"))
    }

    func testAnAuthenticationDocumentsWordsAreTheAdvice() throws {
        let harness = try StoreHarness()
        harness.serveCatalog([Fixtures.entry(id: "a", download: "issues/a.pdf")])
        harness.server.requireAuthorization(TestServer.basic("ann", "right"))
        harness.server.sendAuthenticationDocument(Data("""
            {"title": "Harbour Public Library", "id": "https://library.example/auth",
             "authentication": [{"type": "http://opds-spec.org/auth/basic", "labels": {"login": "Library card", "password": "PIN"}}]}
            """.utf8))
        let store = harness.makeStore()
        guard case .failure(let error) = store.refreshAndWait() else { return XCTFail("a 401 must fail") }
        XCTAssertEqual(error.code, .unauthorized)
        XCTAssertTrue(error.message.contains("Harbour Public Library refused access (HTTP 401)"), error.message)
        XCTAssertTrue(error.message.contains("newsstand login test --user \"<Library card>\" --password-env VARIABLE (the PIN)"), error.message)
    }
}
