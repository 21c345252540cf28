"""Does this machine hold its speed? The same workload, timed two ways:

1. one process for --seconds, printing the mean step time of each --window seconds;
2. --processes fresh processes (as benches and `planner validate` runs are), each timing
   --process-seconds after a short warm-up, printing each one's mean.

On a quiet machine both spreads are a few percent, and `make bench-accuracy` can meet its target.
On a shared VM they show the drift that no short bench can foresee.

    make bench-drift   # or: python benchmarks/drift.py [SPEC] [--seconds 60] [--processes 6] [--threads N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def series(
    spec_path: str, seconds: float, window: float, threads: int | None, warmup_steps: int = 20
) -> list[float]:
    """Mean step seconds of each `window` of one process's `seconds` of training."""
    import torch

    from planner.workload.spec import load_spec
    from runner.bench.workloads import build

    if threads:
        torch.set_num_threads(threads)
    workload = build(load_spec(spec_path).to_job(), torch.device("cpu"))
    for _ in range(warmup_steps):
        workload.step()
    means, n = [], 0
    start = last = time.perf_counter()
    while time.perf_counter() - start < seconds:
        workload.step()
        n += 1
        now = time.perf_counter()
        if now - last >= window:
            means.append((now - last) / n)
            n, last = 0, now
    return means


def spread(values: list[float]) -> str:
    lo, hi, mid = min(values), max(values), statistics.median(values)
    return f"{lo * 1e3:.3f} to {hi * 1e3:.3f} ms, max/min {hi / lo:.2f}, (max-min)/median {100 * (hi - lo) / mid:.0f}%"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", nargs="?", default=str(ROOT / "examples/surface-mlp.yaml"))
    ap.add_argument(
        "--seconds", type=float, default=60.0, help="length of the one long process (default 60)"
    )
    ap.add_argument(
        "--window", type=float, default=5.0, help="window of the long process (default 5 s)"
    )
    ap.add_argument("--processes", type=int, default=6, help="fresh processes (default 6)")
    ap.add_argument(
        "--process-seconds",
        type=float,
        default=4.0,
        help="time each fresh process measures (default 4)",
    )
    ap.add_argument("--threads", type=int, help="torch threads (default: torch's)")
    ap.add_argument(
        "--one", action="store_true", help=argparse.SUPPRESS
    )  # a fresh process prints its mean
    args = ap.parse_args()
    if args.one:
        print(
            statistics.mean(
                series(args.spec, args.process_seconds, args.process_seconds / 4, args.threads)
            )
        )
        return 0

    means = series(args.spec, args.seconds, args.window, args.threads)
    print(f"one process, {args.seconds:g} s in {args.window:g} s windows (ms per step):")
    print("  " + " ".join(f"{m * 1e3:.3f}" for m in means))
    print(f"  {spread(means)}")
    fresh = []
    for _ in range(args.processes):
        cmd = [
            sys.executable,
            __file__,
            args.spec,
            "--one",
            "--process-seconds",
            str(args.process_seconds),
        ]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        fresh.append(
            float(subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout)
        )
    print(f"{args.processes} fresh processes, {args.process_seconds:g} s each (ms per step):")
    print("  " + " ".join(f"{m * 1e3:.3f}" for m in fresh))
    print(f"  {spread(fresh)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
