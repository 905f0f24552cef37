import Foundation
@testable import NewsstandKit
import TestSupport
import XCTest

/// Covers made from issues that are real files made by other tools: PDFs written by Python (with
/// and without a crop box) rendered by poppler's pdftoppm, EPUB 2 and 3 and CBZ archives made
/// with Python's zipfile, and hostile ones.
final class IssueCoverMakerTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUp() {
        folder = TemporaryDirectory()
    }

    override func tearDown() {
        folder = nil
    }

    /// Runs a Python program with arguments; fails the test if it fails.
    private func python(_ program: String, _ arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let script = folder.path + "/script-\(UUID().uuidString).py"
        try program.write(toFile: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3 \(program.prefix(80))", file: file, line: line)
    }

    /// A one-page PDF, 200 × 300 points: its left half blue, its right half red; with a crop box
    /// over the right half when asked. Written by Python, byte offsets and all.
    private func makePDF(_ path: String, cropRightHalf: Bool) throws {
        try python(#"""
import sys
path, crop = sys.argv[1], sys.argv[2] == "1"
content = b"0 0 1 rg 0 0 100 300 re f 1 0 0 rg 100 0 100 300 re f"
page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] " + (b"/CropBox [100 0 200 300] " if crop else b"") + b"/Contents 4 0 R >>"
objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page,
           b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream"]
out = bytearray(b"%PDF-1.4\n")
offsets = []
for number, body in enumerate(objects, 1):
    offsets.append(len(out))
    out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
xref = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
for offset in offsets:
    out += b"%010d 00000 n \n" % offset
out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
open(path, "wb").write(out)
"""#, [path, cropRightHalf ? "1" : "0"])
    }

    /// A zip of `files` (name → path of its bytes, or text), deflated, made by Python.
    private func makeZip(_ path: String, _ files: [(String, String)]) throws {
        let listing = folder.path + "/listing-\(UUID().uuidString).txt"
        try files.map { "\($0.0)\t\($0.1)" }.joined(separator: "\n").write(toFile: listing, atomically: true, encoding: .utf8)
        try python(#"""
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as archive:
    for line in open(sys.argv[2]).read().splitlines():
        name, source = line.split("\t", 1)
        if source.startswith("text:"):
            archive.writestr(name, source[5:])
        elif source.startswith("zeros:"):
            archive.writestr(name, b"\x89PNG" + bytes(int(source[6:])))
        else:
            archive.write(source, name)
"""#, [path, listing])
    }

    /// The mean colour of a PNG, decoded by Python's zlib (no image library needed): 8-bit RGB(A).
    private func meanColor(ofPNG path: String) throws -> (red: Int, green: Int, blue: Int) {
        let output = folder.path + "/mean.txt"
        try python(#"""
import sys, zlib, struct
data = open(sys.argv[1], "rb").read()
pos, chunks, width, height, kind = 8, b"", 0, 0, 2
while pos < len(data):
    length, name = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if name == b"IHDR":
        width, height, depth, kind = struct.unpack(">IIBB", body[:10])
    elif name == b"IDAT":
        chunks += body
    pos += 12 + length
raw = zlib.decompress(chunks)
channels = {2: 3, 6: 4, 0: 1}[kind]
stride = width * channels
rows, previous, sums = [], bytearray(stride), [0, 0, 0]
for y in range(height):
    kind_byte = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        left = line[x - channels] if x >= channels else 0
        up = previous[x]
        upleft = previous[x - channels] if x >= channels else 0
        if kind_byte == 1: line[x] = (line[x] + left) & 255
        elif kind_byte == 2: line[x] = (line[x] + up) & 255
        elif kind_byte == 3: line[x] = (line[x] + (left + up) // 2) & 255
        elif kind_byte == 4:
            p = left + up - upleft
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - upleft)
            line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else upleft)) & 255
    for x in range(width):
        for c in range(3):
            sums[c] += line[x * channels + (c if channels >= 3 else 0)]
    previous = line
count = width * height
open(sys.argv[2], "w").write("%d %d %d" % tuple(s // count for s in sums))
"""#, [path, output])
        let numbers = try String(contentsOfFile: output, encoding: .utf8).split(separator: " ").compactMap { Int($0) }
        return (numbers[0], numbers[1], numbers[2])
    }

    func testAPDFsFirstPageAtItsCropBox() throws {
        let whole = folder.path + "/whole.pdf", cropped = folder.path + "/cropped.pdf"
        try makePDF(whole, cropRightHalf: false)
        try makePDF(cropped, cropRightHalf: true)
        try IssueCoverMaker.make(from: whole, type: .pdf, into: folder.path + "/whole.png")
        try IssueCoverMaker.make(from: cropped, type: .pdf, into: folder.path + "/cropped.png")
        let halves = try meanColor(ofPNG: folder.path + "/whole.png")
        XCTAssertTrue(abs(halves.red - 127) < 12 && abs(halves.blue - 127) < 12 && halves.green < 12, "half blue, half red: \(halves)")
        let right = try meanColor(ofPNG: folder.path + "/cropped.png")
        XCTAssertTrue(right.red > 240 && right.blue < 12, "only the crop box, red: \(right)")
    }

    func testEPUB3ThenEPUB2CoversAndACBZsFirstImageByNaturalOrder() throws {
        let resources = CommandRunner.resources + "/demo/covers/"
        let red = resources + "tt-2026-01.png", blue = resources + "tt-2026-02.png", green = resources + "tt-2026-03.png"
        let container = #"<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#
        // EPUB 3: the item with properties="cover-image", though another is named "cover".
        let opf3 = #"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest><item id="cover" href="images/cover.png" media-type="image/png"/><item id="real" href="images/front%20page.png" media-type="image/png" properties="cover-image"/></manifest></package>"#
        let epub3 = folder.path + "/book3.epub"
        try makeZip(epub3, [("mimetype", "text:application/epub+zip"), ("META-INF/container.xml", "text:" + container),
                            ("OEBPS/content.opf", "text:" + opf3), ("OEBPS/images/cover.png", green), ("OEBPS/images/front page.png", blue)])
        try IssueCoverMaker.make(from: epub3, type: .epub, into: folder.path + "/epub3.png")
        XCTAssertEqual(FileManager.default.contents(atPath: folder.path + "/epub3.png"), FileManager.default.contents(atPath: blue))

        // EPUB 2: <meta name="cover" content="ID">, the image in a sibling folder.
        let opf2 = #"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0"><metadata><meta name="cover" content="img2"/></metadata><manifest><item id="img1" href="../art/a.png" media-type="image/png"/><item id="img2" href="../art/b.png" media-type="image/png"/></manifest></package>"#
        let epub2 = folder.path + "/book2.epub"
        try makeZip(epub2, [("mimetype", "text:application/epub+zip"), ("META-INF/container.xml", "text:" + container),
                            ("OEBPS/content.opf", "text:" + opf2), ("art/a.png", green), ("art/b.png", red)])
        try IssueCoverMaker.make(from: epub2, type: .epub, into: folder.path + "/epub2.png")
        XCTAssertEqual(FileManager.default.contents(atPath: folder.path + "/epub2.png"), FileManager.default.contents(atPath: red))

        // CBZ: 9.png comes before 10.png, though not by bytes.
        let cbz = folder.path + "/comic.cbz"
        try makeZip(cbz, [("pages/10.png", blue), ("pages/9.png", red), ("__MACOSX/pages/._1.png", green)])
        try IssueCoverMaker.make(from: cbz, type: .cbz, into: folder.path + "/cbz.png")
        XCTAssertEqual(FileManager.default.contents(atPath: folder.path + "/cbz.png"), FileManager.default.contents(atPath: red))
    }

    func testHostileIssuesAreRefusedInTime() throws {
        // An image that unpacks to 64 MB of zeros (a zip bomb of 64 KB): refused at the cap.
        let bomb = folder.path + "/bomb.cbz"
        try makeZip(bomb, [("1.png", "zeros:67108864")])
        XCTAssertLessThan(FileOps.regularFileSize(bomb) ?? .max, 1 << 20)
        XCTAssertThrowsError(try IssueCoverMaker.make(from: bomb, type: .cbz, into: folder.path + "/bomb.png")) { error in
            XCTAssertTrue((error as? NewsstandError)?.message.contains("larger than 21 MB") ?? false, "\(error)")
        }
        XCTAssertNil(FileOps.regularFileSize(folder.path + "/bomb.png"))

        // An EPUB whose cover climbs out of the archive's folder.
        let container = #"<?xml version="1.0"?><container><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>"#
        let opf = #"<package><manifest><item id="c" href="../../../etc/passwd.png" media-type="image/png" properties="cover-image"/></manifest></package>"#
        let escape = folder.path + "/escape.epub"
        try makeZip(escape, [("META-INF/container.xml", "text:" + container), ("content.opf", "text:" + opf)])
        XCTAssertThrowsError(try IssueCoverMaker.make(from: escape, type: .epub, into: folder.path + "/escape.png"))

        // A PDF whose renderer never finishes: a pdftoppm that sleeps, killed at the deadline.
        let bin = folder.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\nexec sleep 600\n".write(toFile: bin + "/pdftoppm", atomically: true, encoding: .utf8)
        chmod(bin + "/pdftoppm", 0o755)
        let pdf = folder.path + "/slow.pdf"
        try makePDF(pdf, cropRightHalf: false)
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        setenv("PATH", bin + ":" + path, 1)
        defer { setenv("PATH", path, 1) }
        let started = Date()
        XCTAssertThrowsError(try IssueCoverMaker.make(from: pdf, type: .pdf, into: folder.path + "/slow.png", renderSeconds: 1)) { error in
            XCTAssertTrue((error as? NewsstandError)?.message.contains("did not render within 1 s") ?? false, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "killed at the deadline")
    }
}
