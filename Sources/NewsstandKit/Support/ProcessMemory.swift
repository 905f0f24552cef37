import Foundation

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

    /// Has the heaps of the threads that read, check and cache catalogs backed by 2 MiB pages
    /// where the kernel allows it (transparent huge pages in `madvise` mode, as on this project's
    /// machines), with blocks up to 32 MiB kept in those heaps. For a command that ends soon: a
    /// refresh of a 10,000-entry page touched 34 MB a 4 KiB page at a time, 8,600 faults of
    /// about 4 µs each, a fifth of its CPU. glibc's own `hugetlb` tunable does the same but can
    /// only be set in the environment before the process starts. Not for the shelf, which stays
    /// open: a 2 MiB page stays whole in memory as long as any of it is used.
    public static func useHugePages() {
        hugePages.withLock { $0.isEnabled = true }
        _ = FileOps.keepLargeBlocksInHeap(upTo: 32 << 20)
        // The heap grows by what keepFreedMemory asked for before it is advised, so the advice
        // covers the growth (the kernel keeps the advised part of a mapping apart from the rest).
        FileOps.growHeap(by: 1 << 20)
        adviseHugePagesForThisThread()
    }

    /// Advises the heap the calling thread allocates from (glibc gives threads heaps of their
    /// own), once a heap. Called where a thread starts on a catalog's bulk; nothing unless
    /// ``useHugePages()`` was.
    static func adviseHugePagesForThisThread() {
        guard hugePages.withLock({ $0.isEnabled }) else { return }
        _ = adviseHeapOfThisThread()
    }

    /// The heap the calling thread allocates from, advised now; nil when it was already, or is
    /// not one (the advice is then left to the kernel's defaults) or the kernel refused.
    static func adviseHeapOfThisThread() -> Range<UInt>? {
        adviseHeap(holding: FileOps.currentHeapAddress()) { FileOps.contents(ofProcFile: "/proc/self/maps") }
    }

    /// The heap that holds `address`, advised now. The maps are read once a mapping: a heap is
    /// remembered as advised, and any other mapping as declined, so a thread whose allocator is
    /// not glibc's does not read the maps (0.1 ms) on every call.
    static func adviseHeap(holding address: UInt, readingMaps readMaps: () -> [UInt8]?) -> Range<UInt>? {
        guard address != 0, !hugePages.withLock({ $0.knows(address) }), let maps = readMaps() else { return nil }
        guard let heap = heapMapping(containing: address, in: maps) else {
            // Nothing in the maps is a sign of a mapping made since; a later call may find it.
            if let other = mapping(containing: address, in: maps) { hugePages.withLock { $0.declined.append(other) } }
            return nil
        }
        hugePages.withLock { $0.advised.append(heap) }
        guard FileOps.adviseHugePages(heap) else { return nil }
        // The 2 MiB where the thread allocates now is partly in small pages already, and the
        // kernel would fill the rest a small page at a time: up to 511 faults a heap.
        let hugePage: UInt = 2 << 20
        let current = (address & ~(hugePage - 1))..<((address & ~(hugePage - 1)) + hugePage)
        if heap.lowerBound <= current.lowerBound && current.upperBound <= heap.upperBound {
            _ = FileOps.collapseHugePages(current)
        }
        return heap
    }

    /// The bounds of whichever mapping holds `address`, from `/proc/self/maps` lines.
    static func mapping(containing address: UInt, in maps: [UInt8]) -> Range<UInt>? {
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            guard let bounds = bounds(of: line), bounds.contains(address) else { continue }
            return bounds
        }
        return nil
    }

    /// A maps line's `start-end`, or nil when the line is not one.
    private static func bounds(of line: ArraySlice<UInt8>) -> Range<UInt>? {
        let first = line.prefix { $0 != UInt8(ascii: " ") }
        let parts = first.split(separator: UInt8(ascii: "-"))
        guard parts.count == 2, let start = hexadecimal(parts[0]), let end = hexadecimal(parts[1]), start < end else { return nil }
        return start..<end
    }

    /// The private, writable, anonymous mapping (or the `[heap]`) that holds `address`, with what
    /// follows it as room to grow, read from
    /// `/proc/self/maps` lines (`start-end perms offset device inode [path]`, addresses in hex);
    /// nil for anything else, which is left as it is.
    static func heapMapping(containing address: UInt, in maps: [UInt8]) -> Range<UInt>? {
        var found: Range<UInt>?
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
            guard fields.count >= 5 else { continue }
            guard let bounds = bounds(of: fields[0]) else { continue }
            let (start, end) = (bounds.lowerBound, bounds.upperBound)
            let path = fields.count > 5 ? fields[5] : []
            let anonymous = fields[4].elementsEqual("0".utf8) && (path.isEmpty || path.elementsEqual("[heap]".utf8))
            if let heap = found {
                // What follows the heap without a gap is where it grows: the rest of the `[heap]`
                // (the kernel keeps each extension of the break apart), or a thread heap's
                // reservation, made accessible as glibc needs it.
                let growth = start == heap.upperBound && anonymous
                    && (fields[1].starts(with: "---p".utf8) || fields[1].starts(with: "rw-p".utf8) && !path.isEmpty)
                guard growth else { return heap }
                found = heap.lowerBound..<end
                continue
            }
            guard (start..<end).contains(address) else { continue }
            guard anonymous, fields[1].starts(with: "rw-p".utf8) else { return nil }
            found = start..<end
        }
        return found
    }

    private static func hexadecimal(_ digits: ArraySlice<UInt8>) -> UInt? {
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt(digit - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }

    private struct HugePages: Sendable {
        var isEnabled = false
        /// The heaps advised so far.
        var advised: [Range<UInt>] = []
        /// The mappings found not to be heaps.
        var declined: [Range<UInt>] = []

        func knows(_ address: UInt) -> Bool {
            advised.contains { $0.contains(address) } || declined.contains { $0.contains(address) }
        }
    }

    private static let hugePages = Locked(HugePages())
}
