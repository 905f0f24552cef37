@testable import NewsstandKit
import XCTest

/// The one way newsstand starts programs (password commands, the opener).
final class SubprocessTests: XCTestCase {
    /// The child sees its standard output as the pipe, and no other descriptor of that pipe: one
    /// that stayed open would also leak into any program spawned meanwhile (the opener), which
    /// would hold the pipe open and keep a refresh waiting until the reader exits.
    func testThePipeReachesNoOtherDescriptorOfTheChild() throws {
        let script = """
            out=$(readlink /proc/$$/fd/1)
            for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && [ "$(readlink $f)" = "$out" ] && echo "leaked $n"; done
            echo "stdout $out"
            """
        let outcome = try Subprocess.run(["sh", "-c", script], environment: ["PATH": "/usr/bin:/bin"], capturingOutput: true).get()
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.output.contains("stdout pipe:"), outcome.output)
        XCTAssertFalse(outcome.output.contains("leaked"), outcome.output)
    }

    func testAMissingProgramIsAStartFailureAndAnExitStatusIsKept() {
        guard case .failure(let failure) = Subprocess.run(["newsstand-no-such-program"], environment: [:], capturingOutput: true) else {
            return XCTFail("a missing program cannot start")
        }
        XCTAssertEqual(failure.code, ENOENT)
        XCTAssertEqual(try Subprocess.run(["sh", "-c", "exit 7"], environment: nil, capturingOutput: false).get().status, 7)
    }
}
