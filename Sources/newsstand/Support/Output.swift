import Foundation
import NewsstandKit

/// Writing to the terminal or a pipe; every untrusted string passes through ``TextSanitizer``.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write(TextSanitizer.inert(text) + "\n", to: STDERR_FILENO)
    }

    static func write(_ text: String, to descriptor: Int32) {
        write(bytes: Array(text.utf8), to: descriptor)
    }

    static func write(bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Columns of the terminal on standard output, or nil for a pipe.
    static var terminalWidth: Int? {
        guard isTerminal else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
