"""How does the data-parallel model (planner/core/predict/fabric.py, parallel.py) scale the examples, and
how does it hold up where it can be measured?

1. Predicted scaling on every multi-GPU instance of the catalog, for the examples' MLP and ResNet-50:
   the step of the global batch at 1, 2, 4, 8 GPUs, the speedup over one GPU, the scaling efficiency,
   and the gradient all-reduce (all of it, and the part not hidden behind backward).
2. The same GPUs with only the fabric changed (NVSwitch/NVLink vs PCIe Gen4): what the interconnect
   alone does.
3. The gloo check on this CPU, with PyTorch's own engine: a 2-process DistributedDataParallel bench
   (`planner bench SPEC --processes 2`'s code path: torchrun, gloo, 2 x 1 thread) per workload. Its
   probe measures this machine's loopback all-reduce (fitted to latency + 2(N-1)/N x bytes / bandwidth);
   the model then predicts the step from the step without the all-reduce (DDP's no_sync, measured in
   the same run) plus the exposed all-reduce of its buckets plus the wait for the slower rank (from
   the no_sync steps' variation), and the all-reduce share (both); a 1-process bench at the per-rank
   batch gives the prediction a user would make before running data-parallel.
4. `--points CSV`: published multi-GPU training rows (gpu_count > 1, the columns of
   shared/data/gpu-published/points.csv; batch_size per GPU), scored: median factor of predicted vs
   published step of the global batch (target <= 1.30). None ship with the project: published
   multi-GPU throughputs are kept back to score the model, never to fit it.

    make bench-parallel            # or: python benchmarks/parallel.py [--no-gloo] [--seconds S] [--points CSV]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.core.predict.fabric import (  # noqa: E402
    AMPERE_BUS_CAP,
    HOP_LATENCY,
    NVLINK_LINK_BYTES,
    PCIE_X16_BYTES,
    Fabric,
    Interconnect,
    allreduce_seconds,
    fabric_for,
)
from planner.core.predict.parallel import (  # noqa: E402
    overlap,
    pieces_by_flops,
    predict_data_parallel,
    straggler_seconds,
)
from planner.core.remarks import NoBandwidth  # noqa: E402
from planner.report.remarks import word  # noqa: E402
from planner.service import BenchOptions, PlannerService, SpecWorkload  # noqa: E402
from planner.workload.footprint import merge_identical, sample_bytes  # noqa: E402
from planner.workload.spec import load_spec, parse_spec  # noqa: E402
from pricing.catalog import gpu_specs_by_name, instances, interconnects_by_type, load_catalog  # noqa: E402

MEDIAN_TARGET = 1.30
SCALING_EXAMPLES = ("surface-mlp", "resnet50-imagenet")
WIDE_MLP = {
    "name": "wide-mlp",
    "model": {"kind": "mlp", "input_size": 256, "hidden": [1024, 1024], "outputs": 10},
    "data": {"samples": 4096, "task": "classification"},
    "train": {"batch_size": 256, "epochs": 1, "optimizer": "adam"},
}
NVLINK_INSTANCE = {
    "V100": "p3.16xlarge",
    "A100": "p4d.24xlarge",
    "H100": "p5.48xlarge",
}  # their HGX/DGX boards
PCIE_GEN = {"volta": 3, "turing": 3, "ampere": 4, "ada": 4, "hopper": 5}


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.3g} ms"


def described(service: PlannerService, spec):
    layers = list(service.workloads.layers(spec))
    host = sample_bytes(spec) if spec.data.location == "host" else 0.0
    return layers, merge_identical(layers), host


# ------------------------------------------------------------------------------ 1 and 2: predictions


def scaling_tables(service: PlannerService) -> None:
    gpus, links = gpu_specs_by_name(), interconnects_by_type()
    multi = {
        f.instance_type: f
        for f in instances(load_catalog().frame, region="us-east-1", gpu=True)
        if f.gpu_count > 1
    }
    for name in SCALING_EXAMPLES:
        spec = load_spec(ROOT / "examples" / f"{name}.yaml")
        layers, merged, host = described(service, spec)
        print(
            f"\n{name}: global batch {spec.batch_size:,}, {spec.train.precision}, "
            f"{sum(x.params for x in layers):,} parameters\n"
        )
        print(
            "| instance | interconnect | GPUs | step | speedup | scaling | all-reduce | exposed |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for itype, facts in sorted(multi.items(), key=lambda kv: kv[1].ondemand_usd_per_hour or 0):
            gpu, link = gpus[facts.gpu_name], links[itype]
            for n in (1, 2, 4, 8):
                if n > facts.gpu_count or spec.batch_size % n:
                    continue
                fabric = fabric_for(link, gpu.arch, n) if n > 1 else None
                p = predict_data_parallel(
                    merged,
                    gpu,
                    spec.batch_size,
                    n,
                    fabric,
                    spec.train.precision,
                    spec.train.optimizer,
                    host,
                    timeline_layers=layers,
                )
                print(
                    f"| {itype} | {link.kind} | {n} | {ms(p.step_seconds)} | {p.speedup:.2f}x | "
                    f"{p.scaling_efficiency:.0%} | {ms(p.allreduce_seconds)} | {ms(p.exposed_seconds)} |"
                )
    fabric_swap(service, gpus)


def fabric_swap(service: PlannerService, gpus: dict) -> None:
    """The same GPUs on either fabric: a convolutional net (few parameters per FLOP) and BERT-large."""
    print("\nthe same GPUs on either fabric (scaling efficiency; exposed all-reduce per step):\n")
    print("| example | GPU | GPUs | NVSwitch / NVLink | PCIe Gen4 x16 |")
    print("|---|---|---:|---:|---:|")
    switch = {
        "V100": 6 * NVLINK_LINK_BYTES["volta"],
        "A100": AMPERE_BUS_CAP,
        "H100": 18 * NVLINK_LINK_BYTES["hopper"],
    }
    for example in ("resnet50-imagenet", "bert-large-squad"):
        spec = load_spec(ROOT / "examples" / f"{example}.yaml")
        layers, merged, host = described(service, spec)
        for name, bus in switch.items():
            for n in (4, 8):
                cells = []
                for kind, b in (("nvswitch", bus), ("pcie", PCIE_X16_BYTES[4])):
                    p = predict_data_parallel(
                        merged,
                        gpus[name],
                        spec.batch_size,
                        n,
                        Fabric(n, b, kind, HOP_LATENCY[kind]),
                        spec.train.precision,
                        spec.train.optimizer,
                        host,
                        timeline_layers=layers,
                    )
                    cells.append(f"{p.scaling_efficiency:.0%}; {ms(p.exposed_seconds)}")
                print(f"| {example} | {name} | {n} | {cells[0]} | {cells[1]} |")


# ------------------------------------------------------------------------------ 3: the gloo check


def gloo_check(service: PlannerService, seconds: float, repeats: int = 1) -> None:
    specs = [
        load_spec(ROOT / "examples" / "surface-mlp.yaml"),
        parse_spec(WIDE_MLP),
        load_spec(ROOT / "examples" / "small-cnn.yaml"),
    ]
    print(
        "\ngloo check on this CPU: 2 processes x 1 thread (DistributedDataParallel, torchrun), the loopback fabric "
        "measured by each run's probe\n"
    )
    print(
        "| workload | gradients | fabric: latency, bandwidth | all-reduce alone: measured / predicted | "
        "step (sync blocks): measured / predicted | all-reduce share: measured / predicted | "
        "bench mean / predicted from a 1-process bench |"
    )
    print("|---|---:|---|---:|---:|---:|---:|")
    errors, share_errors = [], []
    for spec in [spec for _ in range(repeats) for spec in specs]:
        ddp = service.bench(
            SpecWorkload(spec), BenchOptions(device="cpu", seconds=seconds, processes=2)
        )
        half = spec.model_copy(
            update={"train": spec.train.model_copy(update={"batch_size": spec.batch_size // 2})}
        )
        alone = service.bench(
            SpecWorkload(half), BenchOptions(device="cpu", seconds=seconds, threads=1)
        )
        layers = list(service.workloads.layers(spec))
        fabric = Fabric.measured(
            2, ddp.fabric["bus_bytes_per_second"], ddp.fabric["latency_seconds"]
        )
        local, cv = ddp.step_seconds_no_sync, ddp.step_cv_no_sync or 0.0
        synced = local / (
            1 - ddp.allreduce_share
        )  # the sync blocks' median, measured alongside the no_sync ones
        exposed = overlap(
            pieces_by_flops(layers, local), fabric
        ).exposed_seconds + straggler_seconds(local, cv, 2)
        predicted, share = local + exposed, exposed / (local + exposed)
        before = (
            alone.step_seconds
            + overlap(pieces_by_flops(layers, alone.step_seconds), fabric).exposed_seconds
            + straggler_seconds(alone.step_seconds, alone.coefficient_of_variation or 0.0, 2)
        )
        flat = allreduce_seconds(ddp.gradient_bytes, fabric)
        errors.append(abs(predicted / synced - 1))
        share_errors.append(abs(share - ddp.allreduce_share))
        print(
            f"| {spec.name} | {ddp.gradient_bytes:,} B | {ms(fabric.base_latency)}, "
            f"{fabric.bus_bytes_per_second / 1e9:.2f} GB/s | {ms(ddp.allreduce_seconds)} / {ms(flat)} | "
            f"{ms(synced)} / {ms(predicted)} ({predicted / synced - 1:+.0%}) | "
            f"{ddp.allreduce_share:.0%} / {share:.0%} | {ms(ddp.step_seconds)} / {ms(before)} "
            f"({before / ddp.step_seconds - 1:+.0%}) |"
        )
    print(
        f"\nstep predicted from the run's own no_sync step: median error {statistics.median(errors):.0%}, "
        f"worst {max(errors):.0%}; all-reduce share: median error {statistics.median(share_errors) * 100:.0f} "
        f"points, worst {max(share_errors) * 100:.0f}; {len(errors)} runs; machine load {load_text()}"
    )


def load_text() -> str:
    try:
        with open("/proc/loadavg") as f:
            return f"{f.read().split()[0]} (1-minute load average on {os.cpu_count()} CPUs)"
    except OSError:
        return "unknown"


# ------------------------------------------------------------------------------ 4: published multi-GPU rows


def point_fabric(point: dict, gpu, links: dict[str, Interconnect], n: int) -> Fabric | str:
    """The fabric a published system stands for: an `instance_type` column, else a PCIe system by its
    name, else the NVLink/NVSwitch board of the catalog instance with that GPU."""
    itype = point.get("instance_type") or ""
    if itype in links:
        return fabric_for(links[itype], gpu.arch, n)
    if "pcie" in (point.get("interconnect") or point.get("gpu_published") or "").lower():
        return fabric_for(
            Interconnect("pcie", n, "pcie", {}, PCIE_GEN.get(gpu.arch, 4), None, None), gpu.arch, n
        )
    itype = NVLINK_INSTANCE.get(point["gpu_catalog"], "")
    if itype not in links:
        return f"no NVLink system known for {point['gpu_catalog']}"
    return fabric_for(links[itype], gpu.arch, n)


def published_step(point: dict) -> float:
    """Seconds per step of the global batch: batch x GPUs / throughput, or the row's step_seconds."""
    if "/s" in (point.get("metric") or "") and point.get("value"):
        return int(point["batch_size"]) * int(point["gpu_count"]) / float(point["value"])
    return float(point["step_seconds"])


def score_points(path: Path) -> int:
    from benchmarks.published import describe_models, load_points

    points = [p for p in load_points(path) if int(p.get("gpu_count") or 1) > 1]
    if not points:
        print(f"\nno multi-GPU rows in {path}")
        return 0
    models = describe_models(points)
    gpus, links = gpu_specs_by_name(), interconnects_by_type()
    print(f"\n{len(points)} published multi-GPU rows ({path})\n")
    print(
        "| point | GPU | GPUs | fabric | published | predicted | factor | inside |\n|---|---|---:|---|---:|---:|---:|---|"
    )
    factors = []
    for p in points:
        spec, layers = models[p["model"]]
        gpu, n, per = gpus[p["gpu_catalog"]], int(p["gpu_count"]), int(p["batch_size"])
        fabric = point_fabric(p, gpu, links, n)
        if isinstance(fabric, NoBandwidth):
            print(f"| {p['id']} | {p['gpu_catalog']} | {n} | {word(fabric)} | | | | |")
            continue
        host = sample_bytes(spec) if p["host_data"] else 0.0
        pred = predict_data_parallel(
            layers,
            gpu,
            per * n,
            n,
            fabric,
            p["spec_precision"],
            p["optimizer_kind"],
            host,
            accumulation=p["accumulation"],
        )
        measured = published_step(p)
        f = max(pred.step_seconds / measured, measured / pred.step_seconds)
        factors.append(f)
        print(
            f"| {p['id']} | {p['gpu_catalog']} | {n} | {fabric.describe()} | {ms(measured)} | {ms(pred.step_seconds)} "
            f"| {f:.2f} | {'yes' if pred.low <= measured <= pred.high else 'NO'} |"
        )
    if not factors:
        return 1
    median = statistics.median(factors)
    print(
        f"\nmulti-GPU rows: median factor {median:.2f}, worst {max(factors):.2f} (target: median <= {MEDIAN_TARGET})"
    )
    return 0 if median <= MEDIAN_TARGET and math.isfinite(median) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--no-gloo", action="store_true", help="skip the gloo check (the only part that measures)"
    )
    parser.add_argument(
        "--no-scaling", action="store_true", help="skip the predicted scaling tables"
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=8.0,
        help="bench budget per run of the gloo check (default 8)",
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="run the gloo check this many times (default 1)"
    )
    parser.add_argument("--points", type=Path, help="published multi-GPU rows to score (CSV)")
    args = parser.parse_args(argv)
    service = PlannerService()
    if not args.no_scaling:
        scaling_tables(service)
    if not args.no_gloo:
        gloo_check(service, args.seconds, args.repeats)
    return score_points(args.points) if args.points else 0


if __name__ == "__main__":
    raise SystemExit(main())
