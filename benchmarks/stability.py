"""Is the answer the same on every run, on a busy machine? (Issue 40's acceptance.)

The same `planner estimate SPEC --json` (make run's command), --runs times back to back, first with nothing else
running, then with a CPU hog (a busy Python loop, one core) beside it: each run's headline (what to do: the target
and its device), verdict, this machine's measured step and its training time's interval. Target: one headline over
every run of both phases. Exit 1 when the headlines differ.

    make bench-stability   # or: python benchmarks/stability.py [SPEC] [--runs 5] [--seconds 5] [--no-quiet]

Check `uptime` first: the quiet phase is only as quiet as the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOG = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


def estimate(spec: str, seconds: float) -> dict:
    """One `planner estimate --json` run: its headline and this machine's row."""
    start = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "planner.cli",
            "estimate",
            spec,
            "--region",
            "us-east-1",
            "--seconds",
            str(seconds),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    doc = json.loads(out)
    rec = doc["recommendation"]
    local = next((o for o in doc["options"] if o["target"] == "local"), {})
    return {
        "headline": f"{rec['target']} ({rec.get('device')})",
        "verdict": rec["verdict"],
        "step_ms": (local.get("step_seconds") or 0) * 1e3,
        "train_s": local.get("train_seconds"),
        "low_s": local.get("train_seconds_low"),
        "high_s": local.get("train_seconds_high"),
        "answer_seconds": time.perf_counter() - start,
    }


def phase(name: str, spec: str, runs: int, seconds: float) -> list[dict]:
    rows = []
    for i in range(runs):
        row = {"phase": name, "run": i + 1, **estimate(spec, seconds)}
        rows.append(row)
        print(
            f"{name:>5} {i + 1}: {row['headline']:<28} {row['verdict']:<10} step {row['step_ms']:7.2f} ms  "
            f"here {row['train_s']:.1f} s ({row['low_s']:.1f}-{row['high_s']:.1f})  answered in "
            f"{row['answer_seconds']:.1f} s",
            flush=True,
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("spec", nargs="?", default=str(ROOT / "examples/surface-mlp.yaml"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--seconds", type=float, default=5.0, help="each estimate's bench budget (make run's: 5)"
    )
    parser.add_argument("--no-quiet", action="store_true", help="the busy phase alone")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)", flush=True)
    rows = [] if args.no_quiet else phase("quiet", args.spec, args.runs, args.seconds)
    hog = subprocess.Popen(
        [sys.executable, "-c", HOG.format(seconds=args.runs * (args.seconds + 30) + 60)]
    )
    try:
        time.sleep(1.0)
        rows += phase("busy", args.spec, args.runs, args.seconds)
    finally:
        hog.kill()
    headlines = {r["headline"] for r in rows}
    for name in ("quiet", "busy"):
        steps = [r["step_ms"] for r in rows if r["phase"] == name]
        if steps:
            print(
                f"{name}: step {statistics.median(steps):.2f} ms median, {min(steps):.2f}-{max(steps):.2f}"
            )
    same = len(headlines) == 1
    print(
        f"{len(rows)} runs: {'one headline' if same else f'{len(headlines)} headlines'}: {', '.join(sorted(headlines))}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
