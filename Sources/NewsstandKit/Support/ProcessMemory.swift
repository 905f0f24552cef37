/// How the process uses memory.
public enum ProcessMemory {
    /// Has malloc keep up to `bytes` of what is freed instead of handing it back to the kernel,
    /// and grow by as much at once. For a command that ends soon: giving memory back only to
    /// fault it in again cost a tenth of a sync of a hundred subscriptions. Not for the shelf,
    /// which stays open and should give back what a large catalog took.
    /// Whether malloc took the setting.
    @discardableResult
    public static func keepFreedMemory(upTo bytes: Int) -> Bool {
        FileOps.keepFreedMemory(upTo: bytes)
    }
}
