import Foundation

/// A tiny tmpfs mounted on a temporary folder, to fill up on purpose. Needs root.
public final class SmallDisk {
    public let path: String
    private let folder = TemporaryDirectory()

    /// Mounts `bytes` of tmpfs; returns nil where mounting is not allowed (not root, a container without it).
    public init?(bytes: Int) {
        path = folder.path + "/disk"
        mkdir(path, 0o755)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(bytes)") == 0 else { return nil }
    }

    deinit {
        umount2(path, Int32(MNT_DETACH))
    }
}
