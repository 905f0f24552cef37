#!/usr/bin/env python3
"""Size and start time of newsstand builds, side by side in one run.

Each binary is copied and stripped (as `make install` does); both run `--version` and
`list --offline` of the bundled demo (its catalog cached first) in turns, A B A B ..., and the
table gives the median of the runs with min-max. Used to choose how the release is linked.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stripped_copy(binary, work, name):
    path = os.path.join(work, name)
    shutil.copy(binary, path)
    subprocess.run(["strip", "--strip-unneeded", path], check=True)
    return path


def environment(work):
    env = {key: value for key, value in os.environ.items() if not key.startswith("XDG_")}
    for kind in ("CONFIG", "DATA", "CACHE", "STATE"):
        env[f"XDG_{kind}_HOME"] = os.path.join(work, "home", kind.lower())
    env["NEWSSTAND_RESOURCES"] = os.path.join(ROOT, "Resources")
    return env


def timed(command, env):
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="append", nargs=2, metavar=("NAME", "BINARY"), required=True,
                        help="a label and a binary; give two or more")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="newsstand-startup-") as work:
        env = environment(work)
        builds = []
        for name, binary in args.build:
            stripped = stripped_copy(binary, work, name.replace(" ", "-"))
            builds.append((name, binary, stripped))
        # Fill the demo's cache once; every later `list --offline` reads it.
        subprocess.run([builds[0][2], "list"], env=env, stdout=subprocess.DEVNULL, check=True)

        commands = {"--version": ["--version"], "list --offline (demo)": ["list", "--offline"]}
        times = {(name, label): [] for name, _, _ in builds for label in commands}
        for _ in range(args.runs):
            for label, arguments in commands.items():
                for name, _, stripped in builds:
                    times[(name, label)].append(timed([stripped] + arguments, env))

        print(f"{'build':<28} {'size':>10} {'stripped':>10}  " + "  ".join(f"{label:>24}" for label in commands))
        for name, binary, stripped in builds:
            cells = []
            for label in commands:
                values = times[(name, label)]
                cells.append(f"{statistics.median(values) * 1000:6.1f} ms ({min(values) * 1000:.1f}-{max(values) * 1000:.1f})")
            print(f"{name:<28} {os.path.getsize(binary) / 1e6:8.1f}MB {os.path.getsize(stripped) / 1e6:8.1f}MB  "
                  + "  ".join(f"{cell:>24}" for cell in cells))
        print(f"median of {args.runs} runs each, interleaved; sizes in 10^6 bytes")


if __name__ == "__main__":
    main()
