import Foundation

/// This process's resident memory, from /proc.
enum ResidentMemory {
    /// Resets the kernel's high-water mark to the current size and returns that size in bytes.
    static func resetPeak() -> Int {
        if let file = fopen("/proc/self/clear_refs", "w") {
            fputs("5", file)
            fclose(file)
        }
        return field("VmRSS")
    }

    /// The most resident memory since the last ``resetPeak()``, in bytes.
    static var peak: Int { field("VmHWM") }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes << 10
    }
}
