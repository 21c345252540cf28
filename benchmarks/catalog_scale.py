"""Does `planner estimate` stay within its time budget on a catalog of every AWS instance type?

SkyPilot's AWS catalog holds some 800 instance types; a refreshed catalog brings them all, in ~30
regions. This writes a synthetic catalog of that size in SkyPilot's format (one row per type and
zone; made-up families and prices around the bundled snapshot's real GPU types, a few accelerators
the planner has no spec for), reads it with `planner prices --refresh` (PLANNER_CATALOG_URL: the
file), then times `planner estimate` in fresh processes on it and on the bundled snapshot alone.

The budget (issue 13): an answer within 30 s of the bench budget (--seconds). `--predict-only`
rows measure nothing here, so their wall time is the planner's own work on the catalog.

    make bench-catalog        # or: python benchmarks/catalog_scale.py [--types 800] [--regions 30] [--repeats 3]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "examples" / "surface-mlp.yaml"
HEADER = [
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "SpotPrice",
    "Region",
    "AvailabilityZone",
    "Arch",
]
EXTRA_REGIONS = [
    "ap-south-2",
    "ap-southeast-4",
    "ap-southeast-5",
    "eu-central-2",
    "il-central-1",
    "ca-west-1",
    "mx-central-1",
]
SIZES = [
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("4xlarge", 16),
    ("8xlarge", 32),
    ("12xlarge", 48),
    ("16xlarge", 64),
    ("24xlarge", 96),
    ("32xlarge", 128),
    ("48xlarge", 192),
    ("metal", 192),
]
GIB_PER_VCPU = {"c": 2, "m": 4, "r": 8, "x": 16, "z": 8, "i": 8, "t": 2}
ACCELERATORS = [
    ("inf1", "Inferentia", [1, 1, 4, 16]),
    ("inf2", "Inferentia2", [1, 1, 6, 12]),
    ("trn1", "Trainium", [1, 16]),
    ("dl1", "Gaudi HL-205", [8]),
    ("g4ad", "Radeon Pro V520", [1, 1, 1, 2, 4]),
    ("g5g", "T4g", [1, 1, 1, 1, 2, 2]),
]


def zone_ids(region: str, n: int) -> list[str]:
    """Zone ids of AWS's form (use1-az1), unique per region: the region's letters and number (useast1-az1)."""
    short = region.replace("-", "")
    return [f"{short}-az{k}" for k in range(1, n + 1)]


def gpu_types() -> list[dict]:
    """The bundled snapshot's GPU types with their facts (one row per type)."""
    with open(ROOT / "pricing" / "data" / "aws_prices.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["gpu_count"]]
    by_type = {}
    for r in rows:
        by_type.setdefault(r["instance_type"], r)
    return list(by_type.values())


def synthetic_types(total: int) -> list[dict]:
    """`total` instance types: the real GPU types, some accelerators without a spec, the rest CPU families."""
    types = []
    for r in gpu_types():
        mib = round(float(r["gpu_memory_gib"]) * 1024)
        info = (
            f"{{'Gpus': [{{'Name': '{r['gpu_name']}', 'Manufacturer': 'NVIDIA', 'Count': {r['gpu_count']}, "
            f"'MemoryInfo': {{'SizeInMiB': {mib}}}}}], 'TotalGpuMemoryInMiB': {mib * int(r['gpu_count'])}}}"
        )
        types.append(
            {
                "type": r["instance_type"],
                "acc": r["gpu_name"],
                "count": r["gpu_count"],
                "vcpus": r["vcpus"],
                "mem": r["memory_gib"],
                "info": info,
                "price": float(r["ondemand_usd_per_hour"] or 40.0),
                "arch": "x86_64",
            }
        )
    for family, name, counts in ACCELERATORS:
        for (size, vcpus), count in zip(SIZES, counts):
            types.append(
                {
                    "type": f"{family}.{size}",
                    "acc": name,
                    "count": str(count),
                    "vcpus": str(vcpus),
                    "mem": str(vcpus * 4),
                    "info": "",
                    "price": 0.4 * vcpus,
                    "arch": "arm64" if family == "g5g" else "x86_64",
                }
            )
    families = [
        f"{letter}{gen}{suffix}"
        for gen in (5, 6, 7, 8)
        for suffix in ("", "a", "i", "g", "n", "d", "gd", "in", "id", "dn")
        for letter in "cmrxzit"
    ]
    for family in families:
        for size, vcpus in SIZES:
            if len(types) >= total:
                return types
            arm = "g" in family[2:]
            types.append(
                {
                    "type": f"{family}.{size}",
                    "acc": "",
                    "count": "",
                    "vcpus": str(vcpus),
                    "mem": str(vcpus * GIB_PER_VCPU[family[0]]),
                    "info": "",
                    "price": vcpus * (0.036 if family[0] == "c" else 0.05),
                    "arch": "arm64" if arm else "x86_64",
                }
            )
    return types


def write_catalog(
    path: Path,
    n_types: int,
    n_regions: int,
    first: str = "us-east-1",
    zones: int = 3,
    seed: int = 1,
) -> tuple[int, int]:
    """The synthetic file, every type in every region (`first` among them); (types, zone rows)."""
    rng = random.Random(seed)
    with open(ROOT / "pricing" / "data" / "aws_prices.csv", newline="") as f:
        real = sorted({r["region"] for r in csv.DictReader(f)})
    regions = ([first] + [r for r in real + EXTRA_REGIONS if r != first])[:n_regions]
    types = synthetic_types(n_types)
    rows = 0
    with path.open("w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(HEADER)
        for t in types:
            for i, region in enumerate(regions):
                price = round(t["price"] * (1 + 0.02 * (i % 7)), 4)
                for zone in zone_ids(region, zones):
                    spot = f"{price * rng.uniform(0.25, 0.6):.6f}" if rng.random() > 0.05 else ""
                    out.writerow(
                        [
                            t["type"],
                            t["acc"],
                            t["count"],
                            t["vcpus"],
                            t["mem"],
                            t["info"],
                            price,
                            spot,
                            region,
                            zone,
                            t["arch"],
                        ]
                    )
                    rows += 1
    return len(types), rows


def timed(args: list[str], env: dict) -> tuple[float, subprocess.CompletedProcess]:
    """One `planner ARGS` in a fresh process, its output captured as a 120-column terminal's would be."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "planner.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", **env},
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(
            f"planner {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}"
        )
    return wall, proc


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--types", type=int, default=800)
    parser.add_argument("--regions", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="estimate's bench budget (its default: 10)"
    )
    parser.add_argument("--region", default="us-east-1")
    args = parser.parse_args()
    print(
        f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        source, cache, empty = Path(tmp) / "vms.csv", Path(tmp) / "cache", Path(tmp) / "empty"
        start = time.perf_counter()
        n_types, n_rows = write_catalog(source, args.types, args.regions, args.region)
        print(
            f"synthetic catalog: {n_types} instance types x {args.regions} regions, {n_rows:,} zone rows, "
            f"{source.stat().st_size / 2**20:.1f} MiB (written in {time.perf_counter() - start:.1f} s)"
        )
        wall, proc = timed(
            ["prices", "--refresh", "--region", args.region, "--json"],
            {"PLANNER_CATALOG_URL": str(source), "PLANNER_CACHE_DIR": str(cache)},
        )
        print(
            f"planner prices --refresh: {wall:.1f} s; {(cache / 'aws_prices.csv').stat().st_size / 2**20:.1f} MiB cached\n"
        )
        print(
            f"`planner estimate {SPEC.relative_to(ROOT)} --region {args.region}`, the table printed for 120 columns:\n"
        )
        print(
            "| catalog | instances in the region | options in the plan | flags | runs | wall median | min-max |"
        )
        print("|---|---:|---:|---|---:|---:|---:|")
        results = {}
        for label, cache_dir in (
            ("bundled snapshot", empty),
            (f"synthetic {n_types} x {args.regions}", cache),
        ):
            env = {"PLANNER_CACHE_DIR": str(cache_dir), "PLANNER_CATALOG_URL": str(source)}
            _, proc = timed(
                [
                    "estimate",
                    str(SPEC.relative_to(ROOT)),
                    "--region",
                    args.region,
                    "--predict-only",
                    "--json",
                ],
                env,
            )
            options = len(json.loads(proc.stdout)["options"])
            _, proc = timed(["prices", "--region", args.region, "--json"], env)
            instances = len(json.loads(proc.stdout)["instances"])
            for extra in (["--predict-only"], ["--seconds", f"{args.seconds:g}"]):
                walls = [
                    timed(
                        ["estimate", str(SPEC.relative_to(ROOT)), "--region", args.region, *extra],
                        env,
                    )[0]
                    for _ in range(args.repeats)
                ]
                results[(label, " ".join(extra))] = walls
                print(
                    f"| {label} | {instances:,} | {options:,} | `{' '.join(extra)}` | {len(walls)} | "
                    f"{statistics.median(walls):.1f} s | {min(walls):.1f}-{max(walls):.1f} s |",
                    flush=True,
                )
    budget = args.seconds + 30
    worst = max(max(w) for (label, command), w in results.items() if "--seconds" in command)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"budget: an answer within {budget:.0f} s (the bench's {args.seconds:g} s + 30 s): "
        + ("met in every run" if worst <= budget else f"missed (worst {worst:.1f} s)")
    )
    return 0 if worst <= budget else 1


if __name__ == "__main__":
    sys.exit(main())
