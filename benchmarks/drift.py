"""Does this machine hold its speed? The same workload, timed two ways:

1. one process for --seconds, printing the mean step time of each --window seconds;
2. --processes fresh processes (as benches and `planner validate` runs are), each timing
   --process-seconds after a short warm-up, printing each one's mean.

Each by the wall clock and by the process's CPU time per torch thread (steadier where the
hypervisor's steal moves the wall clock; not where neighbours share the memory bandwidth);
--pin keeps every process on one CPU.

On a quiet machine both spreads are a few percent, and `make bench-accuracy` can meet its target.
On a shared VM they show the drift that no short bench can foresee.

    make bench-drift   # or: python benchmarks/drift.py [SPEC] [--seconds 60] [--processes 6] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def series(
    spec_path: str, seconds: float, window: float, threads: int | None, warmup_steps: int = 20
) -> tuple[list[float], list[float]]:
    """Mean step seconds of each `window` of one process's `seconds` of training: by the wall
    clock, and by the CPU time the process used (all its threads) divided by its torch threads."""
    import torch

    from planner.workload.spec import load_spec
    from runner.bench.workloads import build

    if threads:
        torch.set_num_threads(threads)
    workload = build(load_spec(spec_path).to_job(), torch.device("cpu"))
    for _ in range(warmup_steps):
        workload.step()
    width = torch.get_num_threads()
    means: list[float] = []
    cpu_means: list[float] = []
    n = 0
    start = last = time.perf_counter()
    last_cpu = time.process_time()
    while time.perf_counter() - start < seconds:
        workload.step()
        n += 1
        now = time.perf_counter()
        if now - last >= window:
            cpu = time.process_time()
            means.append((now - last) / n)
            cpu_means.append((cpu - last_cpu) / n / width)
            n, last, last_cpu = 0, now, cpu
    return means, cpu_means


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
        "--pin",
        type=int,
        metavar="CPU",
        help="pin every process to this one CPU (os.sched_setaffinity; use with --threads 1)",
    )
    ap.add_argument(
        "--one", action="store_true", help=argparse.SUPPRESS
    )  # a fresh process prints its means: wall and CPU time
    args = ap.parse_args()
    if args.pin is not None:
        if not hasattr(os, "sched_setaffinity"):
            ap.error("--pin needs os.sched_setaffinity (Linux)")
        os.sched_setaffinity(0, {args.pin})
    if args.one:
        wall, cpu = series(args.spec, args.process_seconds, args.process_seconds / 4, args.threads)
        print(statistics.mean(wall), statistics.mean(cpu))
        return 0

    wall, cpu = series(args.spec, args.seconds, args.window, args.threads)
    print(f"one process, {args.seconds:g} s in {args.window:g} s windows (ms per step):")
    _both(wall, cpu)
    fresh: list[tuple[float, float]] = []
    for _ in range(args.processes):
        cmd = [sys.executable, __file__, args.spec, "--one"]
        cmd += ["--process-seconds", str(args.process_seconds)]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        if args.pin is not None:
            cmd += ["--pin", str(args.pin)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
        w, c = out.split()
        fresh.append((float(w), float(c)))
    print(f"{args.processes} fresh processes, {args.process_seconds:g} s each (ms per step):")
    _both([w for w, _ in fresh], [c for _, c in fresh])
    return 0


def _both(wall: list[float], cpu: list[float]) -> None:
    """The wall clock's means and the CPU time's, each with its spread."""
    for name, values in (("wall", wall), ("CPU ", cpu)):
        print(f"  {name}  " + " ".join(f"{m * 1e3:.3f}" for m in values))
        print(f"        {spread(values)}")


if __name__ == "__main__":
    sys.exit(main())
