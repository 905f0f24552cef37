@testable import NewsstandKit
import XCTest

/// The malloc settings a command that ends soon makes (the shelf does not), and the heaps the
/// catalog threads advise for 2 MiB pages.
final class ProcessMemoryTests: XCTestCase {
    func testMallocTakesTheSetting() {
        // mallopt answers 1 when it took the value, 0 when it refused it.
        XCTAssertTrue(ProcessMemory.keepFreedMemory(upTo: 64 << 20))
        XCTAssertTrue(ProcessMemory.keepFreedMemory(upTo: 128 << 10), "glibc's own default, back again")
    }

    /// A thread heap as glibc lays it out: the part in use, then its reservation; a file and a
    /// stack around it.
    private let maps = """
        55d0aa647000-55d0aa668000 rw-p 00000000 00:00 0                          [heap]
        55d0aa668000-55d0ae648000 rw-p 00000000 00:00 0                          [heap]
        7f4f14000000-7f4f18000000 rw-p 00000000 00:00 0 
        7f4f18000000-7f4f18021000 rw-p 00000000 00:00 0 
        7f4f18021000-7f4f1c000000 ---p 00000000 00:00 0 
        7f4f1c000000-7f4f1c021000 rw-p 00000000 00:00 0 
        7f4f1f620000-7f4f1f621000 ---p 00000000 00:00 0 
        7f4f20000000-7f4f20200000 rw-p 00000000 fe:01 1234                       /var/cache/x.db
        7f4f20200000-7f4f20400000 r--p 00000000 00:00 0 
        7ffebd5c9000-7ffebd5ea000 rw-p 00000000 00:00 0                          [stack]
        """

    private func heap(containing address: UInt) -> Range<UInt>? {
        ProcessMemory.heapMapping(containing: address, in: Array(maps.utf8))
    }

    func testAThreadHeapTakesItsReservation() {
        XCTAssertEqual(heap(containing: 0x7f4f1801_0000), 0x7f4f1800_0000..<0x7f4f1c00_0000)
        // The next heap begins where the reservation ends, and is a heap of its own.
        XCTAssertEqual(heap(containing: 0x7f4f1c00_0010), 0x7f4f1c00_0000..<0x7f4f1c02_1000)
        // A mapping followed by another in use stays as it is.
        XCTAssertEqual(heap(containing: 0x7f4f1400_0000), 0x7f4f1400_0000..<0x7f4f1800_0000)
    }

    func testTheBreakHeapTakesItsExtensions() {
        XCTAssertEqual(heap(containing: 0x55d0_aa64_72a0), 0x55d0_aa64_7000..<0x55d0_ae64_8000)
    }

    func testOnlyPrivateWritableAnonymousMemoryIsAHeap() {
        XCTAssertNil(heap(containing: 0x7f4f2010_0000), "a file")
        XCTAssertNil(heap(containing: 0x7f4f2030_0000), "read-only")
        XCTAssertNil(heap(containing: 0x7f4f1f62_0800), "a guard")
        XCTAssertNil(heap(containing: 0x7ffe_bd5d_0000), "a stack is not anonymous by this reading")
        XCTAssertNil(heap(containing: 0x1000), "nothing there")
        XCTAssertNil(ProcessMemory.heapMapping(containing: 0x10, in: Array("garbage\n-\nzz-yy rw-p 0 00:00 0\n".utf8)))
    }

    /// A thread's heap advised for real: the kernel marks the mapping (`hg` in smaps' VmFlags),
    /// and a second call for the same heap does nothing.
    func testAThreadsHeapIsAdvisedOnce() throws {
        let outcome = Locked<(first: Range<UInt>?, again: Range<UInt>?, block: UInt)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            // The probe's own size: an allocator that keeps each size apart (ThreadSanitizer's)
            // holds it in the same mapping, as glibc's heap does.
            let block = malloc(64)!
            defer { free(block) }
            let first = ProcessMemory.adviseHeapOfThisThread()
            let again = ProcessMemory.adviseHeapOfThisThread()
            outcome.withLock { $0 = (first, again, UInt(bitPattern: block)) }
            done.signal()
        }
        thread.start()
        done.wait()
        let (first, again, block) = try XCTUnwrap(outcome.withLock { $0 })
        let heap = try XCTUnwrap(first, "the thread's heap was found and advised")
        XCTAssertTrue(heap.contains(block), "the heap holds what the thread allocated")
        XCTAssertNil(again, "advised once")
        // Read to its end: Foundation reads a `/proc` file only in part.
        let smaps = String(decoding: try XCTUnwrap(FileOps.contents(ofProcFile: "/proc/self/smaps")), as: UTF8.self).components(separatedBy: "\n")
        let header = try XCTUnwrap(smaps.firstIndex { $0.hasPrefix(String(heap.lowerBound, radix: 16) + "-") }, "the heap is a mapping")
        let section = try XCTUnwrap(smaps[header...].first { $0.hasPrefix("VmFlags:") })
        XCTAssertTrue(section.split(separator: " ").contains("hg"), "\(section)")
    }

    /// An address in a mapping that is not a heap (a file here) reads the maps once: the mapping
    /// is remembered as declined. Low addresses, where nothing of this process lies.
    func testAMappingThatIsNotAHeapIsReadOnce() {
        let fake = Array("10000000-10200000 rw-p 00000000 fe:01 99                         /fake/file\n".utf8)
        var reads = 0
        let read: () -> [UInt8]? = { reads += 1; return fake }
        XCTAssertNil(ProcessMemory.adviseHeap(holding: 0x1000_0040, readingMaps: read))
        XCTAssertEqual(reads, 1)
        XCTAssertNil(ProcessMemory.adviseHeap(holding: 0x101f_0000, readingMaps: read))
        XCTAssertEqual(reads, 1, "the declined mapping is known")
        XCTAssertNil(ProcessMemory.adviseHeap(holding: 0x1020_0000, readingMaps: read))
        XCTAssertEqual(reads, 2, "an address past it is not")
    }

    func testTheMappingHoldingAnAddress() {
        XCTAssertEqual(ProcessMemory.mapping(containing: 0x7f4f_2010_0000, in: Array(maps.utf8)), 0x7f4f_2000_0000..<0x7f4f_2020_0000)
        XCTAssertNil(ProcessMemory.mapping(containing: 0x1000, in: Array(maps.utf8)))
    }
}
