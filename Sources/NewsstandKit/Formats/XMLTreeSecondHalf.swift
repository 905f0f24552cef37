import Foundation
import Synchronization

/// The second half of a large document, read on another core while the first half is read.
///
/// Where the second half begins is a guess: the start of an element that follows a sibling of
/// the same name (`</entry>` then `<entry`) past the middle. The half is read as if it began
/// inside the elements that were open when the first half closed its first element of that name
/// (the `<feed>` of an Atom feed, the `<channel>` of RSS). Its work is used only if the first
/// half, reading on, arrives at exactly that byte with exactly those elements open; else it is
/// dropped and the first half reads on alone. Either way the tree is the one a single pass
/// builds, and a malformed document fails where, and as, a single pass fails.
final class XMLTreeSecondHalf: @unchecked Sendable {
    /// Below this size a document is read in one pass: a second thread would cost more than it saves.
    static let minimumSize = 256 << 10

    /// The elements open where the half begins, by their index in the first half.
    let context: [Int]
    /// Set by whichever comes first: the worker beginning, or the first half giving up on a
    /// half not yet begun (which then never begins, and is not waited for).
    private let claimed = Atomic(false)
    private let droppedFlag = Atomic(false)
    private let done = DispatchSemaphore(value: 0)
    // Written by the worker while running, read by the first half only after `done`.
    private var builder: XMLTree.Builder?
    private var completed = false
    // Touched by the first half's thread alone: `join` may be called twice, `done` signals once.
    private var joined = false

    /// Starts reading the half from `start` on another thread, in `first`'s present context;
    /// `atOnce`, reads it on this thread before returning (so that tests see every guess read).
    init(continuing first: XMLTree.Builder, from start: Int, atOnce: Bool = false) {
        context = first.open.map(\.element)
        builder = XMLTree.Builder(continuing: first, from: start)
        if atOnce {
            run()
        } else {
            // The default queue, as the entries' pieces are read on next: each quality of
            // service has threads of its own, and a thread made for the pieces began late and
            // faulted in a heap of its own, where this one's is warm.
            DispatchQueue.global().async { self.run() }
        }
    }

    private func run() {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        // The thread's heap is not advised for huge pages here (reading /proc/self/maps took
        // 0.9 ms, and the whole parse waits for the later half): the half's arrays were made
        // in `init`, on the first half's thread, and this thread's heap is advised when it
        // takes its first piece of entries (``Pieces``).
        defer { done.signal() }
        guard var half = builder.take() else { return }
        // Read in a local: a class's property, stepped through, is checked for exclusive access at every token.
        do {
            while !droppedFlag.load(ordering: .relaxed), try half.step() != nil {}
            completed = half.stop != nil && !droppedFlag.load(ordering: .relaxed)
        } catch {
            // The first half will read this part itself and fail as a single pass does.
            completed = false
        }
        builder = half
    }

    /// The half as read, once it is done, handed over (a second call gets nil); nil if it
    /// failed, was dropped, or never began (then it never will: a half not begun is not waited for).
    func join() -> XMLTree.Builder? {
        if !joined {
            joined = true
            let began = !claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
            if began { done.wait() }
        }
        return completed ? builder.take() : nil
    }

    /// Stops the half, and waits for it to stop: it reads the bytes its caller is about to free.
    func drop() {
        droppedFlag.store(true, ordering: .relaxed)
        _ = join()
    }

    /// Where a second half could begin: past `from`, the `<` of a start tag that follows an end
    /// tag of the same name, white space between. Returns that position and the name's range.
    static func candidate(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> (start: Int, name: Range<Int>)? {
        let count = bytes.count
        var index = min(max(from, 0), count)
        while index + 3 < count {
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "/") else {
                index += 1
                continue
            }
            let nameStart = index + 2
            var position = nameStart
            while position < count, XMLText.isNameByte(bytes[position]) { position += 1 }
            let nameEnd = position
            index += 2
            guard nameEnd > nameStart else { continue }
            while position < count, XMLText.isSpace(bytes[position]) { position += 1 }
            guard position < count, bytes[position] == UInt8(ascii: ">") else { continue }
            position += 1
            while position < count, XMLText.isSpace(bytes[position]) { position += 1 }
            let start = position
            let length = nameEnd - nameStart
            guard start + 1 + length < count, bytes[start] == UInt8(ascii: "<"),
                  bytes[(start + 1)..<(start + 1 + length)].elementsEqual(bytes[nameStart..<nameEnd]),
                  !XMLText.isNameByte(bytes[start + 1 + length])
            else { continue }
            return (start, nameStart..<nameEnd)
        }
        return nil
    }
}

extension XMLTree.Builder {
    /// Reads up to `candidate`'s start while a second half is read from there; appends that half
    /// and returns true if this builder arrived exactly there, in the half's context. Reading on
    /// (past the half, or from wherever this stopped) is the caller's.
    mutating func readFirstHalf(to candidate: (start: Int, name: Range<Int>), atOnce: Bool) throws(XMLTree.Failure) -> Bool {
        var half: XMLTreeSecondHalf?
        // On every way out, a half still reading is stopped and waited for.
        defer { half?.drop() }
        while scanner.index < candidate.start {
            guard let token = try step() else { return false }
            // The first element of the candidate's name is closed: its parent is the context.
            if half == nil, case .endTag(let nameStart, let nameEnd, _) = token, !open.isEmpty, scanner.index < candidate.start,
               bytes[nameStart..<nameEnd].elementsEqual(bytes[candidate.name]) {
                half = XMLTreeSecondHalf(continuing: self, from: candidate.start, atOnce: atOnce)
            }
        }
        guard let started = half, scanner.index == candidate.start, open.map(\.element) == started.context,
              let second = started.join() else { return false }
        half = nil
        append(second)
        return true
    }
}
