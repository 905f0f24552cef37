import Foundation

/// How close a cover drawn in cells comes to its picture: the mean CIEDE2000 difference between
/// each sixth of a cell's half-width of the picture (a 2 × 6 grid per cell, on which every
/// symbol the shelf draws with is exact) and the colour the terminal shows there.
///
/// The measure behind ``CoverTuning/chosen(for:)``, run by `make bench` on real covers,
/// photographs, gradients and text. A palette's first 16 colours are taken as xterm's.
public enum CoverFidelity {
    /// The mean difference for a picture (PNG, JPEG, …) drawn at `columns` × `rows` cells; nil
    /// when it cannot be decoded or drawn.
    public static func meanDifference(ofPicture data: Data, columns: Int, rows: Int, colors: ColorSupport,
                                      tuning: CoverTuning) -> Double? {
        guard let pixels = CoverDecoder.decode(data),
              let canvas = ChafaCanvas(columns: columns, rows: rows, colors: colors, tuning: tuning) else { return nil }
        let image = canvas.render(pixels)
        var total = 0.0
        var count = 0
        for row in 0..<rows {
            for column in 0..<columns {
                let cell = image.cells[row * columns + column]
                guard let scalar = cell.text.unicodeScalars.first, let mask = mask(of: scalar) else { continue }
                let foreground = lab(cell.style.foreground), background = lab(cell.style.background)
                for part in 0..<12 {
                    let (x, y) = (part % 2, part / 2)
                    let source = lab(mean(of: pixels, x0: Double(column * 2 + x) / Double(columns * 2), x1: Double(column * 2 + x + 1) / Double(columns * 2),
                                          y0: Double(row * 6 + y) / Double(rows * 6), y1: Double(row * 6 + y + 1) / Double(rows * 6)))
                    total += ciede2000(source, mask & (1 << part) != 0 ? foreground : background)
                    count += 1
                }
            }
        }
        return count == 0 ? nil : total / Double(count)
    }

    /// Which of a cell's 2 × 6 parts a symbol fills with its foreground (bit `row * 2 + column`);
    /// nil for a symbol outside the shelf's set.
    static func mask(of symbol: Unicode.Scalar) -> UInt16? {
        let left: UInt16 = 0b0101_0101_0101, right: UInt16 = 0b1010_1010_1010
        let top: UInt16 = 0b0000_0011_1111, bottom: UInt16 = 0b1111_1100_0000
        switch symbol.value {
        case 0x20: return 0
        case 0x2588: return 0xFFF
        case 0x2580: return top
        case 0x2584: return bottom
        case 0x258C: return left
        case 0x2590: return right
        case 0x2596...0x259F:
            // ▖ ▗ ▘ ▙ ▚ ▛ ▜ ▝ ▞ ▟ as quadrants: upper left, upper right, lower left, lower right.
            let quadrants: [[Int]] = [[2], [3], [0], [0, 2, 3], [0, 3], [0, 1, 2], [0, 1, 3], [1], [1, 2], [1, 2, 3]]
            let masks: [UInt16] = [top & left, top & right, bottom & left, bottom & right]
            return quadrants[Int(symbol.value - 0x2596)].reduce(0) { $0 | masks[$1] }
        case 0x1FB00...0x1FB3B:
            // Sextants enumerate the patterns 1…62 of six bits (top left first), less the two
            // half blocks (21 and 42), which are ▌ and ▐.
            var pattern = Int(symbol.value - 0x1FB00) + 1
            if pattern >= 21 { pattern += 1 }
            if pattern >= 42 { pattern += 1 }
            var mask: UInt16 = 0
            for bit in 0..<6 where pattern & (1 << bit) != 0 {
                let (x, y) = (bit % 2, bit / 2)
                mask |= (1 << UInt16(y * 4 + x)) | (1 << UInt16(y * 4 + 2 + x))
            }
            return mask
        default:
            return nil
        }
    }

    /// The mean colour, in linear light, of the picture's part between the given fractions.
    private static func mean(of pixels: CoverPixels, x0: Double, x1: Double, y0: Double, y1: Double) -> (Double, Double, Double) {
        let left = Int(x0 * Double(pixels.width)), right = max(left + 1, Int((x1 * Double(pixels.width)).rounded(.up)))
        let upper = Int(y0 * Double(pixels.height)), lower = max(upper + 1, Int((y1 * Double(pixels.height)).rounded(.up)))
        var sum = (0.0, 0.0, 0.0), count = 0.0
        for y in upper..<min(lower, pixels.height) {
            for x in left..<min(right, pixels.width) {
                let index = (y * pixels.width + x) * 3
                sum.0 += linear(pixels.rgb[index])
                sum.1 += linear(pixels.rgb[index + 1])
                sum.2 += linear(pixels.rgb[index + 2])
                count += 1
            }
        }
        return count == 0 ? (0, 0, 0) : (sum.0 / count, sum.1 / count, sum.2 / count)
    }

    private static func linear(_ value: UInt8) -> Double {
        let c = Double(value) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    private static func lab(_ color: Color) -> (Double, Double, Double) {
        let rgb: (UInt8, UInt8, UInt8)
        switch color {
        case .rgb(let red, let green, let blue): rgb = (red, green, blue)
        case .palette(let index): rgb = Color.rgb(ofPalette: index)
        case .default: rgb = (0, 0, 0)
        }
        return lab((linear(rgb.0), linear(rgb.1), linear(rgb.2)))
    }

    /// CIE L*a*b* (D65) of a linear sRGB colour.
    private static func lab(_ rgb: (Double, Double, Double)) -> (Double, Double, Double) {
        let x = (0.4124 * rgb.0 + 0.3576 * rgb.1 + 0.1805 * rgb.2) / 0.95047
        let y = 0.2126 * rgb.0 + 0.7152 * rgb.1 + 0.0722 * rgb.2
        let z = (0.0193 * rgb.0 + 0.1192 * rgb.1 + 0.9505 * rgb.2) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// CIEDE2000 (Sharma, Wu and Dalal's formulation).
    static func ciede2000(_ first: (Double, Double, Double), _ second: (Double, Double, Double)) -> Double {
        let (l1, a1, b1) = first, (l2, a2, b2) = second
        let c1 = (a1 * a1 + b1 * b1).squareRoot(), c2 = (a2 * a2 + b2 * b2).squareRoot()
        let cMean7 = pow((c1 + c2) / 2, 7)
        let g = 0.5 * (1 - (cMean7 / (cMean7 + pow(25, 7))).squareRoot())
        let a1p = a1 * (1 + g), a2p = a2 * (1 + g)
        let c1p = (a1p * a1p + b1 * b1).squareRoot(), c2p = (a2p * a2p + b2 * b2).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let angle = atan2(b, a) * 180 / .pi
            return angle < 0 ? angle + 360 : angle
        }
        let h1p = hue(b1, a1p), h2p = hue(b2, a2p)
        let dLp = l2 - l1, dCp = c2p - c1p
        var dhp = 0.0
        if c1p * c2p != 0 {
            dhp = h2p - h1p
            if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
        }
        let dHp = 2 * (c1p * c2p).squareRoot() * sin(dhp * .pi / 360)
        let lMean = (l1 + l2) / 2, cMean = (c1p + c2p) / 2
        var hMean = h1p + h2p
        if c1p * c2p != 0 {
            if abs(h1p - h2p) <= 180 { hMean /= 2 } else { hMean = h1p + h2p < 360 ? (hMean + 360) / 2 : (hMean - 360) / 2 }
        }
        func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
        let t = 1 - 0.17 * cos(radians(hMean - 30)) + 0.24 * cos(radians(2 * hMean)) + 0.32 * cos(radians(3 * hMean + 6))
            - 0.20 * cos(radians(4 * hMean - 63))
        let dTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
        let cMeanP7 = pow(cMean, 7)
        let rC = 2 * (cMeanP7 / (cMeanP7 + pow(25, 7))).squareRoot()
        let sL = 1 + 0.015 * pow(lMean - 50, 2) / (20 + pow(lMean - 50, 2)).squareRoot()
        let sC = 1 + 0.045 * cMean, sH = 1 + 0.015 * cMean * t
        let rT = -sin(radians(2 * dTheta)) * rC
        let terms = (dLp / sL, dCp / sC, dHp / sH)
        return (terms.0 * terms.0 + terms.1 * terms.1 + terms.2 * terms.2 + rT * terms.1 * terms.2).squareRoot()
    }
}
