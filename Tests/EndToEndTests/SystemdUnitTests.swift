import Foundation
import TestSupport
import XCTest

/// The systemd user units shipped for `sync`.
final class SystemdUnitTests: XCTestCase {
    /// The units as `make install` writes them (@BINDIR@ replaced by the binary's folder) pass
    /// systemd's own check; `Tests/Packaging/test-install.sh` checks the installed copies too.
    func testTheUnitsParseAndSpreadTheLoad() throws {
        let folder = CommandRunner.resources + "/systemd"
        let timer = try String(contentsOfFile: folder + "/newsstand-sync.timer", encoding: .utf8)
        XCTAssertTrue(timer.contains("RandomizedDelaySec="), "readers must not all knock at once")
        XCTAssertTrue(timer.contains("Persistent=true"))
        let template = try String(contentsOfFile: folder + "/newsstand-sync.service", encoding: .utf8)
        XCTAssertTrue(template.contains("ExecStart=@BINDIR@/newsstand sync"))
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            throw XCTSkip("systemd-analyze is not installed")
        }
        let installed = TemporaryDirectory()
        let binaryFolder = URL(fileURLWithPath: CommandRunner.executable).deletingLastPathComponent().path
        try template.replacingOccurrences(of: "@BINDIR@", with: binaryFolder)
            .write(toFile: installed.path + "/newsstand-sync.service", atomically: true, encoding: .utf8)
        try timer.write(toFile: installed.path + "/newsstand-sync.timer", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = ["verify", installed.path + "/newsstand-sync.service", installed.path + "/newsstand-sync.timer"]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, output)
        XCTAssertEqual(output, "")
    }
}
