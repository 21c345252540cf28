"""How well does a short bench predict a full training run on this machine?

For each workload: the number of epochs is chosen from a first quick bench so the full run takes
about TARGET seconds (30-120 s); a short bench (default 10 s) predicts the run; the run is really
trained in a fresh process (`planner validate`'s code path) and timed; then a second bench of the
same length (`planner validate`'s recheck) shows how far the machine's own speed moved around the
run. Every trial counts: nothing is retried or dropped. `--repeats N` runs the whole suite N times.

    make bench-accuracy   # or: python benchmarks/accuracy.py [--target-seconds 60] [--repeats 1] [--json OUT]

Target: median absolute error <= 5% and worst <= 10% over all trials; exit 0 when met, else 1.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.service import BenchOptions, PlannerService  # noqa: E402
from planner.workload.spec import load_spec, parse_spec  # noqa: E402

WORKLOADS = {
    "surface-mlp (full batch, data on device)": load_spec(
        ROOT / "examples/surface-mlp.yaml"
    ).model_dump(mode="json"),
    "small-cnn (DataLoader-style host copies)": load_spec(
        ROOT / "examples/small-cnn.yaml"
    ).model_dump(mode="json"),
    "lstm (2 layers, 50 steps)": {
        "name": "acc-lstm",
        "model": {
            "kind": "rnn",
            "cell": "lstm",
            "input_size": 32,
            "hidden_size": 64,
            "num_layers": 2,
            "seq_len": 50,
            "outputs": 5,
        },
        "data": {"samples": 4096, "task": "classification"},
        "train": {"batch_size": 128, "epochs": 1},
    },
    "transformer (2 layers, d 128, seq 64)": {
        "name": "acc-transformer",
        "model": {
            "kind": "transformer",
            "vocab_size": 256,
            "d_model": 128,
            "heads": 4,
            "layers": 2,
            "seq_len": 64,
        },
        "data": {"samples": 2048},
        "train": {"batch_size": 32, "epochs": 1, "optimizer": "adamw"},
    },
    "custom policy net (minibatch 64)": None,  # loaded from the example, it carries a path
}


def sized(step_seconds: float, steps_per_epoch: int, target: float) -> int:
    return max(1, round((target - 4.0) / (step_seconds * steps_per_epoch)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target-seconds", type=float, default=60.0)
    ap.add_argument("--bench-seconds", type=float, default=10.0)
    ap.add_argument(
        "--repeats", type=int, default=1, help="run the whole suite this many times (default 1)"
    )
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args()
    service = PlannerService()
    rows = []
    for repeat in range(1, args.repeats + 1):
        for title, data in WORKLOADS.items():
            spec = (
                load_spec(ROOT / "examples/custom-policy.yaml")
                if data is None
                else parse_spec(data)
            )
            quick = service.bench(spec, BenchOptions(device="cpu", seconds=3))
            epochs = sized(quick.step_seconds, spec.steps_per_epoch, args.target_seconds)
            r = {
                "workload": title,
                "repeat": repeat,
                **service.validate(
                    spec,
                    epochs,
                    BenchOptions(device="cpu", seconds=args.bench_seconds),
                    recheck=True,
                ),
            }
            rows.append(r)
            print(
                f"{title:42s} epochs {epochs:6d}  predicted {r['predicted_seconds']:6.1f} s  actual {r['actual_seconds']:6.1f} s  "
                f"error {r['error_percent']:+6.1f}%  {'inside ' if r['inside_interval'] else 'OUTSIDE'} interval  "
                f"machine {r['machine_drift_percent']:+5.1f}%",
                flush=True,
            )
    errors = [abs(r["error_percent"]) for r in rows]
    median, worst = statistics.median(errors), max(errors)
    print(
        f"\nmedian absolute error {median:.1f}%, worst {worst:.1f}% over {len(rows)} trials "
        f"({sum(r['inside_interval'] for r in rows)}/{len(rows)} actual times inside the predicted interval); "
        f"target: median <= 5%, worst <= 10%: {'met' if median <= 5 and worst <= 10 else 'NOT met'}"
    )
    print(
        "\n| workload | steps | predicted | actual | error | in interval | machine: bench after vs before |\n"
        "|---|---:|---:|---:|---:|:-:|---:|"
    )
    for r in rows:
        print(
            f"| {r['workload']} | {r['steps']:,} | {r['predicted_seconds']:.1f} s | {r['actual_seconds']:.1f} s | "
            f"{r['error_percent']:+.1f}% | {'yes' if r['inside_interval'] else 'no'} | {r['machine_drift_percent']:+.1f}% |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if median <= 5 and worst <= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
