import Foundation

/// Replaces a file by renaming another over it, the old one removed afterwards on a thread of
/// its own.
///
/// A rename over a file frees the old file in the rename: its blocks and its attribute block.
/// Where the file system hands freed blocks to the disk as it frees them (ext4 mounted with
/// `discard` and no journal, as on the machine the bench runs on), that waited for the disk twice
/// per catalog, 1.2 ms each time, on one of the two threads that read catalogs: a sync of 100
/// changed catalogs spent 240 ms of its catalog threads' time there. Here the old file keeps a
/// second name (`destination.retired`) through the rename, and that name is removed later.
///
/// The destination is the old file or the new one at every moment, as with a plain rename; a
/// process that dies first leaves the second name, removed by the next replacement.
public enum RetiredFiles {
    /// Serial, so its waits take no thread from the pool that reads catalogs. (Tests suspend it
    /// to see the second name.)
    static let queue = DispatchQueue(label: "newsstand.retired-files", qos: .utility)

    /// Renames `source` over `destination`; nonzero `errno` if the rename failed.
    static func replace(_ destination: String, with source: String) -> Int32 {
        let retired = destination + ".retired"
        unlink(retired)
        // No old file, or a file system without links: a plain rename.
        let kept = link(destination, retired) == 0
        guard rename(source, destination) == 0 else {
            let failure = errno
            if kept { unlink(retired) }
            return failure
        }
        if kept { queue.async { unlink(retired) } }
        return 0
    }

    /// Waits until the old files replaced so far are removed: a command leaves none behind.
    public static func waitForRemovals() {
        queue.sync {}
    }
}
