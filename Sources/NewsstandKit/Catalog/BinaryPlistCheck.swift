import Foundation

/// A structural check of a binary property list before Foundation parses it.
///
/// Found by fuzzing: a corrupted binary plist holding a set crashes Foundation's bridging of
/// `NSSet` (a null dereference in the Swift runtime). A catalog never needs sets, so a file whose
/// trailer, offset table or object markers are out of range, or that contains a set, is refused.
enum BinaryPlistCheck {
    static func check(_ data: Data) throws(NewsstandError) {
        let bytes = [UInt8](data)
        func refuse(_ reason: String) -> NewsstandError {
            NewsstandError(.invalidCatalog, "The catalog is not a valid binary property list (\(reason)).")
        }
        guard bytes.count >= 8 + 32 else { throw refuse("too short") }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        func integer(_ at: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for index in at..<at + size { value = value << 8 | UInt64(bytes[index]) }
            return value > UInt64(Int.max) ? nil : Int(value)
        }
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              let objectCount = integer(trailer + 8, 8), let topObject = integer(trailer + 16, 8),
              let tableOffset = integer(trailer + 24, 8)
        else { throw refuse("bad trailer") }
        guard objectCount > 0, objectCount <= bytes.count, topObject < objectCount,
              tableOffset >= 8, tableOffset <= trailer, objectCount <= (trailer - tableOffset) / offsetSize
        else { throw refuse("bad offset table") }
        for index in 0..<objectCount {
            guard let offset = integer(tableOffset + index * offsetSize, offsetSize), offset >= 8, offset < tableOffset else {
                throw refuse("an object lies outside the file")
            }
            if bytes[offset] >> 4 == 0xC { throw refuse("it contains a set") }
        }
    }
}
