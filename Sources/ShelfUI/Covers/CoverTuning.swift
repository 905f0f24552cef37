/// How chafa is asked to turn a cover into a terminal's colours: the colour space it matches
/// in, whether it dithers, and which palette colours it may use. The choice for each kind of
/// terminal was made by measuring (`make bench`'s cover-colour rows, CIEDE2000 against the
/// picture) and is kept here.
public struct CoverTuning: Sendable, Equatable, CustomStringConvertible {
    public enum Dither: String, Sendable, CaseIterable { case none, ordered, diffusion }
    public enum Palette: String, Sendable, CaseIterable {
        /// The 240 colours above the first 16, which terminal themes redefine.
        case above16
        /// All 256, the first 16 as xterm has them.
        case all
    }

    /// Matching in DIN99d, a space where distances follow what the eye sees, instead of RGB.
    public var din99d: Bool
    public var dither: Dither
    public var palette: Palette

    public init(din99d: Bool, dither: Dither, palette: Palette) {
        self.din99d = din99d
        self.dither = dither
        self.palette = palette
    }

    public var description: String { "\(din99d ? "DIN99d" : "RGB"), dither \(dither.rawValue), \(palette == .above16 ? "240" : "256") colours" }

    /// What the shelf uses for `colors`.
    public static func chosen(for colors: ColorSupport) -> CoverTuning {
        // Measured on six photographs and the demo's covers (mean CIEDE2000, lower is closer):
        // 256 colours in RGB 9.97 / 9.35, in DIN99d 8.89 / 7.34; dithering and the first 16
        // colours only added to it. 16 colours: 24.5 / 20.7 at best, so those terminals get
        // text cards. Truecolor: 4.18 / 3.31, whatever the setting.
        switch colors {
        case .direct, .none: CoverTuning(din99d: false, dither: .none, palette: .above16)
        case .palette256, .basic: CoverTuning(din99d: true, dither: .none, palette: .above16)
        }
    }

    /// Every combination worth measuring for `colors`.
    public static func candidates(for colors: ColorSupport) -> [CoverTuning] {
        if colors == .direct { return [chosen(for: colors)] }
        let palettes: [Palette] = colors == .palette256 ? Palette.allCases : [.above16]
        return [false, true].flatMap { din99d in
            Dither.allCases.flatMap { dither in palettes.map { CoverTuning(din99d: din99d, dither: dither, palette: $0) } }
        }
    }
}
