import Foundation

/// kitty's graphics protocol (sw.kovidgoyal.net/kitty/graphics-protocol): an image is sent once
/// under an ID, then shown either by cells of a placeholder character whose foreground colour
/// names the image and whose combining marks name the row and column, or placed at the cursor.
/// Every command asks for no answer (`q=2`): answers would arrive as keys.
enum KittyGraphics {
    static let placeholder: Unicode.Scalar = "\u{10EEEE}"

    /// The combining marks that number a placeholder's row and column (the first entries of
    /// kitty's rowcolumn-diacritics.txt: enough for a cover of 30 × 30 cells).
    static let diacritics: [UInt32] = [
        0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A, 0x034B, 0x034C,
        0x0350, 0x0351, 0x0352, 0x0357, 0x035B, 0x0363, 0x0364, 0x0365, 0x0366, 0x0367, 0x0368, 0x0369,
        0x036A, 0x036B, 0x036C, 0x036D, 0x036E, 0x036F,
    ]

    /// The text of the placeholder cell at `row`, `column` of a picture.
    static func cellText(row: Int, column: Int) -> String {
        var text = String(Character(placeholder))
        text.unicodeScalars.append(Unicode.Scalar(diacritics[min(row, diacritics.count - 1)])!)
        text.unicodeScalars.append(Unicode.Scalar(diacritics[min(column, diacritics.count - 1)])!)
        return text
    }

    /// Each diacritic's number.
    private static let numbers: [UInt32: Int] = Dictionary(uniqueKeysWithValues: diacritics.enumerated().map { ($1, $0) })

    /// Whether a cell's text starts with the placeholder: its first UTF-8 byte (F4) rules out
    /// nearly every other cell without decoding it.
    static func isPlaceholder(_ text: String) -> Bool {
        text.utf8.first == 0xF4 && text.unicodeScalars.first == placeholder
    }

    /// The row and column a placeholder cell's text names; nil for any other text. Read for
    /// every picture cell of every frame: no allocation.
    static func position(of text: String) -> (row: Int, column: Int)? {
        guard text.utf8.first == 0xF4 else { return nil }
        var scalars = text.unicodeScalars.makeIterator()
        guard scalars.next() == placeholder, let row = scalars.next().flatMap({ numbers[$0.value] }),
              let column = scalars.next().flatMap({ numbers[$0.value] }), scalars.next() == nil
        else { return nil }
        return (row, column)
    }

    /// The foreground colour that names image `id`: 24-bit where the terminal has it, else the
    /// palette index (IDs below 256 then).
    static func color(for id: UInt32) -> Color {
        id < 256 ? .palette(UInt8(id)) : .rgb(UInt8((id >> 16) & 0xFF), UInt8((id >> 8) & 0xFF), UInt8(id & 0xFF))
    }

    /// The image a placeholder's foreground colour names.
    static func id(of color: Color) -> UInt32? {
        switch color {
        case .palette(let index): return UInt32(index)
        case .rgb(let red, let green, let blue): return UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
        case .default: return nil
        }
    }

    /// Sends RGBA pixels (4 bytes each, row by row) as image `id` without showing them (`a=t`),
    /// in pieces of 4096 base64 characters as the protocol asks.
    static func transmit(id: UInt32, rgba: [UInt8], width: Int, height: Int) -> [UInt8] {
        let encoded = Array(Data(rgba).base64EncodedString().utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count + encoded.count / 4096 * 16 + 64)
        var start = 0
        repeat {
            let end = min(encoded.count, start + 4096)
            let more = end < encoded.count ? 1 : 0
            let control = start == 0 ? "a=t,q=2,f=32,s=\(width),v=\(height),i=\(id),m=\(more)" : "m=\(more)"
            bytes += Array("\u{1B}_G\(control);".utf8) + encoded[start..<end] + Array("\u{1B}\\".utf8)
            start = end
        } while start < encoded.count
        return bytes
    }

    /// A virtual placement of image `id` over `columns` × `rows` cells, for placeholder cells to show.
    static func virtualPlacement(id: UInt32, columns: Int, rows: Int) -> [UInt8] {
        Array("\u{1B}_Ga=p,U=1,q=2,i=\(id),c=\(columns),r=\(rows)\u{1B}\\".utf8)
    }

    /// Shows image `id` at the cursor over `columns` × `rows` cells, without moving the cursor.
    static func place(id: UInt32, placement: UInt32, columns: Int, rows: Int) -> [UInt8] {
        Array("\u{1B}_Ga=p,q=2,i=\(id),p=\(placement),c=\(columns),r=\(rows),C=1\u{1B}\\".utf8)
    }

    /// Removes one placement of image `id`, keeping the image for the next.
    static func deletePlacement(id: UInt32, placement: UInt32) -> [UInt8] {
        Array("\u{1B}_Ga=d,d=i,q=2,i=\(id),p=\(placement)\u{1B}\\".utf8)
    }

    /// Wraps a sequence in tmux's passthrough (`allow-passthrough on`), its escapes doubled.
    static func throughTmux(_ sequence: [UInt8]) -> [UInt8] {
        var bytes = Array("\u{1B}Ptmux;".utf8)
        bytes.reserveCapacity(sequence.count + 16)
        for byte in sequence {
            if byte == 0x1B { bytes.append(0x1B) }
            bytes.append(byte)
        }
        return bytes + Array("\u{1B}\\".utf8)
    }
}
