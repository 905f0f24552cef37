#!/usr/bin/env python3
"""newsstand's benchmarks: each figure beside a peer measured in the same run.

Starts its own nginx on 127.0.0.1 (own prefix, config and port; stopped at the end), makes its
data, runs each figure's commands interleaved (A B A B ...) and prints one table with medians,
min-max and ratios. `--smoke` runs a tiny version of every figure so that the harness cannot rot.
"""
import argparse
import glob
import hashlib
import os
import plistlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def peer_python():
    """The Python the plistlib peer runs on: Debian's own, which `make bench-deps` installs.

    `python3` on PATH may be a version manager's shim (a shell script that adds tens of
    milliseconds to every start) or a build without Debian's optimisations; either would make the
    peer look slower than what a user of this machine runs.
    """
    for candidate in ("/usr/bin/python3", shutil.which("python3"), sys.executable):
        if candidate and os.path.exists(candidate):
            return os.path.realpath(candidate)
    raise SystemExit("no python3 to compare against")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Nginx:
    """A private nginx serving `root` on 127.0.0.1."""

    def __init__(self, root, work):
        self.root = root
        self.work = work
        self.port = free_port()
        self.process = None
        self.slow_rate = "4m"

    def __enter__(self):
        os.makedirs(os.path.join(self.work, "logs"), exist_ok=True)
        config = os.path.join(self.work, "nginx.conf")
        with open(config, "w") as handle:
            handle.write(f"""
daemon off;
worker_processes 2;
pid {self.work}/nginx.pid;
error_log {self.work}/logs/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path {self.work}/body;
    proxy_temp_path {self.work}/proxy;
    fastcgi_temp_path {self.work}/fastcgi;
    uwsgi_temp_path {self.work}/uwsgi;
    scgi_temp_path {self.work}/scgi;
    types {{ application/pdf pdf; application/xml plist; image/png png; }}
    server {{
        listen 127.0.0.1:{self.port};
        root {self.root};
        location /slow/ {{ limit_rate {self.slow_rate}; }}
    }}
}}
""")
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([nginx, "-p", self.work, "-c", config], stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not start")

    def __exit__(self, *exc):
        self.process.send_signal(signal.SIGQUIT)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/{path}"


def timed(command, env=None):
    """Runs a command under GNU time: wall seconds (our own clock: time's has 10 ms steps), CPU seconds,
    peak RSS in MiB."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *command], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {result.stderr[-500:]}")
    _, user, system, rss = result.stderr.strip().splitlines()[-1].split()
    return wall, float(user) + float(system), int(rss) / 1024


def warm_memory(work, size):
    """Touches memory the VM may have handed back to its host, so that it is not charged to a run."""
    path = os.path.join(work, "warm")
    with open(path, "wb") as handle:
        chunk = b"\0" * (1 << 20)
        for _ in range(size // (1 << 20) + 64):
            handle.write(chunk)
    os.remove(path)


def summary(values):
    return statistics.median(values), min(values), max(values)


def fmt(values, unit, fine=True):
    """Median (min–max); `fine` values shorter than 0.1 s in milliseconds (CPU times come from
    time(1) in hundredths of a second, and are left as they are)."""
    median, low, high = summary(values)
    if unit == "s" and fine and median < 0.1:
        # Short runs in milliseconds, or two decimals of a second would hide them.
        return f"{median * 1000:.1f} ms ({low * 1000:.1f}–{high * 1000:.1f})"
    return f"{median:.2f} {unit} ({low:.2f}–{high:.2f})"


def make_pdf(path, size):
    """Writes a PDF-signed file of `size` bytes; returns its SHA-256 in hex."""
    digest = hashlib.sha256()
    with open(path, "wb") as handle:
        handle.write(b"%PDF-1.4\n")
        digest.update(b"%PDF-1.4\n")
        remaining = size - 9
        block = os.urandom(1 << 20)
        while remaining > 0:
            piece = block[:min(remaining, len(block))]
            handle.write(piece)
            digest.update(piece)
            remaining -= len(piece)
    return digest.hexdigest()


def compare(args, work, rows, label, prepare, names, peer, target, warm=0, floors=(), targets=None, rss_target=None):
    """Runs each name's command interleaved (A B A B ...) for args.runs runs and adds a row per name.

    `prepare(name, out)` does any untimed set-up in the run's own folder `out` (ext4 is slow to
    reuse inodes deleted moments ago, so no run reuses another's files) and returns the command and
    its environment, or None to leave that name out. `floors` are names measured only to show
    what the machine itself allows (the disk's own speed): they get a ratio but no verdict, unless
    `targets` gives one (a name's own target beside `target`). `rss_target` is a bound in MiB on
    newsstand's peak RSS.
    """
    results = {name: [] for name in names}
    for run in range(args.runs):
        for name in names:
            out = os.path.join(work, f"{label.replace(' ', '-').replace('/', '-')}-{name}-{run}")
            os.makedirs(out)
            prepared = prepare(name, out)
            if prepared is None:
                continue
            if warm:
                warm_memory(work, warm)
            # Nothing left to write back from the run before: curl leaves its file in the page
            # cache, and its writeback would otherwise be charged to whichever run comes next.
            os.sync()
            results[name].append(timed(*prepared))
    # A peer may be several names: the slowest of them is the bar (a download is bounded by the
    # network or by the disk, whichever is slower).
    peers = peer if isinstance(peer, tuple) else (peer,)
    peer_wall = max(statistics.median([r[0] for r in results[name]]) for name in peers)
    peer_label = "max(" + ", ".join(name.split(" (")[0] for name in peers) + ")" if len(peers) > 1 else peer.split()[0]
    for name, runs in results.items():
        if not runs:
            continue
        walls, cpus, rss = [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs]
        ratio = statistics.median(walls) / max(peer_wall, 1e-9)
        verdict = ""
        goal = (targets or {}).get(name, None if name in floors else target)
        if name not in peers and goal is not None:
            verdict = f" (target ≤ {goal}×{', met' if ratio <= goal else ', missed'})"
        if name.startswith("newsstand") and rss_target is not None:
            peak = statistics.median(rss)
            verdict += f" (peak RSS target ≤ {rss_target} MiB{', met' if peak <= rss_target else ', missed'})"
        rows.append((label, name, fmt(walls, "s"), fmt(cpus, "s", fine=False), fmt(rss, "MiB"),
                     "—" if name == peer else f"{ratio:.2f}× {peer_label}{verdict}"))


def newsstand_env(out):
    return dict(os.environ, XDG_DATA_HOME=out + "/data", XDG_CACHE_HOME=out + "/cache", XDG_STATE_HOME=out + "/state",
                XDG_CONFIG_HOME=out + "/config", HOME=out)


def figure_download(args, work, rows, nginx, served):
    """One large issue, with and without a SHA-256 in the catalog: newsstand download against
    max(curl -o, dd + fdatasync), the slower of the network's and the disk's floors (and wget)."""
    for size in args.download_sizes:
        os.makedirs(os.path.join(served, "issues"), exist_ok=True)
        name = f"big-{size >> 20}"
        digest = make_pdf(os.path.join(served, "issues", name + ".pdf"), size)
        for catalog, sha in ((name + ".plist", None), (name + "-sha.plist", digest)):
            issue = {"ID": "big", "Title": "Big issue", "Download URL": f"issues/{name}.pdf", "Free": True, "Size": size}
            if sha:
                issue["SHA256"] = sha
            with open(os.path.join(served, catalog), "wb") as handle:
                plistlib.dump({"Title": "Bench", "Issues": [issue]}, handle)

        def prepare(tool, out, name=name, size=size):
            if tool == "newsstand":
                return [args.binary, "download", "big", "--catalog", nginx.url(name + ".plist")], newsstand_env(out)
            if tool == "newsstand, SHA-256":
                return [args.binary, "download", "big", "--catalog", nginx.url(name + "-sha.plist")], newsstand_env(out)
            if tool == "curl":
                return ["curl", "-sS", "-o", out + "/big.pdf", nginx.url(f"issues/{name}.pdf")], None
            if tool == "wget":
                return (["wget", "-q", "-O", out + "/big.pdf", nginx.url(f"issues/{name}.pdf")], None) if shutil.which("wget") else None
            return disk_floor(tool, out, size)

        compare(args, work, rows, f"download {size >> 20} MiB", prepare, ["newsstand", "newsstand, SHA-256", "curl", "wget"] + list(FLOORS),
                ("curl", FLOORS[1]), 1.1, warm=size, floors=FLOORS + ("wget",), rss_target=32)


FLOORS = ("dd, no sync (floor)", "dd fdatasync (floor)")


def disk_floor(name, out, size):
    """The disk's floor for `size` bytes: written with no network at all, into the page cache
    only, and made durable as newsstand makes an issue before it installs it."""
    command = ["dd", "if=/dev/zero", f"of={out}/zero", "bs=1M", f"count={max(1, size >> 20)}", "status=none"]
    return (command if name == FLOORS[0] else command + ["conv=fdatasync"]), None


def figure_parallel(args, work, rows, nginx, served):
    """Eight issues at once: newsstand download --jobs 8 against curl --parallel --parallel-max 8."""
    size, count = args.parallel_size, 8
    os.makedirs(os.path.join(served, "many"), exist_ok=True)
    entries = []
    for n in range(count):
        make_pdf(os.path.join(served, "many", f"m{n}.pdf"), size)
        entries.append({"ID": f"m{n}", "Title": f"Many {n}", "Download URL": f"many/m{n}.pdf", "Free": True, "Size": size})
    with open(os.path.join(served, "many.plist"), "wb") as handle:
        plistlib.dump({"Title": "Many", "Issues": entries}, handle)

    def prepare(name, out):
        if name == "newsstand":
            return [args.binary, "download", "--all-free", "--jobs", "8", "--catalog", nginx.url("many.plist")], newsstand_env(out)
        if name in FLOORS:
            return disk_floor(name, out, size * count)
        command = ["curl", "--parallel", "--parallel-max", "8", "-sS"]
        for n in range(count):
            command += ["-o", f"{out}/m{n}.pdf", nginx.url(f"many/m{n}.pdf")]
        return command, None

    compare(args, work, rows, f"{count} × {size >> 20} MiB, 8 at once", prepare, ["newsstand", "curl --parallel"] + list(FLOORS),
            "curl --parallel", 0.8, warm=size * count, floors=FLOORS)


def figure_covers(args, work, rows, nginx, served):
    """The shelf's cover fetch: newsstand covers --jobs 8 against curl --parallel --parallel-max 8."""
    count, size = args.cover_count, 100 << 10
    os.makedirs(os.path.join(served, "covers"), exist_ok=True)
    block = os.urandom(size)
    entries = []
    for n in range(count):
        with open(os.path.join(served, "covers", f"c{n}.png"), "wb") as handle:
            handle.write(block)
        entries.append({"ID": f"c{n}", "Title": f"Cover {n}", "Download URL": f"issues/c{n}.pdf", "Cover URL": f"covers/c{n}.png"})
    with open(os.path.join(served, "covers.plist"), "wb") as handle:
        plistlib.dump({"Title": "Covers", "Issues": entries}, handle)

    def prepare(name, out):
        if name == "newsstand":
            env = newsstand_env(out)
            subprocess.run([args.binary, "refresh", "--catalog", nginx.url("covers.plist")], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            return [args.binary, "covers", "--jobs", "8", "--catalog", nginx.url("covers.plist")], env
        config = os.path.join(out, "curl.config")
        with open(config, "w") as handle:
            for n in range(count):
                handle.write(f'url = "{nginx.url(f"covers/c{n}.png")}"\noutput = "{out}/c{n}.png"\n')
        return ["curl", "--parallel", "--parallel-max", "8", "-sS", "-K", config], None

    compare(args, work, rows, f"{count} covers of 100 KiB", prepare, ["newsstand", "curl --parallel"], "curl --parallel", 1.0)


def write_catalog(path, count, binary):
    import datetime
    start = datetime.datetime(2000, 1, 1)
    with open(path, "wb") as handle:
        plistlib.dump({"Title": "Bench", "Issues": [
            {"ID": f"i{n}", "Title": f"Issue number {n}", "Download URL": f"issues/i{n}.pdf", "Cover URL": f"covers/i{n}.png",
             "Free": n % 2 == 0, "Release date": start + datetime.timedelta(days=n % 30_000), "Size": 1000 + n}
            for n in range(count)]}, handle, fmt=plistlib.FMT_BINARY if binary else plistlib.FMT_XML)


def figure_list(args, work, rows, nginx, served):
    """list --json of a cached catalog against Python's plistlib loading the same file."""
    for count in args.list_sizes:
        for binary in (False, True):
            kind = "binary" if binary else "XML"
            name = f"list-{count}-{kind}.plist"
            write_catalog(os.path.join(served, name), count, binary)
            cached = os.path.join(work, f"list-cache-{count}-{kind}")
            subprocess.run([args.binary, "refresh", "--catalog", nginx.url(name)], env=newsstand_env(cached), check=True,
                           stdout=subprocess.DEVNULL)

            def prepare(tool, out, name=name, cached=cached):
                if tool == "newsstand":
                    return [args.binary, "list", "--json", "--offline", "--catalog", nginx.url(name)], newsstand_env(cached)
                if tool == LIST_FLOORS[0]:
                    return [args.binary, "--version"], None
                if tool == LIST_FLOORS[1]:
                    return [args.python, "-c", "import plistlib"], None
                return [args.python, "-c", "import plistlib, sys; plistlib.load(open(sys.argv[1], 'rb'))",
                        os.path.join(served, name)], None

            # Only the first size gets the floors: what starting each process costs, before any work.
            floors = LIST_FLOORS if count == args.list_sizes[0] else ()
            compare(args, work, rows, f"list --json, {count} issues, {kind}", prepare,
                    ["newsstand", "python3 plistlib"] + list(floors), "python3 plistlib", 0.3, floors=floors)


LIST_FLOORS = ("newsstand --version (floor)", "python3 import plistlib (floor)")


def write_config(out, urls, extra=""):
    """A config.toml with one subscription per URL, named s0, s1, …"""
    os.makedirs(out + "/config/newsstand", exist_ok=True)
    with open(out + "/config/newsstand/config.toml", "w") as handle:
        # Every subscription is on the bench's one nginx: as many connections to it as the
        # peer's `curl --parallel-max 8`, where a reader's default is 2.
        handle.write("host_connections = 8\n")
        for n, url in enumerate(urls):
            handle.write(f'[subscriptions.s{n}]\nurl = "{url}"\n{extra}\n')


def etag(url):
    import urllib.request
    with urllib.request.urlopen(urllib.request.Request(url, method="HEAD")) as response:
        return response.headers["ETag"]


def figure_subscriptions(args, work, rows, nginx, served):
    """Many subscriptions: sync with nothing changed, sync with one new issue each, list of them all."""
    count, issues = args.subscription_count, args.subscription_issues
    os.makedirs(os.path.join(served, "subs"), exist_ok=True)
    os.makedirs(os.path.join(served, "fresh"), exist_ok=True)
    urls = []
    for n in range(count):
        write_catalog(os.path.join(served, "subs", f"s{n}.plist"), issues, binary=False)
        urls.append(nginx.url(f"subs/s{n}.plist"))
    etags = [etag(url) for url in urls]

    # 1. Nothing changed: every catalog answers 304.
    def prepare_unchanged(name, out):
        if name == "newsstand sync":
            write_config(out, urls)
            subprocess.run([args.binary, "refresh"], env=newsstand_env(out), check=True, stdout=subprocess.DEVNULL)
            return [args.binary, "sync"], newsstand_env(out)
        config = os.path.join(out, "curl.config")
        with open(config, "w") as handle:
            # Each conditional request is an operation of its own (`next`), so that each has its header.
            handle.write("next\n".join(f'url = "{url}"\noutput = "{out}/s{n}.plist"\nheader = "If-None-Match: {etags[n]}"\n'
                                        for n, url in enumerate(urls)))
        return ["curl", "--parallel", "--parallel-max", "8", "-sS", "-K", config], None

    compare(args, work, rows, f"sync, {count} subscriptions × {issues} issues, all 304", prepare_unchanged,
            ["newsstand sync", "curl --parallel"], "curl --parallel", 1.1)

    # 2. One new issue of 1 MiB in each, downloaded by auto_download = "latest".
    import datetime
    fresh_urls, files = [], []
    for n in range(count):
        make_pdf(os.path.join(served, "fresh", f"new{n}.pdf"), 1 << 20)
        files.append(nginx.url(f"fresh/new{n}.pdf"))
        fresh_urls.append(nginx.url(f"fresh/s{n}.plist"))

    def publish(with_new):
        start = datetime.datetime(2000, 1, 1)
        for n in range(count):
            entries = [{"ID": f"i{k}", "Title": f"Issue {k}", "Download URL": f"old/i{k}.pdf", "Free": True,
                        "Release date": start + datetime.timedelta(days=k)} for k in range(issues)]
            if with_new:
                entries.append({"ID": "new", "Title": "New", "Download URL": f"new{n}.pdf", "Free": True, "Size": 1 << 20,
                                "Release date": start + datetime.timedelta(days=issues + 1)})
            with open(os.path.join(served, "fresh", f"s{n}.plist"), "wb") as handle:
                plistlib.dump({"Title": f"Publication {n}", "Issues": entries}, handle)

    def prepare_new(name, out):
        if name.startswith("newsstand sync"):
            publish(False)
            # The floor: the same sync with nothing to download — fetching and reading the 100
            # changed catalogs, which curl does not read.
            policy = 'auto_download = "none"' if name != "newsstand sync" else 'auto_download = "latest"'
            write_config(out, fresh_urls, policy)
            subprocess.run([args.binary, "refresh"], env=newsstand_env(out), check=True, stdout=subprocess.DEVNULL)
            publish(True)
            return [args.binary, "sync", "--jobs", "8"], newsstand_env(out)
        publish(True)
        config = os.path.join(out, "curl.config")
        with open(config, "w") as handle:
            for n in range(count):
                handle.write(f'url = "{fresh_urls[n]}"\noutput = "{out}/s{n}.plist"\n')
                handle.write(f'url = "{files[n]}"\noutput = "{out}/new{n}.pdf"\n')
        return ["curl", "--parallel", "--parallel-max", "8", "-sS", "-K", config], None

    floor = "newsstand sync, catalogs only (floor)"
    compare(args, work, rows, f"sync, {count} subscriptions, one new 1 MiB issue each", prepare_new,
            ["newsstand sync", "curl --parallel", floor], "curl --parallel", 2.5, warm=count << 20, floors=(floor,))

    # 3. list --json of every subscription, cached, against plistlib on the same files and sqlite3 on the state.
    listed = os.path.join(work, "subs-listed")
    os.makedirs(listed)
    write_config(listed, urls)
    subprocess.run([args.binary, "refresh"], env=newsstand_env(listed), check=True, stdout=subprocess.DEVNULL)
    database = listed + "/data/newsstand/reading.sqlite3"
    paths = [os.path.join(served, "subs", f"s{n}.plist") for n in range(count)]
    script = ("import plistlib, sqlite3, sys\n"
              "for path in sys.argv[2:]:\n    plistlib.load(open(path, 'rb'))\n"
              "sqlite3.connect(sys.argv[1]).execute('SELECT * FROM issue').fetchall()\n")

    def prepare_list(name, out):
        if name == "newsstand list --json":
            return [args.binary, "list", "--json", "--offline"], newsstand_env(listed)
        return [args.python, "-c", script, database, *paths], None

    compare(args, work, rows, f"list --json, {count} subscriptions × {issues} issues (RSS ≤ 120 MiB)", prepare_list,
            ["newsstand list --json", "python3 plistlib + sqlite3"], "python3 plistlib + sqlite3", 0.3)


def process_cpu(pid, main_thread_only=False):
    """CPU seconds used so far by a process (or by its main thread)."""
    path = f"/proc/{pid}/task/{pid}/stat" if main_thread_only else f"/proc/{pid}/stat"
    with open(path) as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Tmux:
    count = 0

    def __init__(self, command, env, width=120, height=40):
        # A server of its own each time: a server being killed may still answer the next new-session.
        Tmux.count += 1
        self.socket = f"newsstand-bench-{os.getpid()}-{Tmux.count}"
        assignments = " ".join(f"'{key}={value}'" for key, value in env.items())
        subprocess.run(["tmux", "-L", self.socket, "new-session", "-d", "-x", str(width), "-y", str(height),
                        f"env -i {assignments} {command}; sleep 600"], check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def screen(self):
        return subprocess.run(["tmux", "-L", self.socket, "capture-pane", "-p"], capture_output=True, text=True).stdout

    def send(self, *keys):
        subprocess.run(["tmux", "-L", self.socket, "send-keys", *keys], check=True)

    def program_pid(self):
        shell = subprocess.run(["tmux", "-L", self.socket, "list-panes", "-F", "#{pane_pid}"],
                               capture_output=True, text=True).stdout.strip()
        with open(f"/proc/{shell}/task/{shell}/children") as handle:
            return int(handle.read().split()[0])

    def wait_for(self, predicate, timeout=30, interval=0.005):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.screen()):
                return True
            time.sleep(interval)
        raise RuntimeError("screen never showed what was expected:\n" + self.screen())

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], stderr=subprocess.DEVNULL)


def shelf_env(out):
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "TERM": "tmux-256color",
            "HOME": out, "XDG_DATA_HOME": out + "/data", "XDG_CACHE_HOME": out + "/cache"}


def figure_first_frame(args, work, rows, nginx, served):
    """Time from start to the first full shelf frame, with a cached catalog of N issues."""
    for count in args.catalog_sizes:
        name = f"catalog-{count}.plist"
        with open(os.path.join(served, name), "wb") as handle:
            plistlib.dump({"Title": "Bench", "Issues": [
                {"ID": f"i{n}", "Title": f"Issue number {n}", "Download URL": f"issues/i{n}.pdf", "Free": n % 2 == 0,
                 "Release date": __import__("datetime").datetime(2020, 1, 1) + __import__("datetime").timedelta(days=n),
                 "Size": 1000 + n} for n in range(count)]}, handle)
        times, floor = [], []
        for run in range(args.runs):
            out = os.path.join(work, f"frame-{count}-{run}")
            os.makedirs(out)
            env = shelf_env(out)
            # Fill the cache; the shelf then draws from it before its own refresh answers (a 304).
            subprocess.run([args.binary, "refresh", "--catalog", nginx.url(name)], env=env, check=True, stdout=subprocess.DEVNULL)
            expected = lambda screen: f"{count} of {count}" in screen and "DOWNLOAD" in screen
            # The clock starts before tmux does (the program may draw before new-session returns),
            # so the figure includes tmux's own start; the floor row is that alone, for a program
            # that prints the same words at once.
            for command, into in [(f"{args.binary} --catalog {nginx.url(name)}", times),
                                  (f"echo '{count} of {count} DOWNLOAD'", floor)]:
                start = time.monotonic()
                tmux = Tmux(command, env)
                try:
                    tmux.wait_for(expected)
                    into.append(time.monotonic() - start)
                finally:
                    tmux.close()
        target = 100 if count <= 10_000 else 500
        met = statistics.median(times) * 1000 <= target
        rows.append((f"first shelf frame, cached {count}", "newsstand", fmt([t * 1000 for t in times], "ms"), "", "",
                     f"target ≤ {target} ms, {'met' if met else 'missed'}"))
        rows.append((f"first shelf frame, cached {count}", "tmux + echo (floor)", fmt([t * 1000 for t in floor], "ms"), "", "", "—"))


def cpu_shares(pid, seconds):
    """CPU of the whole process and of its main (UI) thread over `seconds`, as shares of a core."""
    before, before_ui = process_cpu(pid), process_cpu(pid, main_thread_only=True)
    start = time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - start
    return (process_cpu(pid) - before) / elapsed, (process_cpu(pid, main_thread_only=True) - before_ui) / elapsed


def cpu_rows(rows, args, label, idle, busy, busy_ui, still_running):
    """The idle and busy rows, with /proc's resolution: one clock tick over the whole window."""
    resolution = 100 / os.sysconf("SC_CLK_TCK") / args.idle_seconds

    def share(value):
        return f"{value * 100:.1f} % of a core (± {resolution:.1f})"

    def verdict(value, target):
        return f"target ≤ {target} %, {'met' if value * 100 <= target else 'missed'}"

    rows.append((f"{label[0]} idle, {args.idle_seconds} s", "newsstand", share(idle), "", "", verdict(idle, 0.5)))
    rows.append((label[1], "UI thread", share(busy_ui), "", "",
                 verdict(busy_ui, 5) + ("" if still_running else " (downloads ended early)")))
    rows.append((label[1], "whole process", share(busy), "", "", "—"))


def figure_shelf_cpu(args, work, rows, nginx, served):
    """CPU of the open shelf: idle over 10 s, and while 4 downloads run."""
    os.makedirs(os.path.join(served, "slow"), exist_ok=True)
    entries = []
    for n in range(4):
        make_pdf(os.path.join(served, "slow", f"s{n}.pdf"), args.slow_size)
        entries.append({"ID": f"s{n}", "Title": f"Slow {n}", "Download URL": f"slow/s{n}.pdf", "Free": True, "Size": args.slow_size})
    with open(os.path.join(served, "slow.plist"), "wb") as handle:
        plistlib.dump({"Title": "Slow", "Issues": entries}, handle)
    out = os.path.join(work, "cpu")
    os.makedirs(out)
    tmux = Tmux(f"{args.binary} --catalog {nginx.url('slow.plist')} --jobs 4", shelf_env(out))
    try:
        tmux.wait_for(lambda screen: "4 of 4" in screen)
        pid = tmux.program_pid()
        time.sleep(1)
        before = process_cpu(pid)
        time.sleep(args.idle_seconds)
        idle = (process_cpu(pid) - before) / args.idle_seconds
        for _ in range(4):
            tmux.send("d")
            tmux.send("l")
        tmux.wait_for(lambda screen: screen.count("%") >= 4)
        busy, busy_ui = cpu_shares(pid, args.idle_seconds)
        still_running = "%" in tmux.screen()
    finally:
        tmux.close()
    cpu_rows(rows, args, ("shelf", "shelf, 4 downloads running"), idle, busy, busy_ui, still_running)


def newsstand_shelf_env(out, colorterm=None):
    env = shelf_env(out)
    env.update({"XDG_CONFIG_HOME": out + "/config", "XDG_STATE_HOME": out + "/state"})
    if colorterm:
        env["COLORTERM"] = colorterm
    return env


def figure_newsstand(args, work, rows, nginx, served):
    """The newsstand view: its first frame over many cached publications, 40 covers in 24-bit
    colour and a redraw with nothing changed, and its CPU idle and while 8 downloads run."""
    count, issues = args.subscription_count, args.subscription_issues
    os.makedirs(os.path.join(served, "stand"), exist_ok=True)
    urls = []
    for n in range(count):
        write_catalog(os.path.join(served, "stand", f"s{n}.plist"), issues, binary=False)
        urls.append(nginx.url(f"stand/s{n}.plist"))

    # 1. First full frame: every visible card with its publication's title and issue count.
    times, floor = [], []
    for run in range(args.runs):
        out = os.path.join(work, f"stand-{run}")
        write_config(out, urls)
        env = newsstand_shelf_env(out)
        subprocess.run([args.binary, "refresh"], env=newsstand_env(out), check=True, stdout=subprocess.DEVNULL)
        expected = lambda screen: f"{count} publications" in screen and screen.count(f"of {issues} kept") >= min(count, 8)
        for command, into in [(args.binary, times), (f"echo '{count} publications' && yes 'of {issues} kept' | head -8", floor)]:
            start = time.monotonic()
            tmux = Tmux(command, env, width=120, height=34)
            try:
                tmux.wait_for(expected)
                into.append(time.monotonic() - start)
            finally:
                tmux.close()
    met = statistics.median(times) * 1000 <= 100
    rows.append((f"newsstand view, {count} × {issues} cached", "newsstand", fmt([t * 1000 for t in times], "ms"), "", "",
                 f"target ≤ 100 ms, {'met' if met else 'missed'}"))
    rows.append((f"newsstand view, {count} × {issues} cached", "tmux + echo (floor)", fmt([t * 1000 for t in floor], "ms"), "", "", "—"))

    # 2. Forty covers on disk drawn in 24-bit colour; then a key that changes nothing.
    os.makedirs(os.path.join(served, "art"), exist_ok=True)
    demo = os.path.join(ROOT, "Resources", "demo", "covers")
    pngs = sorted(os.listdir(demo))
    entries = []
    for n in range(48):
        shutil.copy(os.path.join(demo, pngs[n % len(pngs)]), os.path.join(served, "art", f"a{n}.png"))
        entries.append({"ID": f"a{n}", "Title": f"Art {n}", "Download URL": f"issues/a{n}.pdf", "Cover URL": f"art/a{n}.png"})
    with open(os.path.join(served, "art.plist"), "wb") as handle:
        plistlib.dump({"Title": "Art", "Issues": entries}, handle)
    # chafa draws the demo covers' top row as twelve of these.
    cover_top = "\U0001FB2D" * 12
    after, ready, redraw, moved = [], [], [], []
    presses = 200 if not args.smoke else 20
    for run in range(args.runs):
        out = os.path.join(work, f"art-{run}")
        env = newsstand_shelf_env(out, colorterm="truecolor")
        trace = os.path.join(out, "trace.txt")
        env["NEWSSTAND_TRACE"] = trace
        subprocess.run([args.binary, "covers", "--catalog", nginx.url("art.plist")], env=newsstand_env(out), check=True,
                       stdout=subprocess.DEVNULL)
        tmux = Tmux(f"{args.binary} --catalog {nginx.url('art.plist')}", env, width=176, height=72)
        try:
            start = time.monotonic()
            tmux.wait_for(lambda screen: "Art 47" in screen or "48 of 48" in screen, interval=0.002)
            first = time.monotonic()
            tmux.wait_for(lambda screen: screen.count(cover_top) >= 40, interval=0.002)
            after.append(time.monotonic() - first)
            # From the process's own trace: the last of the 40 covers ready, to the end of the
            # first frame that shows all of them.
            full = None
            deadline = time.monotonic() + 5
            while full is None and time.monotonic() < deadline:
                events = [line.split(" ", 1) for line in open(trace).read().splitlines()]
                last_cover = None
                for index, (stamp, event) in enumerate(events):
                    if event == "cover":
                        last_cover = float(stamp)
                    if event.startswith("frame covers=") and int(event.split("=")[1]) >= 40:
                        full = next((float(s) for s, e in events[index:] if e == "drawn"), None)
                        break
                time.sleep(0.01)
            ready.append(full - last_cover)
            pid = tmux.program_pid()
            time.sleep(0.5)
            before = process_cpu(pid, main_thread_only=True)
            for _ in range(presses):
                tmux.send("h")  # on the first card: nothing moves
            time.sleep(1)
            redraw.append((process_cpu(pid, main_thread_only=True) - before) / presses)
            before = process_cpu(pid, main_thread_only=True)
            for n in range(presses):
                tmux.send("l" if n % 2 == 0 else "h")  # the selection moves: a real frame each
            time.sleep(1)
            moved.append((process_cpu(pid, main_thread_only=True) - before) / presses)
        finally:
            tmux.close()
    rows.append(("40 covers in 24-bit, on disk", "last cover ready → full frame drawn", fmt(ready, "ms"), "", "",
                 f"target ≤ 30 ms, {'met' if statistics.median(ready) <= 30 else 'missed'}"))
    rows.append(("40 covers in 24-bit, on disk", "first frame → all 40 on screen (tmux)", fmt([t * 1000 for t in after], "ms"), "", "", "—"))
    tick = 1000 / os.sysconf("SC_CLK_TCK") / presses
    rows.append((f"redraw on a key, nothing changed ({presses} keys)", "UI thread CPU a key",
                 fmt([r * 1000 for r in redraw], "ms") + f" (± {tick:.2f})", "", "",
                 f"target ≤ 1 ms, {'met' if statistics.median(redraw) * 1000 <= 1 else 'missed'}"))
    rows.append((f"redraw on a key that moves the selection", "UI thread CPU a key",
                 fmt([r * 1000 for r in moved], "ms") + f" (± {tick:.2f})", "", "", "—"))

    # 3. CPU: the newsstand view idle, then 8 downloads across 4 publications.
    os.makedirs(os.path.join(served, "slow"), exist_ok=True)
    slow_urls = []
    for n in range(4):
        pdfs = []
        for m in range(2):
            path = os.path.join(served, "slow", f"p{n}-{m}.pdf")
            if not os.path.exists(path):
                make_pdf(path, args.slow_size)
            pdfs.append({"ID": f"p{n}-{m}", "Title": f"Slow {n}.{m}", "Download URL": f"slow/p{n}-{m}.pdf", "Free": True,
                         "Size": args.slow_size})
        with open(os.path.join(served, f"slow-pub{n}.plist"), "wb") as handle:
            plistlib.dump({"Title": f"Slow {n}", "Issues": pdfs}, handle)
        slow_urls.append(nginx.url(f"slow-pub{n}.plist"))
    out = os.path.join(work, "stand-cpu")
    write_config(out, slow_urls, extra="jobs = 2")
    tmux = Tmux(f"{args.binary} --jobs 8", newsstand_shelf_env(out), width=120, height=34)
    try:
        tmux.wait_for(lambda screen: "4 publications" in screen and screen.count("of 2 kept") == 4)
        pid = tmux.program_pid()
        time.sleep(1)
        before = process_cpu(pid)
        time.sleep(args.idle_seconds)
        idle = (process_cpu(pid) - before) / args.idle_seconds
        for n in range(4):
            tmux.send("Enter")
            tmux.wait_for(lambda screen, n=n: f"Slow {n}.1" in screen)
            tmux.send("d")
            tmux.send("l")
            tmux.send("d")
            tmux.send("BSpace")
            tmux.wait_for(lambda screen: "4 publications" in screen)
            tmux.send("l")
        tmux.wait_for(lambda screen: "↓ 8" in screen)
        busy, busy_ui = cpu_shares(pid, args.idle_seconds)
        still_running = "↓ 8" in tmux.screen()
    finally:
        tmux.close()
    cpu_rows(rows, args, ("newsstand view", "newsstand, 8 downloads in 4 publications"), idle, busy, busy_ui, still_running)


def write_opds(path, count, start=0, next_href=None, title="Bench OPDS"):
    """An OPDS 1.2 acquisition feed shaped like calibre's: urn:uuid IDs, cover and thumbnail links,
    acquisition links with length and mtime."""
    with open(path, "w") as handle:
        handle.write('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
                     'xmlns:dc="http://purl.org/dc/terms/" xmlns:opds="http://opds-spec.org/2010/catalog">\n'
                     f'<id>urn:bench</id><title>{title}</title><updated>2026-11-20T09:00:00Z</updated>\n')
        if next_href:
            handle.write(f'<link rel="next" href="{next_href}" type="application/atom+xml;profile=opds-catalog;kind=acquisition"/>\n')
        for n in range(start, start + count):
            handle.write(
                f'<entry><title>Issue number {n} &amp; more</title><author><name>Editors</name></author>'
                f'<id>urn:uuid:00000000-0000-4000-8000-{n:012d}</id><updated>2026-11-{1 + n % 28:02d}T09:00:00Z</updated>'
                f'<summary>Summary of issue {n}</summary>'
                f'<link type="application/pdf" href="/get/pdf/{n}/Library" length="{1000 + n}" mtime="2026-11-20T09:00:00+00:00" '
                'rel="http://opds-spec.org/acquisition"/>'
                f'<link type="image/jpeg" href="/get/cover/{n}/Library" rel="http://opds-spec.org/cover"/>'
                f'<link type="image/jpeg" href="/get/thumb/{n}/Library" rel="http://opds-spec.org/thumbnail"/></entry>\n')
        handle.write("</feed>\n")


OPDS_PEER = r"""
import sys, xml.etree.ElementTree as ET
A = '{http://www.w3.org/2005/Atom}'
rows = []
for entry in ET.parse(sys.argv[1]).getroot().iter(A + 'entry'):
    row = {'id': entry.findtext(A + 'id'), 'title': entry.findtext(A + 'title'), 'date': entry.findtext(A + 'updated')}
    for link in entry.iter(A + 'link'):
        rel = link.get('rel', '')
        if rel.startswith('http://opds-spec.org/acquisition'):
            row['href'], row['type'], row['length'] = link.get('href'), link.get('type'), link.get('length')
        elif rel in ('http://opds-spec.org/cover', 'http://opds-spec.org/image'):
            row['cover'] = link.get('href')
    rows.append(row)
"""

RSS_PEER = r"""
import sys, xml.etree.ElementTree as ET
rows = []
for item in ET.parse(sys.argv[1]).getroot().iter('item'):
    enclosure = item.find('enclosure')
    rows.append({'id': item.findtext('guid'), 'title': item.findtext('title'), 'date': item.findtext('pubDate'),
                 'href': enclosure.get('url'), 'type': enclosure.get('type'), 'length': enclosure.get('length')})
"""


def write_rss(path, count):
    with open(path, "w") as handle:
        handle.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
                     '<channel><title>Bench RSS</title><link>https://bench.example/</link><description>Bench</description>\n')
        for n in range(count):
            handle.write(f'<item><title>Zine {n}</title><guid isPermaLink="false">zine-{n}</guid>'
                         f'<pubDate>Fri, {1 + n % 28:02d} Nov 2026 08:00:00 GMT</pubDate>'
                         f'<description><![CDATA[<p>Issue {n} &amp; more.</p>]]></description>'
                         f'<enclosure url="/pdf/zine-{n}.pdf" length="{1000 + n}" type="application/pdf"/>'
                         f'<itunes:image href="/img/{n}.png"/></item>\n')
        handle.write("</channel></rss>\n")


# A card's cover, in cells (CardView.coverColumns × coverRows).
COVER_CELLS = (12, 8)
PHOTOGRAPHS = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "hubble_deep_field.jpg", "motorcycle_left.png"]


def photographs(work):
    """Six photographs in the public domain or CC0 that scikit-image ships as sample data, taken
    from its wheel (downloaded from PyPI, not installed); an empty list when PyPI cannot be reached."""
    folder = os.path.join(work, "photos")
    os.makedirs(folder, exist_ok=True)
    result = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                             "scikit-image==0.26.0", "-d", folder], capture_output=True, text=True)
    wheels = [name for name in os.listdir(folder) if name.endswith(".whl")]
    if result.returncode != 0 or not wheels:
        print("photographs: scikit-image's wheel could not be downloaded; the cover-colour rows use the demo's covers only")
        return []
    with zipfile.ZipFile(os.path.join(folder, wheels[0])) as wheel:
        paths = []
        for name in PHOTOGRAPHS:
            path = os.path.join(folder, name)
            with open(path, "wb") as handle:
                handle.write(wheel.read("skimage/data/" + name))
            paths.append(path)
        return paths


def figure_cover_colours(args, work, rows, nginx, served):
    """How far covers drawn in cells land from their pictures, per colour mode: mean CIEDE2000
    over every sixth of a half cell (bench/CoverFidelity), the shelf's tuning against the others."""
    tool = os.path.join(os.path.dirname(args.binary), "cover-fidelity")
    if not os.path.exists(tool):
        print(f"cover colours: {tool} is missing (make bench builds it)")
        return
    photos = [] if args.smoke else photographs(work)
    demo = sorted(os.path.join(ROOT, "Resources/demo/covers", name) for name in os.listdir(os.path.join(ROOT, "Resources/demo/covers")))
    columns, cover_rows = COVER_CELLS
    output = subprocess.run([tool, "--columns", str(columns), "--rows", str(cover_rows), *photos, *demo],
                            capture_output=True, text=True, check=True).stdout
    results = {}
    for line in output.splitlines():
        mode, tuning, chosen, path, difference = line.split("\t")
        kind = "photographs" if path in photos else "covers"
        results.setdefault((mode, tuning, chosen == "chosen"), {}).setdefault(kind, []).append(float(difference))
    for mode in ("truecolor", "256", "16"):
        entries = [(tuning, chosen, kinds) for (m, tuning, chosen), kinds in results.items() if m == mode]
        if not entries:
            continue
        def mean(kinds, kind):
            return statistics.mean(kinds[kind]) if kind in kinds else float("nan")
        best = min(entries, key=lambda entry: mean(entry[2], "photographs") + mean(entry[2], "covers") if photos else mean(entry[2], "covers"))
        for tuning, chosen, kinds in sorted(entries, key=lambda entry: not entry[1]):
            if not chosen and (tuning, chosen, kinds) != best and "RGB, dither none, 240" not in tuning:
                continue
            label = f"{mode}: {tuning}" + (" (the shelf's)" if chosen else " (best other)" if (tuning, chosen, kinds) == best else " (RGB, as before)")
            figure = f"cover colours, mean CIEDE2000, {columns}×{cover_rows} cells"
            text = (f"photographs {mean(kinds, 'photographs'):.2f} · " if photos else "") + f"demo covers {mean(kinds, 'covers'):.2f}"
            rows.append((figure, label, text, "—", "—", "lower is closer; 16 colours get text cards"))


def figure_feeds(args, work, rows, nginx, served):
    """Feeds: a cached OPDS 1.2 feed and a cached RSS feed listed against Python's ElementTree
    extracting the same fields, and a paginated feed refreshed against curl fetching its pages."""
    for label, name, count, writer, peer_script, target in [
            ("OPDS 1.2", "feed-opds.xml", args.opds_entries, lambda p, c: write_opds(p, c), OPDS_PEER, 0.4),
            ("RSS", "feed-rss.xml", args.rss_items, write_rss, RSS_PEER, 0.5)]:
        writer(os.path.join(served, name), count)
        cached = os.path.join(work, f"feed-cache-{name}")
        subprocess.run([args.binary, "refresh", "--catalog", nginx.url(name)], env=newsstand_env(cached), check=True,
                       stdout=subprocess.DEVNULL)

        def prepare(tool, out, name=name, cached=cached, peer_script=peer_script):
            if tool == "newsstand":
                return [args.binary, "list", "--json", "--offline", "--catalog", nginx.url(name)], newsstand_env(cached)
            return [args.python, "-c", peer_script, os.path.join(served, name)], None

        compare(args, work, rows, f"list --json, {label} feed of {count} entries, cached", prepare,
                ["newsstand", "python3 ElementTree"], "python3 ElementTree", target)

    pages, per_page = args.feed_pages, args.feed_page_entries
    os.makedirs(os.path.join(served, "pages"), exist_ok=True)
    for page in range(pages):
        write_opds(os.path.join(served, "pages", f"p{page}.xml"), per_page, start=page * per_page,
                   next_href=f"p{page + 1}.xml" if page + 1 < pages else None)
    urls = [nginx.url(f"pages/p{page}.xml") for page in range(pages)]
    write_opds(os.path.join(served, "pages", "whole.xml"), pages * per_page)
    one_page = "newsstand: the same entries as one page (floor)"

    def prepare_pages(tool, out):
        if tool == "newsstand":
            return [args.binary, "refresh", "--catalog", urls[0]], newsstand_env(out)
        if tool == one_page:
            return [args.binary, "refresh", "--catalog", nginx.url("pages/whole.xml")], newsstand_env(out)
        command = [shutil.which("curl"), "-s", "--fail"]
        for url in urls:
            command += ["-o", "/dev/null", url]
        return command, None

    compare(args, work, rows, f"refresh of a feed of {pages} pages × {per_page} entries", prepare_pages,
            ["newsstand", "curl (the same pages, one after another)", one_page], "curl (the same pages, one after another)", 4,
            floors=(one_page,), targets={one_page: 3})


class XTerminal:
    """A terminal emulator (xterm as a VT340, or kitty) on a display of its own (Xvfb), typed at
    with xdotool; xterm logs what the program writes."""

    def __init__(self, kind, command, env, columns, rows, log=None):
        self.read_fd, write_fd = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "3000x2000x24", "-nolisten", "tcp"],
                                     pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_fd)
        number = b""
        while not number.endswith(b"\n"):
            chunk = os.read(self.read_fd, 16)
            if not chunk:
                raise RuntimeError("Xvfb did not start")
            number += chunk
        os.close(self.read_fd)
        self.display = ":" + number.decode().strip()
        program = ["env", "-i"] + [f"{key}={value}" for key, value in env.items()] + command
        xenv = {"DISPLAY": self.display, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        if kind == "xterm":
            argv = ["xterm", "-ti", "vt340", "-geometry", f"{columns}x{rows}"] + (["-l", "-lf", log] if log else []) + ["-e"] + program
        else:
            xenv.update({"HOME": env["HOME"], "LIBGL_ALWAYS_SOFTWARE": "1"})
            argv = ["kitty", "--config", "NONE", "-o", f"initial_window_width={columns}c", "-o", f"initial_window_height={rows}c",
                    "-o", "remember_window_size=no", "-o", "window_padding_width=0"] + program
        self.terminal = subprocess.Popen(argv, env=xenv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # A window that is not mapped yet cannot take the focus (windowfocus failed now and then).
        self.window = self.xdotool("search", "--sync", "--onlyvisible", "--pid", str(self.terminal.pid)).split()[0]
        self.xdotool("windowfocus", "--sync", self.window)

    def xdotool(self, *arguments):
        return subprocess.run(["xdotool", *arguments], env={"DISPLAY": self.display}, capture_output=True, text=True, check=True).stdout

    def keys(self, *names):
        self.xdotool("key", "--delay", "40", *names)

    def close(self):
        for process in (self.terminal, self.xvfb):
            process.kill()
            process.wait()


def write_cover_catalog(served, count):
    """A catalog of `count` issues whose covers are the demo's six pictures in turn."""
    covers = sorted(glob.glob(os.path.join(ROOT, "Resources/demo/covers/*.png")))
    os.makedirs(os.path.join(served, "pictures"), exist_ok=True)
    for index, cover in enumerate(covers):
        shutil.copy(cover, os.path.join(served, "pictures", f"c{index}.png"))
    with open(os.path.join(served, "pictures.plist"), "wb") as handle:
        plistlib.dump({"Title": "Pictures", "Issues": [
            {"ID": f"p{n}", "Title": f"Picture {n}", "Download URL": f"pictures/p{n}.pdf", "Free": True,
             "Cover URL": f"pictures/c{n % len(covers)}.png",
             "Release date": __import__("datetime").datetime(2020, 1, 1) + __import__("datetime").timedelta(days=count - n)}
            for n in range(count)]}, handle)


def write_pages_pdf(path, pages):
    """A real PDF of `pages` pages, each a coloured rectangle and lines of text, that poppler renders."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", None, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for page in range(pages):
        text = b" ".join(b"BT /F1 12 Tf 20 %d Td (Page %d, line %d of the bench PDF) Tj ET" % (780 - 14 * line, page + 1, line) for line in range(40))
        content = b"%.2f 0.3 0.6 rg 0 0 595 842 re f 0 g " % ((page % 10) / 10) + text
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % len(objects))
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d >>" % pages
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    with open(path, "wb") as handle:
        handle.write(out)


def figure_pictures(args, work, rows, nginx, served):
    """Covers as pictures: first frame → every cover on screen sent as a picture (sixel in xterm,
    kitty's protocol in kitty), the UI thread's CPU for a key that moves the selection with the
    pictures on screen, bytes written to the terminal per key (none for a key that changes
    nothing), and the time to make a cover from a 100-page PDF against pdftoppm alone."""
    count = args.picture_count
    write_cover_catalog(served, count)
    # 18 × 14 cells a card: 8 columns and 5 rows show 40 (the details pane beside them).
    columns, rows_ = 8 * 20 + 32, 5 * 14 + 2
    key_cpu_by_mode = {}
    for kind, mode, extra in [("xterm", "symbols", ["--covers", "symbols"]), ("xterm", "sixel", []), ("kitty", "kitty", [])]:
        if not shutil.which(kind):
            rows.append((f"{count} covers as pictures ({kind})", "newsstand", "—", "", "", f"{kind} is not installed (make bench-deps)"))
            continue
        shown, key_cpu, key_bytes, still_bytes = [], [], [], []
        for run in range(args.runs):
            out = os.path.join(work, f"pictures-{mode}-{run}")
            os.makedirs(out)
            env = newsstand_shelf_env(out)
            env["TERM"] = "xterm-256color" if kind == "xterm" else "xterm-kitty"
            subprocess.run([args.binary, "refresh", "--catalog", nginx.url("pictures.plist")], env=env, check=True, stdout=subprocess.DEVNULL)
            trace, log = os.path.join(out, "trace"), os.path.join(out, "terminal.log")
            env["NEWSSTAND_TRACE"] = trace
            if mode == "symbols":
                env["COLORTERM"] = "truecolor"
            terminal = XTerminal(kind, [args.binary, "--catalog", nginx.url("pictures.plist")] + extra, env, columns, rows_, log if kind == "xterm" else None)
            try:
                visible = min(count, 40)
                deadline = time.monotonic() + 60
                first = done = None
                while time.monotonic() < deadline and done is None:
                    lines = open(trace).read().splitlines() if os.path.exists(trace) else []
                    frames = [line.split() for line in lines if " frame covers=" in line]
                    if frames:
                        first = float(frames[0][0])
                        complete = [float(f[0]) for f in frames if int(f[2].split("=")[1]) >= visible]
                        done = complete[0] if complete else None
                    time.sleep(0.02)
                if done is None:
                    raise RuntimeError(f"{kind}: the covers never all arrived")
                # The trace counts milliseconds.
                shown.append((done - first) / 1000)
                time.sleep(0.5)
                pid = int(subprocess.run(["pgrep", "-f", "-n", f"{args.binary} --catalog"], capture_output=True, text=True).stdout.split()[0])
                # A key that changes nothing (left at the first card): nothing is written.
                size = os.path.getsize(log) if kind == "xterm" else 0
                terminal.keys("Home", "Left", "Left", "Left", "Left")
                time.sleep(0.5)
                if kind == "xterm":
                    still_bytes.append((os.path.getsize(log) - size) / 4)
                # Keys that move the selection across the pictures, and back.
                keys = ["Right"] * 7 + ["Left"] * 7
                before_cpu, before_size = process_cpu(pid, main_thread_only=True), (os.path.getsize(log) if kind == "xterm" else 0)
                for _ in range(args.picture_key_rounds):
                    terminal.keys(*keys)
                time.sleep(0.5)
                pressed = len(keys) * args.picture_key_rounds
                key_cpu.append((process_cpu(pid, main_thread_only=True) - before_cpu) / pressed)
                if kind == "xterm":
                    key_bytes.append((os.path.getsize(log) - before_size) / pressed)
            finally:
                terminal.close()
        shown_what = "symbols, 24-bit" if mode == "symbols" else "pictures"
        rows.append((f"first frame → {min(count, 40)} covers as {shown_what} ({mode}, {kind})", "newsstand", fmt([t * 1000 for t in shown], "ms"), "", "", "—"))
        tick = 1000 / os.sysconf("SC_CLK_TCK") / (14 * args.picture_key_rounds)
        median_cpu = statistics.median(key_cpu) * 1000
        key_cpu_by_mode[mode] = median_cpu
        versus = f", {median_cpu / key_cpu_by_mode['symbols']:.2f}× symbols" if mode != "symbols" and key_cpu_by_mode.get("symbols") else ""
        rows.append((f"UI thread CPU per key moving the selection, {min(count, 40)} covers ({mode}, {kind})", "newsstand",
                     f"{median_cpu:.2f} ms (± {tick:.2f})", "", "", f"target ≤ 2 ms, {'met' if median_cpu <= 2 else 'missed'}{versus}"))
        if key_bytes:
            rows.append((f"bytes written per key moving the selection ({mode}, {kind})", "newsstand", f"{statistics.median(key_bytes):.0f} B", "", "", "—"))
            rows.append((f"bytes written per key that changes nothing ({mode}, {kind})", "newsstand", f"{statistics.median(still_bytes):.0f} B", "", "",
                         f"target 0, {'met' if statistics.median(still_bytes) == 0 else 'missed'}"))

    # A cover made from a 100-page PDF, against pdftoppm rendering its first page alone.
    pdf = os.path.join(work, "pages.pdf")
    write_pages_pdf(pdf, args.pdf_pages)
    shutil.copy(pdf, os.path.join(served, "pages.pdf"))
    with open(os.path.join(served, "pages.plist"), "wb") as handle:
        plistlib.dump({"Title": "Pages", "Issues": [{"ID": "pages", "Title": "Pages", "Download URL": "pages.pdf", "Free": True}]}, handle)
    made, floor = [], []
    for run in range(args.runs):
        out = os.path.join(work, f"made-{run}")
        os.makedirs(out)
        env = newsstand_env(out)
        subprocess.run([args.binary, "download", "pages", "--catalog", nginx.url("pages.plist")], env=env, check=True, stdout=subprocess.DEVNULL)
        start = time.monotonic()
        subprocess.run([args.binary, "covers", "--catalog", nginx.url("pages.plist")], env=env, check=True, stdout=subprocess.DEVNULL)
        made.append(time.monotonic() - start)
        start = time.monotonic()
        subprocess.run(["pdftoppm", "-f", "1", "-l", "1", "-singlefile", "-cropbox", "-scale-to", "800", "-png", pdf, os.path.join(out, "floor")],
                       check=True)
        floor.append(time.monotonic() - start)
    ratio = statistics.median(made) / statistics.median(floor)
    rows.append((f"cover made from a {args.pdf_pages}-page PDF", "newsstand covers", fmt([t * 1000 for t in made], "ms"), "", "", f"{ratio:.2f}× pdftoppm"))
    rows.append((f"cover made from a {args.pdf_pages}-page PDF", "pdftoppm, first page (floor)", fmt([t * 1000 for t in floor], "ms"), "", "", "—"))


def figure_publish(args, work, rows, nginx, served):
    """`publish` of a folder of N issues (each with its cover beside it, as a publisher with
    covers has them): the first run, then a run after one new file, which reads that file alone."""
    count = args.publish_files
    folder = os.path.join(work, "publish")
    os.makedirs(folder)
    pdf = os.path.join(work, "publish-page.pdf")
    write_pages_pdf(pdf, 1)
    cover = sorted(glob.glob(os.path.join(ROOT, "Resources/demo/covers/*.png")))[0]
    for n in range(count):
        shutil.copy(pdf, os.path.join(folder, f"2020-01-01 Issue {n:05d}.pdf"))
        shutil.copy(cover, os.path.join(folder, f"2020-01-01 Issue {n:05d}.png"))
    env = newsstand_env(os.path.join(work, "publish-home"))
    os.makedirs(env["HOME"], exist_ok=True)
    base = "https://example.org/zine/"
    start = time.monotonic()
    subprocess.run([args.binary, "publish", folder, "--base-url", base], env=env, check=True, stdout=subprocess.DEVNULL)
    first = time.monotonic() - start
    with open(os.path.join(folder, "catalog.plist"), "rb") as handle:
        if len(plistlib.load(handle)["Issues"]) != count:
            raise RuntimeError(f"catalog.plist does not list the {count} issues")
    one_new = []
    for run in range(args.runs):
        shutil.copy(pdf, os.path.join(folder, f"2021-01-01 New {run}.pdf"))
        shutil.copy(cover, os.path.join(folder, f"2021-01-01 New {run}.png"))
        start = time.monotonic()
        result = subprocess.run([args.binary, "publish", folder, "--base-url", base], env=env, check=True, capture_output=True, text=True)
        one_new.append(time.monotonic() - start)
        if "read 1 file," not in result.stdout:
            raise RuntimeError("the re-run read more than the new file: " + result.stdout)
    median = statistics.median(one_new)
    rows.append((f"publish, {count} issues, first run", "newsstand publish", f"{first:.2f} s", "", "", "—"))
    rows.append((f"publish, {count} issues, one new file", "newsstand publish", fmt([t * 1000 for t in one_new], "ms"), "", "",
                 f"target ≤ 1 s, {'met' if median <= 1 else 'missed'}; {median / first:.3f}× the first run"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build-release/release/newsstand"),
                        help="the static release `make release` builds, which is what `make install` installs")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--download-sizes", type=int, nargs="*", default=[512 << 20, 1 << 30])
    parser.add_argument("--catalog-sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--idle-seconds", type=int, default=10)
    parser.add_argument("--slow-size", type=int, default=200 << 20)
    parser.add_argument("--parallel-size", type=int, default=128 << 20)
    parser.add_argument("--cover-count", type=int, default=1000)
    parser.add_argument("--list-sizes", type=int, nargs="*", default=[1_000, 10_000, 100_000])
    parser.add_argument("--subscription-count", type=int, default=100)
    parser.add_argument("--subscription-issues", type=int, default=1_000)
    parser.add_argument("--opds-entries", type=int, default=10_000)
    parser.add_argument("--rss-items", type=int, default=5_000)
    parser.add_argument("--feed-pages", type=int, default=100)
    parser.add_argument("--feed-page-entries", type=int, default=100)
    parser.add_argument("--picture-count", type=int, default=40)
    parser.add_argument("--picture-key-rounds", type=int, default=10)
    parser.add_argument("--pdf-pages", type=int, default=100)
    parser.add_argument("--publish-files", type=int, default=10_000)
    parser.add_argument("--only", choices=["download", "parallel", "covers", "colours", "list", "shelf", "subscriptions", "newsstand", "feeds", "pictures", "publish"],
                        help="run one group of figures")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, 1 run: checks the harness only")
    args = parser.parse_args()
    if args.smoke:
        args.runs = 1
        args.download_sizes = [4 << 20]
        args.catalog_sizes = [100]
        args.idle_seconds = 1
        args.slow_size = 40 << 20
        args.parallel_size = 1 << 20
        args.cover_count = 20
        args.list_sizes = [100]
        args.subscription_count = 3
        args.subscription_issues = 20
        args.opds_entries = 50
        args.rss_items = 50
        args.feed_pages = 3
        args.feed_page_entries = 10
        args.picture_count = 6
        args.picture_key_rounds = 1
        args.pdf_pages = 3
        args.publish_files = 20
    args.python = peer_python()
    print(f"peers: {args.python} (python3 plistlib), {shutil.which('curl')}, {shutil.which('wget')}")
    work = tempfile.mkdtemp(prefix="newsstand-bench-")
    os.chmod(work, 0o755)  # nginx workers may run as another user
    rows = []
    try:
        served = os.path.join(work, "www")
        os.makedirs(served)
        with Nginx(served, os.path.join(work, "nginx")) as nginx:
            for group, figure in [("download", figure_download), ("parallel", figure_parallel), ("covers", figure_covers), ("colours", figure_cover_colours),
                                  ("list", figure_list), ("shelf", figure_first_frame), ("shelf", figure_shelf_cpu),
                                  ("subscriptions", figure_subscriptions), ("newsstand", figure_newsstand), ("feeds", figure_feeds),
                                  ("pictures", figure_pictures), ("publish", figure_publish)]:
                if args.only in (None, group):
                    figure(args, work, rows, nginx, served)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = ("figure", "command", "wall (median, min–max)", "CPU", "peak RSS", "ratio")
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths)] + rows:
        print(" | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))


if __name__ == "__main__":
    sys.exit(main())
