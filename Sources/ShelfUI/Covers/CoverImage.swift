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

    /// Whether the cells stand for a picture the terminal draws (kitty's placeholders), rather
    /// than symbols.
    var isPicture: Bool { cells.first.map { KittyGraphics.isPlaceholder($0.text) } ?? false }

    /// Copies the cells into `area`, cut to it; a picture that fits whole is listed in the buffer.
    func render(into buffer: inout Buffer, area: Rect) {
        if isPicture, area.width >= columns, area.height >= rows, let id = KittyGraphics.id(of: cells[0].style.foreground),
           area.x >= 0, area.y >= 0, area.x + columns <= buffer.width, area.y + rows <= buffer.height {
            buffer.pictures.append(PictureLayer.Placement(id: id, x: area.x, y: area.y, columns: columns, rows: rows))
        }
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

    /// Covers drawn as symbols are kept at most this many pixels wide and high: plenty for
    /// sextants (2×3 per cell) on a card, and 60 KB a cover rather than megabytes.
    static let maximumSide = 144

    /// Scales `pixels` (width × height RGB) down to fit `maximumSide`, averaging each box.
    init(scaling pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, maximumSide: Int = Self.maximumSide) {
        precondition(pixels.count >= width * height * 3 && width > 0 && height > 0)
        let scale = max(1.0, Double(max(width, height)) / Double(maximumSide))
        let outWidth = max(1, Int(Double(width) / scale)), outHeight = max(1, Int(Double(height) / scale))
        var rgb = [UInt8](repeating: 0, count: outWidth * outHeight * 3)
        Self.resample(pixels, width: width, height: height, outWidth: outWidth, outHeight: outHeight) { x, y, red, green, blue in
            let out = (y * outWidth + x) * 3
            rgb[out] = red
            rgb[out + 1] = green
            rgb[out + 2] = blue
        }
        self.width = outWidth
        self.height = outHeight
        self.rgb = rgb
    }
}

extension CoverPixels {
    /// Each pixel of an `outWidth` × `outHeight` image made from `pixels` (`width` × `height`
    /// RGB): the average of the source box under it, at least one source pixel when enlarging.
    static func resample(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, outWidth: Int, outHeight: Int,
                         _ put: (_ x: Int, _ y: Int, _ red: UInt8, _ green: UInt8, _ blue: UInt8) -> Void) {
        for y in 0..<outHeight {
            let y0 = y * height / outHeight, y1 = max(y0 + 1, (y + 1) * height / outHeight)
            for x in 0..<outWidth {
                let x0 = x * width / outWidth, x1 = max(x0 + 1, (x + 1) * width / outWidth)
                var red = 0, green = 0, blue = 0, count = 0
                for sy in y0..<min(y1, height) {
                    var index = (sy * width + x0) * 3
                    for _ in x0..<min(x1, width) {
                        red += Int(pixels[index])
                        green += Int(pixels[index + 1])
                        blue += Int(pixels[index + 2])
                        count += 1
                        index += 3
                    }
                }
                count = max(count, 1)
                put(x, y, UInt8(red / count), UInt8(green / count), UInt8(blue / count))
            }
        }
    }

    /// The cover fitted into a `width` × `height` box, its proportions kept and centred, the rest
    /// transparent: RGBA, 4 bytes a pixel. A picture fills its cells without being stretched.
    func fitted(width boxWidth: Int, height boxHeight: Int) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: boxWidth * boxHeight * 4)
        let scale = min(Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
        let outWidth = max(1, min(boxWidth, Int((Double(width) * scale).rounded())))
        let outHeight = max(1, min(boxHeight, Int((Double(height) * scale).rounded())))
        let left = (boxWidth - outWidth) / 2, top = (boxHeight - outHeight) / 2
        rgb.withUnsafeBufferPointer { pixels in
            Self.resample(pixels, width: width, height: height, outWidth: outWidth, outHeight: outHeight) { x, y, red, green, blue in
                let out = ((top + y) * boxWidth + left + x) * 4
                rgba[out] = red
                rgba[out + 1] = green
                rgba[out + 2] = blue
                rgba[out + 3] = 255
            }
        }
        return rgba
    }
}

extension CoverImage {
    /// A picture's cells: kitty's placeholders, the picture named by their foreground colour;
    /// terminals with other protocols write blanks there and the picture over them.
    static func picture(id: UInt32, columns: Int, rows: Int) -> CoverImage {
        var cells: [Cell] = []
        cells.reserveCapacity(columns * rows)
        let style = Style(foreground: KittyGraphics.color(for: id))
        for row in 0..<rows {
            for column in 0..<columns {
                cells.append(Cell(KittyGraphics.cellText(row: row, column: column), style: style))
            }
        }
        return CoverImage(columns: columns, rows: rows, cells: cells)
    }
}
