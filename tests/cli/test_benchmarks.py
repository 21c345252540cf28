"""The benchmark scripts still run (their figures go in the README; here only that they work)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import EXAMPLES, ROOT


def test_drift_benchmark_prints_both_spreads():
    proc = subprocess.run(
        [
            sys.executable,
            "benchmarks/drift.py",
            str(EXAMPLES / "custom-policy.yaml"),
            "--seconds",
            "1",
            "--window",
            "0.2",
            "--processes",
            "2",
            "--process-seconds",
            "0.3",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("one process, 1 s in 0.2 s windows")
    # each by the wall clock and by CPU time: a line of means and a line of their spread
    assert lines[1].split()[0] == "wall" and len(lines[1].split()) >= 4  # about five window means
    assert lines[3].split()[0] == "CPU" and len(lines[3].split()) == len(lines[1].split())
    assert lines[5].startswith("2 fresh processes")
    assert lines[6].split()[0] == "wall" and len(lines[6].split()) == 3
    assert lines[8].split()[0] == "CPU" and len(lines[8].split()) == 3
    assert all("max/min" in lines[i] for i in (2, 4, 7, 9))
    wall, cpu = (float(v) for v in (lines[6].split()[1], lines[8].split()[1]))
    assert 0 < cpu <= wall * 1.05  # a process's CPU time per thread is at most its wall time


def test_published_benchmark_runs_and_meets_the_calibration_target():
    from benchmarks.published import default_points

    points = default_points()  # shared/ beside the checkout, else the copy in benchmarks/data/
    proc = subprocess.run(
        [sys.executable, "benchmarks/published.py", "--no-cv", "--points", str(points)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "calibration set: median factor" in proc.stdout
    assert proc.stdout.count("| bertL-") == 14 and proc.stdout.count("| rn50-") == 14
    assert proc.stdout.count("| ns-") == 15  # the forward + backward set is scored too
    assert (
        "| T4 | 70 W |" in proc.stdout and "no (widened)" in proc.stdout
    )  # every catalog GPU, backed or not
    # MLPerf's per-GPU throughputs scored as ratios between GPUs, and what is left out said with its reason
    assert (
        "MLPerf ratio scores: median factor" in proc.stdout
        and proc.stdout.count("| resnet50 | NVIDIA") == 4
    )
    assert "left out, bert-large on NVIDIA H100-SXM5-80GB: its runs train in FP8" in proc.stdout


def test_parallel_benchmark_scores_multi_gpu_rows(tmp_path):
    """The scorer of published multi-GPU rows, on a made-up row (a code-path check: the kept-back
    published rows are not in the project; the scaling tables' model is tested in tests/unit)."""
    import csv

    row = {
        "id": "made-up-rn9-8gpu",
        "model": "ResNet-9 CIFAR-10 (DAWNBench)",
        "batch_size": "512",
        "gpu_count": "8",
        "spec_precision": "fp16",
        "gpu_published": "V100 SXM2 (made up)",
        "gpu_catalog": "V100",
        "metric": "images/s",
        "value": "80000",
        "step_seconds": "",
        "optimizer": "SGD momentum",
        "data_loading": "none (synthetic)",
    }
    points = tmp_path / "points.csv"
    with points.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    proc = subprocess.run(
        [
            sys.executable,
            "benchmarks/parallel.py",
            "--no-gloo",
            "--no-scaling",
            "--points",
            str(points),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]  # 1: the made-up row misses the target
    assert (
        "| made-up-rn9-8gpu | V100 | 8 | nvlink" in proc.stdout
        and "multi-GPU rows: median factor" in proc.stdout
    )


def test_catalog_benchmark_refreshes_a_synthetic_catalog_and_times_estimate():
    proc = subprocess.run(
        [
            sys.executable,
            "benchmarks/catalog_scale.py",
            "--types",
            "80",
            "--regions",
            "3",
            "--repeats",
            "1",
            "--seconds",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "synthetic catalog: 80 instance types x 3 regions, 720 zone rows" in proc.stdout
    # us-east-1: the file's 80 types and the snapshot's 20 CPU types the file does not hold
    assert (
        proc.stdout.count("| synthetic 80 x 3 | 100 |") == 2 and "met in every run" in proc.stdout
    )


def test_device_check_dry_run_checks_the_whole_path_on_this_cpu(tmp_path):
    """make bench-device's dry run (benchmarks/device.py): a spec benched and a GPU script run for real and traced on
    the stand-in, then predicted for a GPU by the planner, one CSV; everything the lent GPU would do but the
    measurement on it."""
    import csv
    import json
    import os

    from benchmarks.device import CSV_COLUMNS

    proc = subprocess.run(
        [sys.executable, "benchmarks/device.py", "--dry-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OUT": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    with (tmp_path / "device-measured.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == CSV_COLUMNS
    by_case = {r["case"]: r for r in rows}
    spec, script = by_case["small-cnn fp32"], by_case["gpt tiny"]
    assert (
        spec["kind"] == "spec"
        and float(spec["predicted_ms"]) > 0
        and float(spec["measured_ms"]) > 0
    )
    # the script's GPU row comes from its stand-in trace: the precision the GPU run uses (bf16 autocast)
    assert (
        script["kind"] == "script"
        and script["precision"] == "bf16"
        and float(script["predicted_ms"]) > 0
    )
    assert all(
        r["gpu_catalog"] == "H200" and r["ratio"] == "" for r in rows
    )  # a CPU's step is no GPU's truth
    # the GEMM sweep (issue 38: what a shape term of the model would be fitted to): measured, journaled, reported
    sweep = json.loads((tmp_path / "device-measured.json").read_text())["facts"]["gemm"]
    assert {(r["precision"], r["n"]) for r in sweep} >= {
        ("bf16", 50257 // 16),
        ("fp32", 50304 // 16),
    }
    assert all(r["ms"] > 0 and r["tflops"] > 0 for r in sweep)
    report = (tmp_path / "device-measured.md").read_text()
    assert "GEMMs alone" in report and "| 512 x 3141 x 48 | bf16 |" in report
    # a report merges several measurements of one GPU: a later file's case replaces the earlier one's
    again = subprocess.run(
        [
            sys.executable,
            "benchmarks/device.py",
            "report",
            str(tmp_path / "device-measured.json"),
            str(tmp_path / "device-measured.json"),
            "--csv",
            str(tmp_path / "again.csv"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        again.returncode == 0
        and len((tmp_path / "again.csv").read_text().splitlines()) == len(rows) + 1
    )


def test_device_checks_jobs_are_the_ones_the_planner_makes_today():
    """The GPU half has no planner to make its bench jobs: they travel prepared (benchmarks/data/device-jobs.json),
    and must not drift from what `planner bench --device cuda` would send (rewrite: python benchmarks/device.py jobs)."""
    import json

    from benchmarks.device import DRY_SPECS, JOBS, ON_GPU, spec_jobs

    assert json.loads(JOBS.read_text()) == {
        "dry": spec_jobs(DRY_SPECS),
        "cases": spec_jobs() + spec_jobs(ON_GPU, "device"),
    }
