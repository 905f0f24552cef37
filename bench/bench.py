#!/usr/bin/env python3
"""newsstand's benchmarks: each figure beside a peer measured in the same run.

Starts its own nginx on 127.0.0.1 (own prefix, config and port; stopped at the end), makes its
data, runs each figure's commands interleaved (A B A B ...) and prints one table with medians,
min-max and ratios. `--smoke` runs a tiny version of every figure so that the harness cannot rot.
"""
import argparse
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
    """Runs a command under GNU time: wall seconds, CPU seconds, peak RSS in MiB."""
    result = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *command], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {result.stderr[-500:]}")
    wall, user, system, rss = result.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(rss) / 1024


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


def fmt(values, unit):
    median, low, high = summary(values)
    return f"{median:.2f} {unit} ({low:.2f}–{high:.2f})"


def make_pdf(path, size):
    with open(path, "wb") as handle:
        handle.write(b"%PDF-1.4\n")
        remaining = size - 9
        block = os.urandom(1 << 20)
        while remaining > 0:
            handle.write(block[:min(remaining, len(block))])
            remaining -= len(block)


def figure_download(args, work, rows):
    """One large issue: newsstand download against curl -o (and wget) from the same nginx."""
    size = args.download_size
    served = os.path.join(work, "www")
    os.makedirs(os.path.join(served, "issues"), exist_ok=True)
    make_pdf(os.path.join(served, "issues", "big.pdf"), size)
    with open(os.path.join(served, "catalog.plist"), "wb") as handle:
        plistlib.dump({"Title": "Bench", "Issues": [
            {"ID": "big", "Title": "Big issue", "Download URL": "issues/big.pdf", "Free": True, "Size": size}]}, handle)
    with Nginx(served, os.path.join(work, "nginx")) as nginx:
        results = {"newsstand": [], "curl": [], "wget": []}
        for run in range(args.runs):
            for name in results:
                out = os.path.join(work, f"run-{name}-{run}")
                os.makedirs(out)
                warm_memory(work, size)
                if name == "newsstand":
                    env = dict(os.environ, XDG_DATA_HOME=out, XDG_CACHE_HOME=out + "/cache", HOME=out)
                    command = [args.binary, "download", "big", "--catalog", nginx.url("catalog.plist")]
                elif name == "curl":
                    env = None
                    command = ["curl", "-sS", "-o", out + "/big.pdf", nginx.url("issues/big.pdf")]
                else:
                    if not shutil.which("wget"):
                        continue
                    env = None
                    command = ["wget", "-q", "-O", out + "/big.pdf", nginx.url("issues/big.pdf")]
                results[name].append(timed(command, env))
        label = f"download {size >> 20} MiB"
        peer = results["curl"]
        for name, runs in results.items():
            if not runs:
                continue
            walls = [r[0] for r in runs]
            cpus = [r[1] for r in runs]
            rss = [r[2] for r in runs]
            ratio = statistics.median(walls) / statistics.median([r[0] for r in peer])
            rows.append((label, name, fmt(walls, "s"), fmt(cpus, "s"), fmt(rss, "MiB"),
                         "—" if name == "curl" else f"{ratio:.2f}× curl"))


def process_cpu(pid, main_thread_only=False):
    """CPU seconds used so far by a process (or by its main thread)."""
    path = f"/proc/{pid}/task/{pid}/stat" if main_thread_only else f"/proc/{pid}/stat"
    with open(path) as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Tmux:
    def __init__(self, command, env, width=120, height=40):
        self.socket = f"newsstand-bench-{os.getpid()}"
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
        times = []
        for run in range(args.runs):
            out = os.path.join(work, f"frame-{count}-{run}")
            os.makedirs(out)
            env = shelf_env(out)
            # Fill the cache; the shelf then draws from it before its own refresh answers (a 304).
            subprocess.run([args.binary, "refresh", "--catalog", nginx.url(name)], env=env, check=True, stdout=subprocess.DEVNULL)
            tmux = Tmux(f"{args.binary} --catalog {nginx.url(name)}", env)
            start = time.monotonic()
            try:
                tmux.wait_for(lambda screen: f"{count} of {count}" in screen and "DOWNLOAD" in screen)
                times.append(time.monotonic() - start)
            finally:
                tmux.close()
        rows.append((f"first shelf frame, cached {count}", "newsstand", fmt([t * 1000 for t in times], "ms"), "", "", "—"))


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
        before, before_ui = process_cpu(pid), process_cpu(pid, main_thread_only=True)
        start = time.monotonic()
        time.sleep(args.idle_seconds)
        elapsed = time.monotonic() - start
        busy = (process_cpu(pid) - before) / elapsed
        busy_ui = (process_cpu(pid, main_thread_only=True) - before_ui) / elapsed
        still_running = "%" in tmux.screen()
    finally:
        tmux.close()
    rows.append((f"shelf idle, {args.idle_seconds} s", "newsstand", f"{idle * 100:.2f} % of a core", "", "", "target ≤ 0.5 %"))
    rows.append(("shelf, 4 downloads running", "UI thread", f"{busy_ui * 100:.2f} % of a core", "", "",
                 "target ≤ 5 %" + ("" if still_running else " (downloads ended early)")))
    rows.append(("shelf, 4 downloads running", "whole process", f"{busy * 100:.2f} % of a core", "", "", "—"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/newsstand"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--download-size", type=int, default=1 << 30)
    parser.add_argument("--catalog-sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--idle-seconds", type=int, default=10)
    parser.add_argument("--slow-size", type=int, default=200 << 20)
    parser.add_argument("--only", choices=["download", "shelf"], help="run one group of figures")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, 1 run: checks the harness only")
    args = parser.parse_args()
    if args.smoke:
        args.runs = 1
        args.download_size = 4 << 20
        args.catalog_sizes = [100]
        args.idle_seconds = 1
        args.slow_size = 40 << 20
    work = tempfile.mkdtemp(prefix="newsstand-bench-")
    os.chmod(work, 0o755)  # nginx workers may run as another user
    rows = []
    try:
        if args.only in (None, "download"):
            figure_download(args, work, rows)
        if args.only in (None, "shelf"):
            served = os.path.join(work, "shelf-www")
            os.makedirs(served)
            with Nginx(served, os.path.join(work, "shelf-nginx")) as nginx:
                figure_first_frame(args, work, rows, nginx, served)
                figure_shelf_cpu(args, work, rows, nginx, served)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = ("figure", "command", "wall (median, min–max)", "CPU", "peak RSS", "ratio")
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths)] + rows:
        print(" | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))


if __name__ == "__main__":
    sys.exit(main())
