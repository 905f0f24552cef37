#!/usr/bin/env python3
"""Makes the bundled demo catalog: small valid PDFs, PNG covers, and catalog.plist.

Run from anywhere: python3 Resources/make-demo.py. The output is committed; the script is
kept so that the demo can be changed and made again.
"""
import datetime
import hashlib
import os
import plistlib
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "demo")

ISSUES = [
    ("tt-2026-01", "Terminal Times — January 2026", "2026-01-05", True, (200, 60, 60),
     "Living in the terminal: tmux, curses and the joy of plain text."),
    ("tt-2026-02", "Terminal Times — February 2026", "2026-02-02", True, (60, 140, 200),
     "Offline first: how to read on a train with no signal."),
    ("tt-2026-03", "Terminal Times — March 2026", "2026-03-02", False, (70, 170, 90),
     "Resumable downloads, byte ranges and the art of not starting over."),
    ("tt-2026-04", "Terminal Times — April 2026", "2026-04-06", True, (220, 170, 40),
     "Colour in 256 cells: drawing covers with half blocks."),
    ("tt-2026-05", "Terminal Times — May 2026", "2026-05-04", False, (150, 80, 190),
     "Unicode widths, bidi and other traps for terminal programs."),
    ("tt-2026-06", "Terminal Times — June 2026 · 夏号", "2026-06-01", True, (40, 170, 170),
     "Summer issue: wide characters keep their columns."),
]


def pdf(title, summary):
    """A one-page PDF with the title and summary, with a correct cross-reference table."""
    def escape(text):
        return text.encode("latin-1", "replace").decode("latin-1").replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    stream = (
        "BT /F1 24 Tf 60 720 Td (%s) Tj ET\nBT /F1 12 Tf 60 690 Td (%s) Tj ET\n"
        "BT /F1 10 Tf 60 80 Td (A newsstand demo issue.) Tj ET\n" % (escape(title), escape(summary))
    ).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def png(width, height, colour, seed):
    """A cover: a coloured gradient with a light title band and a dark masthead stripe."""
    r0, g0, b0 = colour
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            shade = 0.55 + 0.45 * (1 - y / height)
            r, g, b = int(r0 * shade), int(g0 * shade), int(b0 * shade)
            if 12 <= y < 34:
                r, g, b = 245, 245, 240
            elif 36 <= y < 40:
                r, g, b = 30, 30, 30
            elif (x - width // 2) ** 2 + (y - height * 0.62) ** 2 < (width * 0.28) ** 2:
                r, g, b = min(255, r + 60), min(255, g + 60), min(255, b + 60)
            if (x + y + seed) % 37 == 0:
                r, g, b = r // 2, g // 2, b // 2
            rows += bytes((r, g, b))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


def main():
    os.makedirs(os.path.join(DEMO, "issues"), exist_ok=True)
    os.makedirs(os.path.join(DEMO, "covers"), exist_ok=True)
    entries = []
    for index, (identifier, title, date, free, colour, summary) in enumerate(ISSUES):
        document = pdf(title, summary)
        with open(os.path.join(DEMO, "issues", identifier + ".pdf"), "wb") as handle:
            handle.write(document)
        with open(os.path.join(DEMO, "covers", identifier + ".png"), "wb") as handle:
            handle.write(png(96, 128, colour, index))
        entries.append({
            "ID": identifier,
            "Title": title,
            "Release date": datetime.datetime.fromisoformat(date + "T08:00:00"),
            "Cover URL": "covers/%s.png" % identifier,
            "Download URL": "issues/%s.pdf" % identifier,
            "Free": free,
            "Size": len(document),
            "SHA256": hashlib.sha256(document).hexdigest(),
            "Summary": summary,
        })
    with open(os.path.join(DEMO, "catalog.plist"), "wb") as handle:
        plistlib.dump({"Title": "Terminal Times", "Issues": entries}, handle, sort_keys=False)


if __name__ == "__main__":
    main()
