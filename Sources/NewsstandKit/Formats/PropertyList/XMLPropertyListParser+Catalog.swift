import Foundation

extension XMLPropertyListParser {
    /// What a property list holds, read as a catalog.
    enum CatalogShape<Item> {
        /// The root's `Title` (a dictionary's) and each issue as made from its known fields
        /// (nil: not a dictionary) and its place.
        case issues(title: String?, items: [Item])
        /// A dictionary without an `Issues` array.
        case missingIssues
        /// Neither an array nor a dictionary.
        case notACatalog
    }

    /// Reads a property list as a catalog, with the same rules as ``parse(_:maximumDepth:)``:
    /// each issue's keys are matched as bytes and its fields kept by key, never built into a
    /// dictionary of strings first and read out of it again (which cost a sync of 100 changed
    /// catalogs 6% of its CPU). Each issue is made by `item` as it is read.
    static func parseCatalog<Item>(
        _ data: Data, maximumDepth: Int, item: (PropertyListFields?, Int) -> Item
    ) throws(PropertyListError) -> CatalogShape<Item> {
        let result = data.withUnsafeBytes { raw -> Result<CatalogShape<Item>, PropertyListError> in
            var parser = XMLPropertyListParser(bytes: raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth)
            return Result { () throws(PropertyListError) in try parser.catalogDocument(item) }
        }
        return try result.get()
    }

    private mutating func catalogDocument<Item>(_ item: (PropertyListFields?, Int) -> Item) throws(PropertyListError) -> CatalogShape<Item> {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        try skipMisc()
        var (tag, empty) = try openTag()
        let wrapped = tag == .plist
        if wrapped {
            guard !empty else { throw failure("the <plist> element is empty") }
            try skipMisc()
            (tag, empty) = try openTag()
        }
        let shape: CatalogShape<Item>
        switch tag {
        case .array:
            shape = .issues(title: nil, items: try issues(empty: empty, depth: 0, item))
        case .dict:
            shape = try catalogDictionary(empty: empty, item)
        default:
            _ = try value(tag, empty: empty, depth: 0)
            shape = .notACatalog
        }
        if wrapped {
            try skipMisc()
            try closeTag(.plist)
        }
        try skipMisc()
        guard index == bytes.count else { throw failure("there is more after the end of the property list") }
        return shape
    }

    /// The root dictionary: its `Issues` and `Title` (the last of each, as in any dictionary).
    private mutating func catalogDictionary<Item>(
        empty: Bool, _ item: (PropertyListFields?, Int) -> Item
    ) throws(PropertyListError) -> CatalogShape<Item> {
        guard 0 < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
        var title: String?
        var items: [Item]?
        while !empty, let key = try nextChild(closing: .dict) {
            let name = try keyText(key)
            let value = try nextValue()
            switch (name, value.tag) {
            case ("Issues", .array):
                items = try issues(empty: value.empty, depth: 1, item)
            case ("Issues", _):
                _ = try self.value(value.tag, empty: value.empty, depth: 1)
                items = nil
            case ("Title", _):
                let read = try self.value(value.tag, empty: value.empty, depth: 1)
                if case .string(let string) = read { title = string } else { title = nil }
            default:
                _ = try self.value(value.tag, empty: value.empty, depth: 1)
            }
        }
        guard let items else { return .missingIssues }
        return .issues(title: title, items: items)
    }

    /// An array of issues at `depth`, each made from its dictionary's known fields (nil for
    /// anything but a dictionary).
    private mutating func issues<Item>(empty: Bool, depth: Int, _ item: (PropertyListFields?, Int) -> Item) throws(PropertyListError) -> [Item] {
        guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
        var items: [Item] = []
        while !empty, let child = try nextChild(closing: .array) {
            if child.tag == .dict {
                items.append(item(try fields(empty: child.empty, depth: depth + 1), items.count))
            } else {
                _ = try value(child.tag, empty: child.empty, depth: depth + 1)
                items.append(item(nil, items.count))
            }
        }
        return items
    }

    /// One issue dictionary's known fields; a repeated key keeps its last value.
    private mutating func fields(empty: Bool, depth: Int) throws(PropertyListError) -> PropertyListFields {
        guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
        var fields = PropertyListFields()
        while !empty, let child = try nextChild(closing: .dict) {
            guard child.tag == .key else { throw failure("a dictionary holds something other than <key> where a key belongs") }
            let key = child.empty ? nil : try knownKey()
            let item = try nextValue()
            let read = try value(item.tag, empty: item.empty, depth: depth + 1)
            if let key { fields.set(key, read) }
        }
        return fields
    }

    /// The key whose text comes next, if it is one an issue may have: its bytes compared where
    /// they lie when they hold no reference, as most keys.
    private mutating func knownKey() throws(PropertyListError) -> PropertyListKey? {
        if let end = find(UInt8(ascii: "<"), from: index), find(UInt8(ascii: "&"), from: index, to: end) == nil,
           end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "/") {
            let key = end > index ? PropertyListKey(utf8: UnsafeBufferPointer(rebasing: bytes[index..<end])) : nil
            index = end
            try closeTag(.key)
            return key
        }
        return PropertyListKey(try text(closing: .key))
    }
}
