/// Where each local key is among a catalog's entries: the position of the first entry with it.
///
/// Built from each key's hash, taken where the key was made: ``CatalogValidator`` checks an entry
/// on the core that read it, with the key still in that core's cache. A dictionary of the keys
/// hashed each key again once a page's entries were assembled, on one core, each key a cache
/// miss by then. Here assembling reads the hashes only; a key is compared only with one whose
/// hash is the same. The hash is Swift's own, seeded anew in each process, so no catalog can be
/// written to make its keys collide.
struct KeyIndex: Sendable {
    /// The key hash of the entry at each position.
    private var hashes: [Int] = []
    /// Open addressing: a position + 1, or 0 for a free slot; a power of two long, at most half
    /// full. Only the first position of each key has a slot.
    private var slots: [Int32] = []

    /// How many distinct keys are recorded.
    private(set) var count = 0

    /// An index with room for `capacity` keys before it grows.
    init(capacity: Int = 0) {
        slots = Array(repeating: 0, count: Self.slotCount(for: capacity))
        hashes.reserveCapacity(capacity)
    }

    /// The index of `entries`' keys, each at the position of the first entry with it.
    init(of entries: [CatalogEntry]) {
        self.init(capacity: entries.count)
        for entry in entries {
            let hash = Self.hash(entry.localKey)
            append(hash: hash, isFirst: position(of: entry.localKey, hash: hash, in: entries) == nil)
        }
    }

    /// The hash a key is recorded and looked up by.
    static func hash(_ key: String) -> Int {
        key.hashValue
    }

    /// The hash of the key at `position`; nil past the entries the index was made of (a
    /// catalog's entries are a public list, and could have been added to since).
    func hash(at position: Int) -> Int? {
        position < hashes.count ? hashes[position] : nil
    }

    /// Records the key hash of the entry at the next position; the key is found there from now on
    /// when it `isFirst` (no earlier position has it).
    mutating func append(hash: Int, isFirst: Bool) {
        if isFirst {
            if 2 * (count + 1) > slots.count { grow() }
            let mask = slots.count - 1
            var slot = hash & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(hashes.count + 1)
            count += 1
        }
        hashes.append(hash)
    }

    /// The position of the entry with `key` among `entries`, the entries this index was made of.
    func position(of key: String, in entries: [CatalogEntry]) -> Int? {
        position(of: key, hash: Self.hash(key), in: entries)
    }

    /// The same, for a key whose hash is known (another index's, made in this process).
    func position(of key: String, hash: Int, in entries: [CatalogEntry]) -> Int? {
        position(hash: hash, among: entries.count) { entries[$0].localKey == key }
    }

    /// The position of the entry with `entry`'s key, whose hash is `hash`. Its key is read only
    /// if an entry's hash is the same.
    func position(ofKeyOf entry: CatalogEntry, hash: Int, in entries: [CatalogEntry]) -> Int? {
        position(hash: hash, among: entries.count) { entries[$0].localKey == entry.localKey }
    }

    private func position(hash: Int, among entryCount: Int, where isMatch: (Int) -> Bool) -> Int? {
        guard count > 0 else { return nil }
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let position = Int(slots[slot]) - 1
            // Positions past `entries` (a list cut short since) are nobody's.
            if hashes[position] == hash, position < entryCount, isMatch(position) { return position }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: Self.slotCount(for: 2 * count + 1))
        let mask = slots.count - 1
        for slotted in old where slotted != 0 {
            var slot = hashes[Int(slotted) - 1] & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = slotted
        }
    }

    /// Slots for `capacity` keys: a power of two at least twice as many, and at least 8.
    private static func slotCount(for capacity: Int) -> Int {
        var count = 8
        while count < 2 * capacity { count *= 2 }
        return count
    }
}
