/// A cover drawn as cells, made for one size and one kind of terminal colour: for each cell a
/// symbol (a block, half, quadrant or sextant) and the two colours that fit its pixels best.
public struct CoverImage: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    /// Row by row.
    let cells: [Cell]

    init(columns: Int, rows: Int, cells: [Cell]) {
        precondition(cells.count == columns * rows)
        self.columns = columns
        self.rows = rows
        self.cells = cells
    }

    /// Copies the cells into `area`, cut to it.
    func render(into buffer: inout Buffer, area: Rect) {
        for row in 0..<min(rows, area.height) {
            for column in 0..<min(columns, area.width) {
                buffer.set(area.x + column, area.y + row, cells[row * columns + column])
            }
        }
    }
}

/// A decoded cover kept small: RGB pixels, 3 bytes each, row by row.
struct CoverPixels: Sendable {
    let width: Int
    let height: Int
    let rgb: [UInt8]

    /// Covers are kept at most this many pixels wide and high: plenty for sextants (2×3 per cell)
    /// on a card, and 60 KB a cover rather than megabytes.
    static let maximumSide = 144

    /// Scales `pixels` (width × height RGB) down to fit ``maximumSide``, averaging each box.
    init(scaling pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        precondition(pixels.count >= width * height * 3 && width > 0 && height > 0)
        let scale = max(1.0, Double(max(width, height)) / Double(Self.maximumSide))
        let outWidth = max(1, Int(Double(width) / scale)), outHeight = max(1, Int(Double(height) / scale))
        var rgb = [UInt8](repeating: 0, count: outWidth * outHeight * 3)
        for py in 0..<outHeight {
            let y0 = py * height / outHeight, y1 = max(y0 + 1, (py + 1) * height / outHeight)
            for px in 0..<outWidth {
                let x0 = px * width / outWidth, x1 = max(x0 + 1, (px + 1) * width / outWidth)
                var red = 0, green = 0, blue = 0, count = 0
                for y in y0..<min(y1, height) {
                    var index = (y * width + x0) * 3
                    for _ in x0..<min(x1, width) {
                        red += Int(pixels[index])
                        green += Int(pixels[index + 1])
                        blue += Int(pixels[index + 2])
                        count += 1
                        index += 3
                    }
                }
                count = max(count, 1)
                let out = (py * outWidth + px) * 3
                rgb[out] = UInt8(red / count)
                rgb[out + 1] = UInt8(green / count)
                rgb[out + 2] = UInt8(blue / count)
            }
        }
        self.width = outWidth
        self.height = outHeight
        self.rgb = rgb
    }
}
