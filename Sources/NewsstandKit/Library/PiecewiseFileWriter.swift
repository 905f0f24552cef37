import Foundation

/// A file written a piece at a time on a thread of its own, then put in place with a rename
/// (``FileOps/writeAtomically(_:to:mode:durable:)`` for a file given whole). A catalog's
/// snapshot reaches the disk while the rest of it is made: writing it after, on the one thread,
/// was a tenth of a refresh of 10,000 entries.
///
/// Nothing is at the path until ``install(durable:)``; a writer dropped before removes its
/// temporary file.
final class PiecewiseFileWriter {
    private let path: String
    private let temporary: String
    private let mode: mode_t
    private let descriptor: Descriptor
    private let queue = DispatchQueue(label: "newsstand.piecewise-file")
    /// Whether the file was installed. Touched only by the writer's owner.
    private var isInstalled = false

    /// The file the pieces are written to, and what stopped them: what a piece's block holds,
    /// so that the writer itself goes (and removes its file) where its owner drops it.
    private final class Descriptor: @unchecked Sendable {
        let number: Int32
        /// The errno that stopped the writing, or 0. Touched only on the writer's queue.
        var failure: Int32 = 0
        init(_ number: Int32) { self.number = number }
    }

    init(path: String, mode: mode_t) throws(NewsstandError) {
        self.path = path
        self.mode = mode
        temporary = FileOps.temporaryPath(for: path)
        descriptor = Descriptor(try FileOps.createTemporary(temporary, mode: mode))
    }

    deinit {
        guard !isInstalled else { return }
        queue.sync {}
        close(descriptor.number)
        unlink(temporary)
    }

    /// Has `piece` written after the pieces before it; returns at once.
    func append(_ piece: Data) {
        queue.async { [descriptor] in
            guard descriptor.failure == 0 else { return }
            descriptor.failure = piece.withUnsafeBytes { FileOps.writeAll($0, to: descriptor.number) }
        }
    }

    /// Waits for the pieces to be written, then renames the file into place; throws, removing
    /// it, when any piece could not be written or the file not be put in place.
    func install(durable: Bool) throws(NewsstandError) {
        precondition(!isInstalled, "a file installed twice")
        isInstalled = true
        let failure = queue.sync { descriptor.failure }
        try FileOps.install(temporary, at: path, descriptor: descriptor.number, mode: mode, durable: durable, failure: failure)
    }
}
