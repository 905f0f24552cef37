import Foundation
import TestSupport
import XCTest

/// The errors a new user meets first, word for word: each is one line that names one cause and
/// one next step, with none of Foundation's or libcurl's stock phrases.
final class FirstErrorsTests: XCTestCase {
    private func assertSentence(_ stderr: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(stderr, "newsstand: \(expected)\n", file: file, line: line)
        let text = stderr.dropFirst("newsstand: ".count).dropLast()
        XCTAssertFalse(text.contains("\n"), "one line", file: file, line: line)
        XCTAssertTrue(text.hasSuffix("."), "a sentence ends with a full stop: \(text)", file: file, line: line)
        for phrase in ["..", "Error:", "error:", "The operation could not be completed", "Network error", "Couldn't", "after 0 ms"] {
            XCTAssertFalse(text.contains(phrase), "\(phrase) in: \(text)", file: file, line: line)
        }
        // One cause, then one next step after a colon or semicolon, or as a second sentence.
        XCTAssertTrue(text.contains(": ") || text.contains("; ") || text.contains(". "), "no next step: \(text)", file: file, line: line)
    }

    func testTheFirstErrorsReadAsSentences() throws {
        let folder = TemporaryDirectory()
        let runner = CommandRunner(folder: folder)
        let server = try TestServer()
        server.serve("/text.plist", .init(body: Data("root:x:0:0:root:/root:/bin/bash\n".utf8), contentType: "text/plain"))
        let missingOnServer = server.url("/missing.plist").absoluteString
        let notACatalog = server.url("/text.plist").absoluteString
        let textFile = folder.path + "/notes.txt"
        try Data("just some notes\n".utf8).write(to: URL(fileURLWithPath: textFile))

        var result = try runner.run("list", "--catalog", "/nonexistent.plist")
        XCTAssertEqual(result.status, 2)
        assertSentence(result.error, "The catalog /nonexistent.plist does not exist: check the path.")

        result = try runner.run("list", "--catalog", textFile)
        XCTAssertEqual(result.status, 2)
        assertSentence(result.error, "Cannot read the catalog \(textFile): it is in no format newsstand reads (a property list, OPDS 1.2 or 2.0, Atom, RSS 2.0, JSON Feed, Baker's shelf.json, Bing's image archive or NASA's APOD). Check the address, or ask its publisher to fix it.")

        result = try runner.run("list", "--catalog", notACatalog)
        XCTAssertEqual(result.status, 2)
        assertSentence(result.error, "Cannot read the catalog \(notACatalog): it is in no format newsstand reads (a property list, OPDS 1.2 or 2.0, Atom, RSS 2.0, JSON Feed, Baker's shelf.json, Bing's image archive or NASA's APOD). Check the address, or ask its publisher to fix it.")

        result = try runner.run("list", "--catalog", missingOnServer)
        XCTAssertEqual(result.status, 2)
        assertSentence(result.error, "There is no catalog at \(missingOnServer) (HTTP 404); check the URL.")

        let port = server.url("/").port!
        server.stop()
        result = try runner.run("list", "--catalog", "http://127.0.0.1:\(port)/catalog.plist")
        XCTAssertEqual(result.status, 2)
        assertSentence(result.error, "Cannot connect to 127.0.0.1 port \(port): nothing answers there; check the address, or try again later.")

        result = try runner.run("list", "--catalog", "ftp://127.0.0.1/catalog.plist")
        XCTAssertEqual(result.status, 64, "a malformed URL is bad usage, whatever its shape")
        assertSentence(result.error, "ftp://127.0.0.1/catalog.plist is neither an http(s) URL nor a local file: give the catalog's http or https address, or its path.")

        result = try runner.run("frobnicate")
        XCTAssertEqual(result.status, 64)
        assertSentence(result.error, "frobnicate is not a command: see `newsstand --help` for the commands.")

        // The argument parser's own complaints read the same way: one line, the help to read.
        result = try runner.run("download", "--jobs", "many")
        XCTAssertEqual(result.status, 64)
        assertSentence(result.error, "The value 'many' is invalid for '--jobs <jobs>': see `newsstand download --help`.")
        result = try runner.run("mark")
        XCTAssertEqual(result.status, 64)
        assertSentence(result.error, "Missing expected argument '<action>': see `newsstand mark --help`.")

        result = try runner.run("subscribe", folder.path + "/nothing-here.plist")
        XCTAssertEqual(result.status, 2)
        assertSentence(result.error, "There is no catalog file at \(folder.path)/nothing-here.plist: give an http(s) URL or the path of a catalog file.")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/config/newsstand/config.toml"), "nothing was subscribed")

        // The bundled demo is the one subscription when there is no configuration.
        result = try runner.run("open", "demo/nope")
        XCTAssertEqual(result.status, 3)
        assertSentence(result.error, "No issue \"nope\" in demo: see `newsstand list --subscription demo`.")

        // A mistake in the shelf's colours stops even the shelf, with the line to fix.
        try FileManager.default.createDirectory(atPath: folder.path + "/config/newsstand", withIntermediateDirectories: true)
        try "[colors]\nheader = \"purple\"\n".write(toFile: folder.path + "/config/newsstand/config.toml", atomically: true, encoding: .utf8)
        result = try runner.run("shelf")
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.error.hasPrefix("newsstand: \(folder.path)/config/newsstand/config.toml:2: colors.header: purple is not a colour"), result.error)
        try FileManager.default.removeItem(atPath: folder.path + "/config/newsstand/config.toml")

        result = try runner.run("list", "--subscription", "weekly")
        XCTAssertEqual(result.status, 3)
        assertSentence(result.error, "There is no subscription named weekly: see `newsstand subscriptions`.")
    }
}
