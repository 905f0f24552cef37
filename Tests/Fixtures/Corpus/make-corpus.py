#!/usr/bin/env python3
"""Makes the corpus of documents written by other people's software, and what a mature parser
reads in each: run from the repository with calibre installed (`make test-servers`) and a Python
with feedparser and feedgen (`pip install feedparser feedgen`):

    python3 Tests/Fixtures/Corpus/make-corpus.py

Each document is written by the real program (calibre's content server and calibre-web serving a
library calibredb made, feedgen, Python's plistlib, iconv); beside it, DOCUMENT.expected.json holds
what feedparser (or plistlib) reads in it: the entries' IDs, titles, dates and download URLs,
resolved against the URL the document is said to come from. CorpusTests reads every document
with newsstand and compares field by field. SOURCES.md says where each comes from."""
import datetime, json, os, plistlib, shutil, socket, subprocess, sys, tempfile, time, urllib.request

import feedparser
from feedgen.feed import FeedGenerator

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BASE = "http://library.example:8080"
documents = []  # (file name, the URL it is said to come from, expected)

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def wait(port, process):
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if process.poll() is not None:
                sys.exit("server exited")
            time.sleep(0.1)
    sys.exit("server did not start")

def fetch(url, auth=None):
    request = urllib.request.Request(url)
    if auth:
        import base64
        request.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    with urllib.request.urlopen(request) as response:
        return response.read()

READABLE = {"application/pdf", "application/epub+zip", "application/x-cbz", "application/vnd.comicbook+zip", "application/zip"}

def acquisition(entry):
    """The link the OPDS spec's order gives: open access and acquisition, then borrow, buy, subscribe."""
    ranked = []
    for position, link in enumerate(entry.get("links", [])):
        rel, kind = link.get("rel", ""), link.get("type", "").split(";")[0].strip().lower()
        if rel == "enclosure" and kind in READABLE:
            ranked.append((0, position, link["href"]))
        elif rel.startswith("http://opds-spec.org/acquisition") and not rel.endswith(("/sample", "/preview")) and kind in READABLE:
            paid = rel.endswith(("/buy", "/borrow", "/subscribe"))
            ranked.append((1 if paid else 0, position, link["href"]))
    return sorted(ranked)[0][2] if ranked else None

ATOM, DC, DCTERMS = "{http://www.w3.org/2005/Atom}", "{http://purl.org/dc/elements/1.1/}", "{http://purl.org/dc/terms/}"

def entry_dates(data):
    """Each entry's date by the documented rule, read with ElementTree: the publication's own
    (dcterms:issued, dc:date) before Atom's published and updated; RSS's pubDate before dc:date."""
    import xml.etree.ElementTree as ET
    from email.utils import parsedate_to_datetime
    root = ET.fromstring(data)
    items = root.findall(ATOM + "entry") or root.findall("channel/item")
    dates = []
    for item in items:
        text = None
        for tag in ("pubDate", DCTERMS + "issued", DC + "date", DCTERMS + "date", ATOM + "published", ATOM + "updated"):
            found = item.find(tag)
            if found is not None and found.text:
                text = found.text.strip()
                break
        if text is None:
            dates.append(None)
            continue
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        dates.append(when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return dates

def expect_feed(name, data, url):
    parsed = feedparser.parse(data, response_headers={"content-location": url})
    dates = entry_dates(data)
    entries = []
    for position, entry in enumerate(parsed.entries):
        href = acquisition(entry)
        if not href:
            continue
        entries.append({
            "id": entry.get("id") or href,
            "title": entry.get("title"),
            "date": dates[position] if position < len(dates) else None,
            "download": urllib.parse.urljoin(url, href),
        })
    return {"title": parsed.feed.get("title"), "entries": entries}

def save(name, data, url, expected, source):
    with open(os.path.join(HERE, name), "wb") as handle:
        handle.write(data)
    with open(os.path.join(HERE, name + ".expected.json"), "w") as handle:
        json.dump({"url": url, **expected}, handle, indent=1, ensure_ascii=False, sort_keys=True)
        handle.write("\n")
    documents.append((name, source))

import urllib.parse

work = tempfile.mkdtemp(prefix="newsstand-corpus-")
env = dict(os.environ, HOME=work + "/home", XDG_RUNTIME_DIR=work, CALIBRE_CONFIG_DIRECTORY=work + "/config")
library = work + "/library"
books = [
    ("Harbour Review — Spring 2026", "Ann Editor", "pdf", "2026-03-01"),
    ("Smørrebrød & Co.", "Bo Writer", "epub", "2025-11-15"),
    ("港の雑誌 第3号", "編集部", "pdf", "2026-01-20"),
    ("Ocean Quarterly #7: The Abyss", "Cy Diver", "pdf", "2025-12-01"),
]
for index, (title, author, kind, date) in enumerate(books):
    path = f"{work}/book{index}.{kind}"
    if kind == "epub":
        with open(path + ".txt", "w") as handle:
            handle.write(title + "\n\nA chapter.\n")
        subprocess.run(["ebook-convert", path + ".txt", path, "--title", title], env=env, check=True, capture_output=True)
    else:
        shutil.copy(os.path.join(ROOT, "Resources", "demo", "issues", "tt-2026-0%d.pdf" % (index + 1)), path)
    subprocess.run(["calibredb", "add", path, "--title", title, "--authors", author, "--library-path", library],
                   env=env, check=True, capture_output=True)
    subprocess.run(["calibredb", "set_metadata", str(index + 1), "--field", f"pubdate:{date}", "--library-path", library],
                   env=env, check=True, capture_output=True)

version = subprocess.run(["calibre-server", "--version"], capture_output=True, text=True, env=env).stdout.strip()
port = free_port()
server = subprocess.Popen(["calibre-server", "--port", str(port), "--listen-on", "127.0.0.1", library],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    wait(port, server)
    for name, path in [("calibre-root.xml", "/opds"), ("calibre-newest.xml", "/opds/navcatalog/4f6e6577657374?library_id=library"),
                       ("calibre-search.xml", "/opds/search/Harbour?library_id=library")]:
        data = fetch(f"http://127.0.0.1:{port}{path}").replace(f"127.0.0.1:{port}".encode(), b"library.example:8080")
        url = BASE + path
        save(name, data, url, expect_feed(name, data, url), f"{version}'s content server, `GET {path}`")
finally:
    server.terminate()
    server.wait()

cps = os.path.join(ROOT, ".build-servers", "calibre-web", "bin", "cps")
if os.path.exists(cps):
    settings = work + "/app.db"
    subprocess.run([cps, "-p", settings, "-s", "admin:Corpus-pass-1"], env=env, check=True, capture_output=True)
    port = free_port()
    import sqlite3
    db = sqlite3.connect(settings)
    db.execute("update settings set config_calibre_dir = ?, config_port = ?", (library, port))
    db.commit()
    db.close()
    server = subprocess.Popen([cps, "-p", settings, "-i", "127.0.0.1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait(port, server)
        for name, path in [("calibre-web-new.xml", "/opds/new"), ("calibre-web-search.xml", "/opds/search/Harbour")]:
            data = fetch(f"http://127.0.0.1:{port}{path}", auth="admin:Corpus-pass-1").replace(f"127.0.0.1:{port}".encode(), b"library.example:8083")
            url = "http://library.example:8083" + path
            save(name, data, url, expect_feed(name, data, url), f"calibre-web 0.6.27 (PyPI), `GET {path}`")
    finally:
        server.terminate()
        server.wait()

# feedgen: an RSS 2.0 channel with enclosures and a plain Atom feed, as blogs and podcasts write them.
for kind in ("rss", "atom"):
    generator = FeedGenerator()
    generator.id("https://zine.example/")
    generator.title("The Harbour Zine")
    generator.link(href="https://zine.example/", rel="alternate")
    generator.description("Issues of a small zine")
    generator.language("en")
    for number in range(1, 5):
        item = generator.add_entry(order="append")
        item.id(f"https://zine.example/issues/{number}")
        item.title(f"Issue {number}: Gulls & Ferries")
        item.link(href=f"https://zine.example/issues/{number}")
        item.published(datetime.datetime(2026, number, 5, 9, 30, tzinfo=datetime.timezone.utc))
        item.updated(datetime.datetime(2026, number, 6, 9, 30, tzinfo=datetime.timezone.utc))
        item.enclosure(f"/files/zine-{number}.pdf", str(1000 * number), "application/pdf")
    data = generator.rss_str(pretty=True) if kind == "rss" else generator.atom_str(pretty=True)
    name = f"feedgen.{kind}"
    url = "https://zine.example/feed." + kind
    save(name, data, url, expect_feed(name, data, url), f"feedgen {__import__('importlib.metadata').metadata.version('feedgen')} (PyPI), `{kind}_str()`")

# Python's plistlib, XML and binary, with the seed's keys.
issues = [{"ID": f"2026-0{n}", "Title": f"Monthly {n} – Überfahrt", "Release date": datetime.datetime(2026, n, 1, 12, 0),
           "Download URL": f"issues/2026-0{n}.pdf", "Free": n % 2 == 1} for n in range(1, 4)]
for form, name in ((plistlib.FMT_XML, "plistlib.plist"), (plistlib.FMT_BINARY, "plistlib-binary.plist")):
    data = plistlib.dumps({"Title": "Hafenblatt", "Issues": issues}, fmt=form)
    url = "https://hafen.example/catalog.plist"
    expected = {"title": "Hafenblatt", "entries": [
        {"id": i["ID"], "title": i["Title"], "date": i["Release date"].strftime("%Y-%m-%dT%H:%M:%SZ"),
         "download": urllib.parse.urljoin(url, i["Download URL"])} for i in issues]}
    save(name, data, url, expected, f"Python {sys.version.split()[0]}'s plistlib, {'XML' if form == plistlib.FMT_XML else 'binary'}")

with open(os.path.join(HERE, "SOURCES.md"), "w") as handle:
    handle.write("# The corpus: documents written by other people's software\n\n"
                 "Made by `make-corpus.py` (run it again to remake them): each program below wrote the document, here,\n"
                 "from a library or entries of our own (no third-party text; the programs' licences do not extend to\n"
                 "their output). Servers' host names are replaced by `library.example`. Beside each document,\n"
                 "`.expected.json` is what feedparser (RSS, Atom, OPDS: IDs, titles, links) and ElementTree (dates:\n"
                 "the publication's own `dcterms:issued` or `dc:date`, then `published`, then `updated`; RSS's `pubDate`\n"
                 "first) or plistlib read in it.\n\n"
                 "| document | written by |\n|---|---|\n")
    for name, source in documents:
        handle.write(f"| `{name}` | {source} |\n")
    handle.write(f"\nfeedparser {__import__('importlib.metadata').metadata.version('feedparser')} read them.\n")
shutil.rmtree(work, ignore_errors=True)
print("\n".join(name for name, _ in documents))
