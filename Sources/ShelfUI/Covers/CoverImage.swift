/// A cover scaled to a small grid of cells, two pixels per cell (upper and lower half).
public struct CoverImage: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    /// Palette indices, row by row: the upper pixel of each cell.
    let upper: [UInt8]
    /// The lower pixel of each cell.
    let lower: [UInt8]

    /// Scales RGB pixels (3 bytes each, row by row) to `columns` × `rows` cells by averaging.
    public init(rgb pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, columns: Int, rows: Int) {
        precondition(pixels.count >= width * height * 3 && width > 0 && height > 0)
        self.columns = columns
        self.rows = rows
        let pixelRows = rows * 2
        var samples = [UInt8](repeating: 0, count: columns * pixelRows)
        for py in 0..<pixelRows {
            let y0 = py * height / pixelRows, y1 = max(y0 + 1, (py + 1) * height / pixelRows)
            for px in 0..<columns {
                let x0 = px * width / columns, x1 = max(x0 + 1, (px + 1) * width / columns)
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
                samples[py * columns + px] = Self.paletteIndex(red: red / count, green: green / count, blue: blue / count)
            }
        }
        var upper = [UInt8](repeating: 0, count: columns * rows)
        var lower = upper
        for row in 0..<rows {
            for column in 0..<columns {
                upper[row * columns + column] = samples[row * 2 * columns + column]
                lower[row * columns + column] = samples[(row * 2 + 1) * columns + column]
            }
        }
        self.upper = upper
        self.lower = lower
    }

    /// Draws the cover with `▀`: the foreground paints the upper pixel, the background the lower.
    func render(into buffer: inout Buffer, area: Rect) {
        for row in 0..<min(rows, area.height) {
            for column in 0..<min(columns, area.width) {
                let index = row * columns + column
                let style = Style(foreground: .palette(upper[index]), background: .palette(lower[index]))
                buffer.set(area.x + column, area.y + row, Cell("▀", style: style))
            }
        }
    }

    /// The nearest colour of the xterm 256-colour palette: the 6×6×6 cube or the grey ramp.
    static func paletteIndex(red: Int, green: Int, blue: Int) -> UInt8 {
        let levels = [0, 95, 135, 175, 215, 255]
        func cubeStep(_ value: Int) -> Int {
            value < 48 ? 0 : value < 115 ? 1 : (value - 35) / 40
        }
        let r = cubeStep(red), g = cubeStep(green), b = cubeStep(blue)
        let cubeDistance = distance(red, green, blue, levels[r], levels[g], levels[b])
        let average = (red + green + blue) / 3
        let greyStep = average > 238 ? 23 : max(0, (average - 3) / 10)
        let grey = 8 + greyStep * 10
        let greyDistance = distance(red, green, blue, grey, grey, grey)
        if greyDistance < cubeDistance { return UInt8(232 + greyStep) }
        return UInt8(16 + 36 * r + 6 * g + b)
    }

    private static func distance(_ r1: Int, _ g1: Int, _ b1: Int, _ r2: Int, _ g2: Int, _ b2: Int) -> Int {
        (r1 - r2) * (r1 - r2) + (g1 - g2) * (g1 - g2) + (b1 - b2) * (b1 - b2)
    }
}
