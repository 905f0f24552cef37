import Foundation
import ShelfUI

// For `make bench`: how far each way of drawing covers in cells lands from the pictures
// (CIEDE2000, the mean over every sixth of a half cell). One line per picture and way:
// colours, tuning, whether it is the shelf's choice, the picture, the difference.
//
//     cover-fidelity [--columns 12] [--rows 8] PICTURE...

var arguments = Array(CommandLine.arguments.dropFirst())
var columns = 12, rows = 8
while let first = arguments.first, first.hasPrefix("--"), arguments.count >= 2 {
    guard let value = Int(arguments[1]), value > 0 else { break }
    if first == "--columns" { columns = value } else if first == "--rows" { rows = value } else { break }
    arguments.removeFirst(2)
}
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: cover-fidelity [--columns N] [--rows N] PICTURE...\n".utf8))
    exit(64)
}
for path in arguments {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cover-fidelity: cannot read \(path)\n".utf8))
        exit(66)
    }
    for (name, colors) in [("truecolor", ColorSupport.direct), ("256", .palette256), ("16", .basic)] {
        let chosen = CoverTuning.chosen(for: colors)
        let tunings = CoverTuning.candidates(for: colors)
        for tuning in tunings {
            guard let difference = CoverFidelity.meanDifference(ofPicture: data, columns: columns, rows: rows, colors: colors, tuning: tuning)
            else { continue }
            print([name, tuning.description, tuning == chosen ? "chosen" : "-", path, String(format: "%.2f", difference)].joined(separator: "\t"))
        }
    }
}
