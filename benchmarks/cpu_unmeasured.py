"""Fit (and check) the CPU model used when nothing is measured here (`planner estimate --predict-only`).

For each example workload, measure its step on this machine with 1 and 2 threads, describe its work
(training FLOPs per step, kernels per step), and compare with `predict_cpu_unmeasured` on this
machine's processor facts (/proc/cpuinfo). Prints the constants that fit best (grid search on the
median absolute log error) next to the shipped ones, and each workload's error with both.

    make bench-cpu            # or: python benchmarks/cpu_unmeasured.py [--seconds S]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.core.predict import kernels_per_step, predict_cpu_unmeasured  # noqa: E402
from planner.core.predict.cpu import (  # noqa: E402
    UNMEASURED_DISPATCH_SECONDS,
    UNMEASURED_EFFICIENCY,
    UNMEASURED_MEMORY_GBPS_PER_CORE,
)
from planner.core.predict.gpu import step_bytes  # noqa: E402
from planner.service import BenchOptions, PlannerService, SpecWorkload  # noqa: E402
from planner.workload.spec import load_spec  # noqa: E402
from pricing.catalog import local_cpu_facts  # noqa: E402

EXAMPLES = [
    "surface-mlp",
    "small-cnn",
    "lstm-classifier",
    "tiny-transformer",
    "custom-policy",
    "big-convnet",
]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()
    service, here = PlannerService(), local_cpu_facts()
    if here is None:
        print("this machine's processor facts cannot be read (/proc/cpuinfo): nothing to fit")
        return 1
    rows = []
    for name in EXAMPLES:
        spec = load_spec(ROOT / "examples" / f"{name}.yaml")
        fp = service.workloads.footprint(spec)
        flops = fp.train_flops_per_sample * spec.batch_size
        kernels = kernels_per_step(list(fp.layers), spec.train.optimizer, spec.train.precision)
        moved = step_bytes(
            list(fp.layers), spec.batch_size, spec.train.precision, spec.train.optimizer
        )
        for threads in (1, 2):
            r = service.bench(
                SpecWorkload(spec),
                BenchOptions(device="cpu", seconds=args.seconds, threads=threads),
            )
            rows.append(
                (name, threads, flops, kernels, moved, spec.train.precision, r.step_seconds)
            )
            print(
                f"measured {name:18s} {threads} thread(s): {r.step_seconds * 1e3:9.3f} ms  "
                f"({flops / 1e9:.2f} GFLOP, {kernels} kernels)",
                flush=True,
            )

    def error(eff: float, dispatch: float, bandwidth: float) -> list[float]:
        return [
            math.log(
                predict_cpu_unmeasured(
                    f, k, t, here, p, eff, dispatch, moved, bandwidth
                ).step_seconds
                / m
            )
            for _n, t, f, k, moved, p, m in rows
        ]

    def score(params: tuple[float, float, float]) -> float:
        errs = error(*params)
        return statistics.median(abs(v) for v in errs) + 0.1 * max(abs(v) for v in errs)

    grid = [
        (e, d, b)
        for e in [x / 100 for x in range(4, 101, 4)]
        for d in [x * 1e-6 for x in range(4, 101, 4)]
        for b in (2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0)
    ]
    best = min(grid, key=score)
    print(f"\nthis machine: {here.name}, {here.clock_ghz} GHz, {here.vector_bits}-bit vectors")
    print(
        "| workload | threads | measured | shipped constants | best fit |\n|---|---:|---:|---:|---:|"
    )
    shipped_params = (
        UNMEASURED_EFFICIENCY,
        UNMEASURED_DISPATCH_SECONDS,
        UNMEASURED_MEMORY_GBPS_PER_CORE,
    )
    shipped, fitted = error(*shipped_params), error(*best)
    for (name, threads, *_rest, measured), a, b in zip(rows, shipped, fitted):
        print(
            f"| {name} | {threads} | {measured * 1e3:.3f} ms | x{math.exp(a):.2f} | x{math.exp(b):.2f} |"
        )
    for label, errs, (eff, dispatch, bandwidth) in (
        ("shipped", shipped, shipped_params),
        ("best fit", fitted, best),
    ):
        factors = [math.exp(abs(v)) for v in errs]
        print(
            f"{label}: efficiency {eff:.2f}, dispatch {dispatch * 1e6:.0f} us, {bandwidth:g} GB/s per core -> median factor off "
            f"{statistics.median(factors):.2f}, worst {max(factors):.2f}, within +-60%: "
            f"{sum(0.4 <= math.exp(v) <= 1.6 for v in errs)}/{len(errs)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
