import Foundation

/// Reads an XML property list (Apple's `PropertyList-1.0` DTD) straight from its bytes.
///
/// Refuses entity declarations, nesting deeper than the limit, unknown elements and entities,
/// and anything after the root value; the message names the line.
struct XMLPropertyListParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    let maximumDepth: Int

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    static func parse(_ data: Data, maximumDepth: Int) throws(PropertyListError) -> PropertyListValue {
        let result = data.withUnsafeBytes { raw -> Result<PropertyListValue, PropertyListError> in
            let bytes = raw.bindMemory(to: UInt8.self)
            var parser = XMLPropertyListParser(bytes: bytes, maximumDepth: maximumDepth)
            return Result { () throws(PropertyListError) in try parser.document() }
        }
        return try result.get()
    }


    enum Tag {
        case plist, dict, key, array, string, integer, real, date, data, `true`, `false`

        var nameLength: Int { (UInt64.bitWidth - nameWord.leadingZeroBitCount + 7) / 8 }

        /// The name's bytes as ``XMLPropertyListParser/nameWord(from:to:)`` reads them.
        var nameWord: UInt64 {
            switch self {
            case .key: 0x79_656b
            case .dict: 0x7463_6964
            case .real: 0x6c61_6572
            case .date: 0x6574_6164
            case .data: 0x6174_6164
            case .true: 0x6575_7274
            case .array: 0x79_6172_7261
            case .plist: 0x74_7369_6c70
            case .false: 0x65_736c_6166
            case .string: 0x676e_6972_7473
            case .integer: 0x72_6567_6574_6e69
            }
        }
    }

    // MARK: Structure

    mutating func document() throws(PropertyListError) -> PropertyListValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        try skipMisc()
        let (tag, empty) = try openTag()
        let value: PropertyListValue
        if tag == .plist {
            guard !empty else { throw failure("the <plist> element is empty") }
            try skipMisc()
            let (inner, innerEmpty) = try openTag()
            value = try self.value(inner, empty: innerEmpty, depth: 0)
            try skipMisc()
            try closeTag(.plist)
        } else {
            value = try self.value(tag, empty: empty, depth: 0)
        }
        try skipMisc()
        guard index == bytes.count else { throw failure("there is more after the end of the property list") }
        return value
    }

    mutating func value(_ tag: Tag, empty: Bool, depth: Int) throws(PropertyListError) -> PropertyListValue {
        switch tag {
        case .dict:
            guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
            var dictionary = PropertyListDictionary(minimumCapacity: 8)
            if empty { return .dictionary(dictionary) }
            while let key = try nextChild(closing: .dict) {
                let name = try keyText(key)
                let item = try nextValue()
                dictionary.append(name, try value(item.tag, empty: item.empty, depth: depth + 1))
            }
            return .dictionary(dictionary)
        case .array:
            guard depth < maximumDepth else { throw PropertyListError.tooDeep(maximumDepth) }
            var array: [PropertyListValue] = []
            if empty { return .array(array) }
            while let item = try nextChild(closing: .array) {
                array.append(try value(item.tag, empty: item.empty, depth: depth + 1))
            }
            return .array(array)
        case .string:
            return .string(empty ? "" : try text(closing: .string))
        case .integer:
            let (integer, text) = try scalar(tag, empty: empty, Self.integer)
            guard let integer else {
                let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
                if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return .bigInteger(text) }
                throw failure("<integer> holds \(Self.shown(text))")
            }
            return .integer(integer)
        case .real:
            let (real, text) = try scalar(tag, empty: empty) { Double(String(decoding: $0, as: UTF8.self)) }
            guard let real else { throw failure("<real> holds \(Self.shown(text))") }
            return .real(real)
        case .date:
            let (date, text) = try scalar(tag, empty: empty, PropertyListDate.parse)
            guard let date else { throw failure("<date> holds \(Self.shown(text))") }
            return .date(date)
        case .data:
            let text = empty ? "" : try text(closing: .data)
            guard let data = Data(base64Encoded: text.filter { !$0.isWhitespace }) else {
                throw failure("<data> is not base64")
            }
            return .data(data)
        case .true, .false:
            if !empty {
                try skipWhitespace()
                try closeTag(tag)
            }
            return .boolean(tag == .true)
        case .key:
            throw failure("a <key> outside a dictionary")
        case .plist:
            throw failure("a <plist> inside the property list")
        }
    }

    // MARK: Tags

    /// The next child of an open container, opened: nil once its end tag `</tag>` is read.
    mutating func nextChild(closing tag: Tag) throws(PropertyListError) -> (tag: Tag, empty: Bool)? {
        try skipMisc()
        if atClosingTag {
            try closeTag(tag)
            return nil
        }
        let (child, empty) = try openTag()
        return (child, empty)
    }

    /// The value after a dictionary's key, opened.
    mutating func nextValue() throws(PropertyListError) -> (tag: Tag, empty: Bool) {
        try skipMisc()
        let (item, empty) = try openTag()
        return (item, empty)
    }

    /// The text of a dictionary's `<key>`, opened as `child` (refused if it is not a key).
    mutating func keyText(_ child: (tag: Tag, empty: Bool)) throws(PropertyListError) -> String {
        guard child.tag == .key else { throw failure("a dictionary holds something other than <key> where a key belongs") }
        return child.empty ? "" : try text(closing: .key)
    }

    var atClosingTag: Bool {
        index + 1 < bytes.count && bytes[index] == UInt8(ascii: "<") && bytes[index + 1] == UInt8(ascii: "/")
    }

    /// Reads `<name attributes…>` or `<name …/>`.
    mutating func openTag() throws(PropertyListError) -> (Tag, empty: Bool) {
        if let (tag, empty, end) = quickOpenTag() {
            index = end
            return (tag, empty)
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else {
            throw failure(index < bytes.count ? "expected an element" : "the property list ends too early")
        }
        if atClosingTag { throw failure("a value is missing before </…>") }
        index += 1
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard let tag = tag(from: start, to: index) else {
            throw failure("unknown element <\(Self.shown(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)))>")
        }
        // Attributes (only <plist version="1.0"> has any) are skipped.
        var quote: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                let empty = index >= 2 && bytes[index - 2] == UInt8(ascii: "/")
                return (tag, empty)
            }
        }
        throw failure("the property list ends inside a tag")
    }

    /// `<name>` or `<name/>` of a known element, read from one word of its bytes: nearly every
    /// tag of a catalog. Nil for anything else (attributes, spaces, an unknown name, the last few
    /// bytes of the file), which the careful reading takes. Returns where the tag ends.
    private func quickOpenTag() -> (Tag, empty: Bool, end: Int)? {
        guard index + 10 <= bytes.count, let base = bytes.baseAddress.map({ $0 + index }) else { return nil }
        let word = Self.word(at: base)
        guard word & 0xFF == UInt64(UInt8(ascii: "<")) else { return nil }
        let tag: Tag
        switch UInt8(truncatingIfNeeded: word >> 8) {
        case UInt8(ascii: "k"): tag = .key
        case UInt8(ascii: "s"): tag = .string
        case UInt8(ascii: "d"):
            switch word >> 8 & 0xFFFF_FFFF {
            case Tag.dict.nameWord: tag = .dict
            case Tag.date.nameWord: tag = .date
            case Tag.data.nameWord: tag = .data
            default: return nil
            }
        case UInt8(ascii: "t"): tag = .true
        case UInt8(ascii: "f"): tag = .false
        case UInt8(ascii: "i"): tag = .integer
        case UInt8(ascii: "a"): tag = .array
        case UInt8(ascii: "r"): tag = .real
        case UInt8(ascii: "p"): tag = .plist
        default: return nil
        }
        let length = tag.nameLength
        guard word >> 8 & Self.mask(bytes: length) == tag.nameWord else { return nil }
        switch base[1 + length] {
        case UInt8(ascii: ">"): return (tag, false, index + 2 + length)
        case UInt8(ascii: "/") where base[2 + length] == UInt8(ascii: ">"): return (tag, true, index + 3 + length)
        default: return nil
        }
    }

    /// Eight bytes from `pointer`, the first lowest, as ``nameWord(from:to:)`` reads a name.
    static func word(at pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// The low `count` bytes of a word (count 0 to 8).
    static func mask(bytes count: Int) -> UInt64 {
        count >= 8 ? ~0 : (1 << (8 * UInt64(count))) &- 1
    }

    /// Reads `</name>`.
    mutating func closeTag(_ tag: Tag) throws(PropertyListError) {
        // Usually `</name>` exactly: compared at once.
        let nameEnd = index + 2 + tag.nameLength
        if nameEnd < bytes.count, bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "/"),
           bytes[nameEnd] == UInt8(ascii: ">"), nameWord(from: index + 2, to: nameEnd) == tag.nameWord {
            index = nameEnd + 1
            return
        }
        guard atClosingTag else { throw failure("expected </\(tag)>") }
        index += 2
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard nameWord(from: start, to: index) == tag.nameWord else { throw failure("expected </\(tag)>") }
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw failure("expected </\(tag)>") }
        index += 1
    }

    func tag(from start: Int, to end: Int) -> Tag? {
        switch nameWord(from: start, to: end) {
        case Tag.key.nameWord: return .key
        case Tag.dict.nameWord: return .dict
        case Tag.string.nameWord: return .string
        case Tag.date.nameWord: return .date
        case Tag.true.nameWord: return .true
        case Tag.false.nameWord: return .false
        case Tag.integer.nameWord: return .integer
        case Tag.real.nameWord: return .real
        case Tag.data.nameWord: return .data
        case Tag.array.nameWord: return .array
        case Tag.plist.nameWord: return .plist
        default: return nil
        }
    }

    /// A name's bytes read as one little-endian word (0 for a name of more than 7 bytes, none of
    /// which is an element of a property list): each tag is one comparison. Comparing names
    /// byte by byte against each element's was a tenth of reading a catalog.
    func nameWord(from start: Int, to end: Int) -> UInt64 {
        guard end - start <= 7 else { return 0 }
        if start + 8 <= bytes.count, let base = bytes.baseAddress {
            return Self.word(at: base + start) & Self.mask(bytes: end - start)
        }
        var word: UInt64 = 0
        var position = end
        while position > start {
            position -= 1
            word = word << 8 | UInt64(bytes[position])
        }
        return word
    }

    // MARK: Between elements

    /// Skips white space, comments, processing instructions and the document type declaration.
    mutating func skipMisc() throws(PropertyListError) {
        while true {
            try skipWhitespace()
            // Between the elements of a catalog there is seldom anything but a tag: only `<!` and
            // `<?` can start what is skipped.
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "<"),
                  bytes[index + 1] == UInt8(ascii: "!") || bytes[index + 1] == UInt8(ascii: "?") else { return }
            if starts(with: "<!--") {
                guard let close = find("-->") else { throw failure("an unterminated comment") }
                index = close + 3
            } else if starts(with: "<?") {
                guard let close = find("?>") else { throw failure("an unterminated processing instruction") }
                index = close + 2
            } else if starts(with: "<!DOCTYPE") {
                try skipDoctype()
            } else {
                return
            }
        }
    }

    mutating func skipDoctype() throws(PropertyListError) {
        var quote: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                // An internal subset is where entities (which can expand a small file into
                // gigabytes) are declared; a catalog has no use for one.
                if let entity = find("<!ENTITY"), entity < (find(UInt8(ascii: "]"), from: index) ?? bytes.count) {
                    throw PropertyListError(kind: .entityDeclaration)
                }
                throw PropertyListError("it declares an internal DTD subset, which is not allowed")
            } else if byte == UInt8(ascii: ">") {
                index += 1
                return
            }
            index += 1
        }
        throw failure("an unterminated <!DOCTYPE>")
    }

    mutating func skipWhitespace() throws(PropertyListError) {
        var position = index
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        index = position
    }

    // MARK: Scanning

    func starts(with literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0
    }

    func find(_ byte: UInt8, from start: Int, to end: Int? = nil) -> Int? {
        bytes.firstIndex(of: byte, from: start, to: end ?? bytes.count)
    }

    func find(_ literal: StaticString) -> Int? {
        let count = literal.utf8CodeUnitCount
        var start = index
        while let candidate = find(literal.utf8Start[0], from: start) {
            guard candidate + count <= bytes.count else { return nil }
            if memcmp(bytes.baseAddress! + candidate, literal.utf8Start, count) == 0 { return candidate }
            start = candidate + 1
        }
        return nil
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        // Space, tab, line feed and carriage return as bits of one word: a shift, not four comparisons.
        byte <= 0x20 && (0x1_0000_2600 as UInt64) >> byte & 1 != 0
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "!")
    }

    /// A decimal or `0x` hexadecimal integer with an optional sign that fits in 64 bits.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var radix: UInt64 = 10
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "0"), bytes[index + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            index += 2
        }
        guard index < bytes.count else { return nil }
        var magnitude: UInt64 = 0
        while index < bytes.count {
            let byte = bytes[index]
            let digit: UInt64
            switch byte {
            case 0x30...0x39: digit = UInt64(byte - 0x30)
            case 0x61...0x66 where radix == 16: digit = UInt64(byte - 0x61 + 10)
            case 0x41...0x46 where radix == 16: digit = UInt64(byte - 0x41 + 10)
            default: return nil
            }
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            magnitude = sum
            index += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    static func shown(_ text: String) -> String {
        "\"" + TextSanitizer.inert(String(text.prefix(40))) + "\""
    }

    func failure(_ reason: String) -> PropertyListError {
        let end = min(index, bytes.count)
        var line = 1
        var position = 0
        while position < end, let base = bytes.baseAddress,
              let found = memchr(base + position, 0x0A, end - position) {
            line += 1
            position = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return PropertyListError("line \(line): \(reason)")
    }
}
