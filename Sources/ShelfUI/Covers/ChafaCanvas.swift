import CChafa
import NewsstandKit

/// libchafa's canvas for one size and colour mode: pixels in, a symbol and two colours per cell
/// out. Owns its canvas, configuration and symbol map and frees them in `deinit`. The only file
/// that imports chafa.
final class ChafaCanvas {
    /// libchafa's entry points, looked up the first time a cover is drawn (see CChafa's shim for
    /// why it is opened rather than linked). Never closed: it lives as long as the process.
    private struct Library: @unchecked Sendable {
        let entryPoints: UnsafePointer<cchafa_library>

        /// The process's libchafa; nil when it cannot be opened, and then covers are text cards.
        static let shared = try? EntryPointTable.load("libchafa.so.0", empty: cchafa_library(), { cchafa_library_open($0, $1) }).map(Library.init).get()
    }

    private let chafa: UnsafePointer<cchafa_library>
    private let symbols: OpaquePointer
    private let config: OpaquePointer
    private let canvas: OpaquePointer
    private let columns: Int
    private let rows: Int
    private let colors: ColorSupport

    /// Nil for a terminal without a palette of 256 colours, which gets text cards (16 colours
    /// lose a cover's hues: measured, see ``CoverTuning``), unless `tuning` asks for one anyway.
    init?(columns: Int, rows: Int, colors: ColorSupport, tuning: CoverTuning? = nil) {
        guard columns > 0, rows > 0, colors != .none, colors >= .palette256 || tuning != nil else { return nil }
        guard let chafa = Library.shared?.entryPoints else { return nil }
        let tuning = tuning ?? CoverTuning.chosen(for: colors)
        self.chafa = chafa
        self.columns = columns
        self.rows = rows
        self.colors = colors
        symbols = cchafa_symbol_map_new(chafa)
        cchafa_symbol_map_add_by_tags(chafa, symbols, cchafa_cover_symbols())
        config = cchafa_canvas_config_new(chafa)
        cchafa_canvas_config_set_geometry(chafa, config, Int32(columns), Int32(rows))
        let mode = switch (colors, tuning.palette) {
        case (.direct, _): CHAFA_CANVAS_MODE_TRUECOLOR
        case (.basic, _): CHAFA_CANVAS_MODE_INDEXED_16
        // The 240 colours above the first 16, which terminal themes redefine, or all 256.
        case (_, .above16): CHAFA_CANVAS_MODE_INDEXED_240
        case (_, .all): CHAFA_CANVAS_MODE_INDEXED_256
        }
        cchafa_canvas_config_set_canvas_mode(chafa, config, mode)
        cchafa_canvas_config_set_color_space(chafa, config, tuning.din99d ? CHAFA_COLOR_SPACE_DIN99D : CHAFA_COLOR_SPACE_RGB)
        let dither = switch tuning.dither {
        case .none: CHAFA_DITHER_MODE_NONE
        case .ordered: CHAFA_DITHER_MODE_ORDERED
        case .diffusion: CHAFA_DITHER_MODE_DIFFUSION
        }
        cchafa_canvas_config_set_dither_mode(chafa, config, dither)
        cchafa_canvas_config_set_symbol_map(chafa, config, symbols)
        cchafa_canvas_config_set_work_factor(chafa, config, 0.5)
        canvas = cchafa_canvas_new(chafa, config)
    }

    deinit {
        cchafa_canvas_unref(chafa, canvas)
        cchafa_canvas_config_unref(chafa, config)
        cchafa_symbol_map_unref(chafa, symbols)
    }

    /// Draws `pixels` over the whole canvas and reads back its cells.
    func render(_ pixels: CoverPixels) -> CoverImage {
        pixels.rgb.withUnsafeBufferPointer { rgb in
            cchafa_canvas_draw_all_pixels(chafa, canvas, CHAFA_PIXEL_RGB8, rgb.baseAddress, Int32(pixels.width), Int32(pixels.height),
                                         Int32(pixels.width * 3))
        }
        var cells: [Cell] = []
        cells.reserveCapacity(columns * rows)
        for y in 0..<rows {
            for x in 0..<columns {
                let symbol = Unicode.Scalar(UInt32(cchafa_canvas_get_char_at(chafa, canvas, Int32(x), Int32(y)))) ?? " "
                var foreground: Int32 = 0, background: Int32 = 0
                // Packed RGB in truecolor; the palette indices themselves otherwise ("raw").
                if colors == .direct {
                    cchafa_canvas_get_colors_at(chafa, canvas, Int32(x), Int32(y), &foreground, &background)
                } else {
                    cchafa_canvas_get_raw_colors_at(chafa, canvas, Int32(x), Int32(y), &foreground, &background)
                }
                cells.append(Cell(String(symbol), style: Style(foreground: color(foreground), background: color(background))))
            }
        }
        return CoverImage(columns: columns, rows: rows, cells: cells)
    }

    /// A picture for a terminal that shows sixel or iTerm2 images: `rgba` (`width` × `height`,
    /// 4 bytes a pixel) as the escape sequence that draws it over `columns` × `rows` cells of
    /// `cellWidth` × `cellHeight` pixels at the cursor. chafa writes the sequence with the
    /// terminal description of a terminal known to show them (mlterm's sixels, iTerm2's images).
    static func picture(rgba: [UInt8], width: Int, height: Int, columns: Int, rows: Int, cellWidth: Int, cellHeight: Int,
                        sixel: Bool) -> [UInt8] {
        guard let chafa = Library.shared?.entryPoints else { return [] }
        let config = cchafa_canvas_config_new(chafa)
        defer { cchafa_canvas_config_unref(chafa, config) }
        cchafa_canvas_config_set_geometry(chafa, config, Int32(columns), Int32(rows))
        cchafa_canvas_config_set_cell_geometry(chafa, config, Int32(cellWidth), Int32(cellHeight))
        cchafa_canvas_config_set_pixel_mode(chafa, config, sixel ? CHAFA_PIXEL_MODE_SIXELS : CHAFA_PIXEL_MODE_ITERM2)
        cchafa_canvas_config_set_canvas_mode(chafa, config, CHAFA_CANVAS_MODE_TRUECOLOR)
        guard let canvas = cchafa_canvas_new(chafa, config) else { return [] }
        defer { cchafa_canvas_unref(chafa, canvas) }
        rgba.withUnsafeBufferPointer { pixels in
            cchafa_canvas_draw_all_pixels(chafa, canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress, Int32(width), Int32(height), Int32(width * 4))
        }
        let environment = sixel ? ["TERM=mlterm"] : ["TERM=xterm-256color", "TERM_PROGRAM=iTerm.app"]
        var variables: [UnsafeMutablePointer<gchar>?] = environment.map { strdup($0) } + [nil]
        defer { variables.forEach { free($0) } }
        guard let info = variables.withUnsafeMutableBufferPointer({ cchafa_term_db_detect(chafa, cchafa_term_db_get_default(chafa), $0.baseAddress) }) else { return [] }
        defer { cchafa_term_info_unref(chafa, info) }
        guard let printed = cchafa_canvas_print(chafa, canvas, info) else { return [] }
        defer { cchafa_string_free(chafa, printed) }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(printed.pointee.str).assumingMemoryBound(to: UInt8.self), count: Int(printed.pointee.len)))
    }

    /// A colour chafa handed back: packed RGB in truecolor mode, a palette index otherwise; a
    /// negative value (transparent) becomes the terminal's default.
    private func color(_ value: Int32) -> Color {
        guard value >= 0 else { return .default }
        if colors == .direct {
            return .rgb(UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
        }
        // Above 255 are chafa's own markers (transparent, the terminal's colours).
        return value < 256 ? .palette(UInt8(value)) : .default
    }
}
