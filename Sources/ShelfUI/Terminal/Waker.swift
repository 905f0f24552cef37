import Foundation
import Synchronization

/// Wakes the shelf's input loop from other threads and from signal handlers, through a pipe.
///
/// Notifications from the download thread call ``wake()``; SIGINT, SIGTERM and SIGHUP are
/// turned into a wake-up plus ``receivedSignal`` so that the loop can restore the terminal
/// before it exits.
public final class Waker: Sendable {
    /// The end of the pipe to wait on.
    public let descriptor: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Makes the next (or current) wait return. Safe from any thread.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake-up.
    public func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(descriptor, &bytes, bytes.count) > 0 {}
    }

    /// The signal that asked the program to stop, or 0.
    public var receivedSignal: Int32 { signalReceived.load(ordering: .relaxed) }

    /// Routes SIGINT, SIGTERM and SIGHUP (and SIGWINCH, as a plain wake-up) to this waker.
    public func catchTerminationSignals() {
        signalWakeDescriptor.store(writeEnd, ordering: .relaxed)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                signalReceived.store(number, ordering: .relaxed)
                var byte: UInt8 = 1
                _ = write(signalWakeDescriptor.load(ordering: .relaxed), &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        // A resize only needs a wake-up: the terminal reads the new size itself. (ncurses' own
        // handler keeps one flag, and two quick resizes can leave it with the first size.)
        var resize = sigaction()
        resize.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(signalWakeDescriptor.load(ordering: .relaxed), &byte, 1)
        }
        sigemptyset(&resize.sa_mask)
        sigaction(SIGWINCH, &resize, nil)
        // Writing to a closed terminal must fail with EIO, not kill us before we clean up.
        signal(SIGPIPE, SIG_IGN)
    }
}

private let signalWakeDescriptor = Atomic<Int32>(-1)
private let signalReceived = Atomic<Int32>(0)
