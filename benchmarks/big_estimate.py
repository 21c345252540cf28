"""Does `planner estimate` stay bounded on a big workload? Wall time, peak memory and the answer.

Runs `planner estimate examples/big-convnet.yaml --json` (200,000 images, 10 GB of data on the
device, 30 epochs) --repeats times in fresh processes and prints, per run: wall seconds, the peak
resident memory of the planner and its bench child together, the local estimate with
its interval (as a ratio to its point), and the headline. The targets (issue 13): an answer within
30 s of the bench budget (--seconds), at most 2 GiB of this machine's memory, a local interval no
wider than x2 either side, a GPU headline. Exit 1 when one is missed.

    make bench-big            # or: python benchmarks/big_estimate.py [--repeats N] [--seconds S] [SPEC]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.core.document_json import from_json  # noqa: E402 - the CLI's JSON through the one converter


def tree_rss(pid: int) -> int:
    """Resident bytes of `pid` and all its descendants now (Linux /proc; 0 once it is gone)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                total += next(
                    (int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:")), 0
                )
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def one_run(spec: Path, seconds: float) -> dict:
    """One `planner estimate` in a fresh process: wall time and the peak of the whole process tree's
    resident memory (the planner and its bench child together, sampled every 50 ms)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "planner.cli",
            "estimate",
            str(spec),
            "--seconds",
            str(seconds),
            "--json",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    peak, done = [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = (
        proc.communicate()
    )  # reads both pipes as they fill: the JSON is larger than a pipe
    done.set()
    sampler.join()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"planner estimate failed ({proc.returncode}): {stderr}")
    doc = json.loads(stdout, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    typed = from_json(doc, "planner estimate --json")
    local = next(o for o in doc["options"] if o["target"] == "local")
    row = typed.recommended
    rec = {
        "target": typed.recommendation.target,
        "device": typed.recommendation.device,
        "device_name": row.device_name if row is not None else typed.recommendation.device,
    }
    return {"wall": wall, "peak": peak[0], "local": local, "rec": rec, "load": os.getloadavg()[0]}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("spec", nargs="?", default=str(ROOT / "examples" / "big-convnet.yaml"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    runs = []
    print(
        "| run | wall | peak RSS (planner + bench) | local estimate (interval) | low/point, high/point | headline | load before |"
    )
    print("|---:|---:|---:|---|---|---|---:|")
    for i in range(args.repeats):
        load = os.getloadavg()[0]
        r = one_run(Path(args.spec), args.seconds)
        o = r["local"]
        lo, hi = (
            o["train_seconds_low"] / o["train_seconds"],
            (o["train_seconds_high"] or float("inf")) / o["train_seconds"],
        )
        runs.append({**r, "lo": lo, "hi": hi})
        print(
            f"| {i + 1} | {r['wall']:.0f} s | {r['peak'] / 2**30:.2f} GiB | {o['train_seconds'] / 3600:.1f} h "
            f"({o['train_seconds_low'] / 3600:.1f}-{(o['train_seconds_high'] or float('inf')) / 3600:.1f} h) | "
            f"{lo:.2f}, {hi:.2f} | {r['rec']['target']} ({r['rec']['device_name']}) | {load:.1f} |"
        )
    walls = [r["wall"] for r in runs]
    print(
        f"\nwall: median {statistics.median(walls):.0f} s, {min(walls):.0f}-{max(walls):.0f} s; peak RSS at most "
        f"{max(r['peak'] for r in runs) / 2**30:.2f} GiB over {len(runs)} runs"
    )
    missed = [
        r
        for r in runs
        if r["wall"] > args.seconds + 30
        or r["peak"] > 2 * 2**30
        or r["lo"] < 0.5
        or r["hi"] > 2.0
        or r["rec"]["device"] != "cuda"
    ]
    print(
        f"targets (<= {args.seconds + 30:.0f} s = the bench budget + 30 s, <= 2 GiB, local interval within x2, a GPU headline): "
        + ("met in every run" if not missed else f"missed in {len(missed)} of {len(runs)} runs")
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
