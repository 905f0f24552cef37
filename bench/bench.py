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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/newsstand"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--download-size", type=int, default=1 << 30)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, 1 run: checks the harness only")
    args = parser.parse_args()
    if args.smoke:
        args.runs = 1
        args.download_size = 4 << 20
    work = tempfile.mkdtemp(prefix="newsstand-bench-")
    os.chmod(work, 0o755)  # nginx workers may run as another user
    rows = []
    try:
        figure_download(args, work, rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = ("figure", "command", "wall (median, min–max)", "CPU", "peak RSS", "ratio")
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths)] + rows:
        print(" | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))


if __name__ == "__main__":
    sys.exit(main())
