import CChafa

/// libchafa's canvas for one size and colour mode: pixels in, a symbol and two colours per cell
/// out. Owns its canvas, configuration and symbol map and frees them in `deinit`. The only file
/// that imports chafa.
final class ChafaCanvas {
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
        let tuning = tuning ?? CoverTuning.chosen(for: colors)
        self.columns = columns
        self.rows = rows
        self.colors = colors
        symbols = chafa_symbol_map_new()
        chafa_symbol_map_add_by_tags(symbols, cchafa_cover_symbols())
        config = chafa_canvas_config_new()
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        let mode = switch (colors, tuning.palette) {
        case (.direct, _): CHAFA_CANVAS_MODE_TRUECOLOR
        case (.basic, _): CHAFA_CANVAS_MODE_INDEXED_16
        // The 240 colours above the first 16, which terminal themes redefine, or all 256.
        case (_, .above16): CHAFA_CANVAS_MODE_INDEXED_240
        case (_, .all): CHAFA_CANVAS_MODE_INDEXED_256
        }
        chafa_canvas_config_set_canvas_mode(config, mode)
        chafa_canvas_config_set_color_space(config, tuning.din99d ? CHAFA_COLOR_SPACE_DIN99D : CHAFA_COLOR_SPACE_RGB)
        let dither = switch tuning.dither {
        case .none: CHAFA_DITHER_MODE_NONE
        case .ordered: CHAFA_DITHER_MODE_ORDERED
        case .diffusion: CHAFA_DITHER_MODE_DIFFUSION
        }
        chafa_canvas_config_set_dither_mode(config, dither)
        chafa_canvas_config_set_symbol_map(config, symbols)
        chafa_canvas_config_set_work_factor(config, 0.5)
        canvas = chafa_canvas_new(config)
    }

    deinit {
        chafa_canvas_unref(canvas)
        chafa_canvas_config_unref(config)
        chafa_symbol_map_unref(symbols)
    }

    /// Draws `pixels` over the whole canvas and reads back its cells.
    func render(_ pixels: CoverPixels) -> CoverImage {
        pixels.rgb.withUnsafeBufferPointer { rgb in
            chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGB8, rgb.baseAddress, Int32(pixels.width), Int32(pixels.height),
                                         Int32(pixels.width * 3))
        }
        var cells: [Cell] = []
        cells.reserveCapacity(columns * rows)
        for y in 0..<rows {
            for x in 0..<columns {
                let symbol = Unicode.Scalar(UInt32(chafa_canvas_get_char_at(canvas, Int32(x), Int32(y)))) ?? " "
                var foreground: Int32 = 0, background: Int32 = 0
                // Packed RGB in truecolor; the palette indices themselves otherwise ("raw").
                if colors == .direct {
                    chafa_canvas_get_colors_at(canvas, Int32(x), Int32(y), &foreground, &background)
                } else {
                    chafa_canvas_get_raw_colors_at(canvas, Int32(x), Int32(y), &foreground, &background)
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
        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        chafa_canvas_config_set_cell_geometry(config, Int32(cellWidth), Int32(cellHeight))
        chafa_canvas_config_set_pixel_mode(config, sixel ? CHAFA_PIXEL_MODE_SIXELS : CHAFA_PIXEL_MODE_ITERM2)
        chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        guard let canvas = chafa_canvas_new(config) else { return [] }
        defer { chafa_canvas_unref(canvas) }
        rgba.withUnsafeBufferPointer { pixels in
            chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress, Int32(width), Int32(height), Int32(width * 4))
        }
        let environment = sixel ? ["TERM=mlterm"] : ["TERM=xterm-256color", "TERM_PROGRAM=iTerm.app"]
        var variables: [UnsafeMutablePointer<gchar>?] = environment.map { strdup($0) } + [nil]
        defer { variables.forEach { free($0) } }
        guard let info = variables.withUnsafeMutableBufferPointer({ chafa_term_db_detect(chafa_term_db_get_default(), $0.baseAddress) }) else { return [] }
        defer { chafa_term_info_unref(info) }
        guard let printed = chafa_canvas_print(canvas, info) else { return [] }
        defer { g_string_free(printed, 1) }
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
