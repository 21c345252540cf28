"""How well does a short bench predict a full training run on this machine?

For each workload: a short bench (default 10 s) predicts the run; the number of epochs is chosen
from a first quick bench so the full run takes about TARGET seconds (30-120 s); then the run is
really trained in a fresh process (`planner validate`'s code path) and timed. Prints per-workload
error and the median absolute error. Target: median <= 5%, worst <= 10%.

    make bench-accuracy            # or: python benchmarks/accuracy.py [--target-seconds 60] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.service import BenchOptions, PlannerService, validate  # noqa: E402
from planner.spec import load_spec, parse_spec  # noqa: E402

WORKLOADS = {
    "surface-mlp (full batch, data on device)": load_spec(ROOT / "examples/surface-mlp.yaml").model_dump(mode="json"),
    "small-cnn (DataLoader-style host copies)": load_spec(ROOT / "examples/small-cnn.yaml").model_dump(mode="json"),
    "lstm (2 layers, 50 steps)": {
        "name": "acc-lstm", "model": {"kind": "rnn", "cell": "lstm", "input_size": 32, "hidden_size": 64, "num_layers": 2,
                                      "seq_len": 50, "outputs": 5},
        "data": {"samples": 4096, "task": "classification"}, "train": {"batch_size": 128, "epochs": 1}},
    "transformer (2 layers, d 128, seq 64)": {
        "name": "acc-transformer", "model": {"kind": "transformer", "vocab_size": 256, "d_model": 128, "heads": 4, "layers": 2,
                                             "seq_len": 64},
        "data": {"samples": 2048}, "train": {"batch_size": 32, "epochs": 1, "optimizer": "adamw"}},
    "custom policy net (minibatch 64)": None,  # loaded from the example, it carries a path
}


def sized(step_seconds: float, steps_per_epoch: int, target: float) -> int:
    return max(1, round((target - 4.0) / (step_seconds * steps_per_epoch)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target-seconds", type=float, default=60.0)
    ap.add_argument("--bench-seconds", type=float, default=10.0)
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args()
    service = PlannerService()
    rows = []
    for title, data in WORKLOADS.items():
        spec = load_spec(ROOT / "examples/custom-policy.yaml") if data is None else parse_spec(data)
        quick = service.bench(spec, BenchOptions(device="cpu", seconds=3))
        epochs = sized(quick.step_seconds, spec.steps_per_epoch, args.target_seconds)
        r = validate(service, spec, epochs, BenchOptions(device="cpu", seconds=args.bench_seconds))
        rows.append({"workload": title, **r})
        print(f"{title:45s} epochs {epochs:6d}  predicted {r['predicted_seconds']:7.1f} s  actual {r['actual_seconds']:7.1f} s  "
              f"error {r['error_percent']:+6.1f}%  {'inside' if r['inside_interval'] else 'OUTSIDE'} interval", flush=True)
    errors = [abs(r["error_percent"]) for r in rows]
    print(f"\nmedian absolute error {statistics.median(errors):.1f}%, worst {max(errors):.1f}% "
          f"({sum(r['inside_interval'] for r in rows)}/{len(rows)} actual times inside the predicted interval)")
    print("\n| workload | steps | predicted | actual | error | in interval |\n|---|---:|---:|---:|---:|:-:|")
    for r in rows:
        print(f"| {r['workload']} | {r['steps']:,} | {r['predicted_seconds']:.1f} s | {r['actual_seconds']:.1f} s | "
              f"{r['error_percent']:+.1f}% | {'yes' if r['inside_interval'] else 'no'} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if statistics.median(errors) <= 5 and max(errors) <= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
