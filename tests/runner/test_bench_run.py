"""The bench as a process: results, out-of-memory as a result, failures as results (never a crash)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from planner.report.remarks import words
from planner.workload.footprint import footprint
from planner.workload.spec import parse_spec
from runner.bench.result import BenchResult
from runner.bench.run import process_age_seconds, run_job
from tests.conftest import ROOT

# A user model that really runs out of memory: its forward asks the allocator for 1 TiB.
GREEDY_MODEL = """
import torch
from torch import nn

class Greedy(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)

    def forward(self, x):
        waste = torch.empty(2**38, dtype=torch.float32)  # 1 TiB
        return self.linear(x) + waste[:1]

def build():
    return Greedy()
"""


def job_for(spec_dict: dict, seconds: float = 0.5) -> dict:
    spec = parse_spec(spec_dict)
    return {
        "spec": spec.to_job(),
        "device": "cpu",
        "seconds": seconds,
        "memory_estimate_bytes": footprint(spec).total_bytes,
    }


def test_result_carries_the_measurement(tiny_mlp):
    r = run_job(job_for(tiny_mlp))
    assert r.status == "ok", r.message
    assert r.device == "cpu" and r.device_name
    assert r.steps_measured >= 2
    assert r.step_seconds_ci_low <= r.step_seconds <= r.step_seconds_ci_high
    assert r.step_seconds_p10 <= r.step_seconds_median <= r.step_seconds_p90
    assert r.samples_per_second == r.batch_size / r.step_seconds
    assert r.peak_memory_bytes > 0 and r.peak_memory_kind == "process_peak_rss"


def test_too_large_for_memory_is_refused_before_allocating(tiny_mlp):
    tiny_mlp["model"]["hidden"] = [200_000, 200_000]  # 40e9 params: ~640 GB with Adam
    r = run_job(job_for(tiny_mlp))
    assert r.status == "does_not_fit"
    assert r.message.startswith("does not fit at batch 64")


def test_out_of_memory_during_a_step_is_a_result(tmp_path, tiny_mlp):
    (tmp_path / "greedy.py").write_text(GREEDY_MODEL)
    spec = {
        **tiny_mlp,
        "model": {
            "kind": "custom",
            "factory": "greedy:build",
            "input_shape": [4],
            "outputs": 2,
            "path": str(tmp_path),
        },
    }
    job = {"spec": parse_spec(spec).to_job(), "device": "cpu", "seconds": 0.5}
    r = run_job(job)
    assert r.status == "does_not_fit"
    assert "out of memory" in r.message and "batch 64" in r.message


def test_sweep_measures_each_batch_size(tiny_mlp):
    tiny_mlp["data"]["samples"] = 64
    tiny_mlp["train"]["batch_size"] = 16
    job = job_for(tiny_mlp, seconds=0.2)
    job["sweep"] = True
    r = run_job(job)
    assert [p["batch_size"] for p in r.sweep] == [4, 8, 16, 32, 64, 128, 256]
    assert all(p["status"] == "ok" and p["samples_per_second"] > 0 for p in r.sweep)


def test_module_entry_point_writes_a_result_even_when_the_model_fails(tmp_path, tiny_mlp):
    (tmp_path / "bad.py").write_text("def build():\n    raise RuntimeError('kaput')\n")
    spec = {
        **tiny_mlp,
        "model": {
            "kind": "custom",
            "factory": "bad:build",
            "input_shape": [4],
            "outputs": 2,
            "path": str(tmp_path),
        },
    }
    job_path, result_path = tmp_path / "job.json", tmp_path / "result.json"
    job_path.write_text(
        json.dumps({"spec": parse_spec(spec).to_job(), "device": "cpu", "seconds": 0.5})
    )
    proc = subprocess.run(
        [sys.executable, "-m", "runner.bench", str(job_path), str(result_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0
    r = BenchResult.read(result_path)
    assert r.status == "invalid" and "kaput" in r.message
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[-1] == {"event": "done", "status": "invalid"}


def test_train_mode_runs_every_step_and_times_twenty_windows(tiny_mlp):
    tiny_mlp["data"]["samples"] = 640  # 10 steps per epoch at batch 64
    job = {**job_for(tiny_mlp), "mode": "train", "epochs": 7}
    events = []
    r = run_job(job, events.append)
    assert r.status == "ok" and r.steps_measured == 70
    assert len(r.step_seconds_windows) == 20
    # the windows cover the run: their steps (70 / 20 = 3 or 4 each) times their means sum to its time
    ends = [round(k * 70 / 20) for k in range(1, 21)]
    counts = [b - a for a, b in zip([0] + ends, ends)]
    assert sum(c * w for c, w in zip(counts, r.step_seconds_windows)) == pytest.approx(
        r.wall_seconds, rel=0.05
    )
    assert [e["steps"] for e in events if e["event"] == "train"] == ends


@pytest.mark.skipif(process_age_seconds() is None, reason="/proc: Linux only")
def test_the_bench_measures_its_own_process_start(tiny_mlp):
    before = process_age_seconds()
    time.sleep(0.3)
    assert process_age_seconds() - before == pytest.approx(0.3, abs=0.05)
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import torch; from runner.bench.run import process_age_seconds; "
            "print(process_age_seconds())",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.perf_counter() - started
    age = float(proc.stdout)
    assert (
        0.05 < age <= elapsed + 0.02
    )  # importing torch takes a while, and the child lived no longer than we waited


def test_the_parent_times_the_whole_process_and_its_exit(tmp_path, tiny_mlp):
    from runner.local import LocalTarget

    target = LocalTarget(job_for(tiny_mlp, seconds=0.3), tmp_path)
    started = time.perf_counter()
    target.start()
    target.wait(120)
    elapsed = time.perf_counter() - started
    r = target.collect()
    assert r.status == "ok"
    # the process outlives its own measured parts (start, bench) and no longer than we waited
    assert r.process_start_seconds + r.wall_seconds < r.process_seconds <= elapsed
    assert 0 < r.exit_seconds < r.process_seconds - r.wall_seconds


def test_the_bench_holds_a_bounded_pool_of_batches_not_the_dataset(tiny_mlp):
    from planner.core.estimate import StepMeasurement
    from runner.bench.data import POOL_MAX_BYTES

    tiny_mlp["model"] = {"kind": "mlp", "input_size": 512, "hidden": [64], "outputs": 1}
    tiny_mlp["data"] = {
        "samples": 2_000_000,
        "task": "regression",
        "location": "device",
    }  # 4.1 GB of data
    tiny_mlp["train"]["batch_size"] = 256
    started = time.monotonic()
    r = run_job(job_for(tiny_mlp, seconds=1))
    assert r.status == "ok", r.message
    assert r.dataset_bytes == 2_000_000 * (512 * 4 + 4)
    assert 2 * 256 <= r.data_pool_samples < 2_000_000 and r.data_pool_samples % 256 == 0
    # the pool is sized from the last-level cache, at most POOL_MAX_BYTES: a VM that reports a 300 MiB L3 gets the
    # whole 512 MiB, an eighth of the 4.1 GB dataset (the 2026-11-28 machine; earlier ones stopped below a tenth)
    assert r.data_pool_bytes <= POOL_MAX_BYTES and r.data_pool_bytes < r.dataset_bytes / 7
    assert (
        r.peak_memory_bytes < 2 * 2**30 and time.monotonic() - started < 60
    )  # the 4 GB were never built
    # the real run's one-time cost of materialising every sample is modelled from the pool's rate
    m = StepMeasurement.from_result(r)
    assert m.data_seconds == pytest.approx(
        (r.dataset_bytes - r.data_pool_bytes) * r.data_pool_seconds / r.data_pool_bytes
    )


def test_host_data_is_gathered_from_the_pool_and_copied_every_step(tiny_mlp):
    tiny_mlp["data"] = {"samples": 100_000, "task": "regression", "location": "host"}
    r = run_job(job_for(tiny_mlp))
    assert r.status == "ok" and 0 < r.data_pool_samples <= 100_000


def test_the_planner_and_the_bench_bound_the_pool_alike():
    from planner.workload.footprint import BENCH_POOL_MAX_BYTES
    from runner.bench.data import POOL_MAX_BYTES

    assert BENCH_POOL_MAX_BYTES == POOL_MAX_BYTES


def test_the_bench_takes_as_many_threads_as_cpus_are_free_and_says_so(
    tmp_path, tiny_mlp, monkeypatch
):
    """Every CPU busy with another process: the bench measures with one torch thread and says why (a step with more
    threads than free CPUs waits on the busy ones); --threads (the job's) stands."""
    import os

    monkeypatch.delenv(
        "OMP_NUM_THREADS", raising=False
    )  # the serial tests set it: the bench must choose here
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    job = tmp_path / "job.json"
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 1)
    ]
    try:
        results = []
        for threads in (None, 2):
            job.write_text(json.dumps({**job_for(tiny_mlp), "threads": threads}))
            subprocess.run(
                [sys.executable, "-m", "runner.bench", str(job), str(tmp_path / "r.json")],
                cwd=ROOT,
                capture_output=True,
                timeout=120,
                check=True,
            )
            results.append(json.loads((tmp_path / "r.json").read_text()))
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    fitted, chosen = results
    assert fitted["threads"] == 1 and any(
        "measured with 1 torch thread" in w for w in words(fitted["warnings"])
    )
    assert chosen["threads"] == 2 and not any(
        "measured with" in w for w in words(chosen["warnings"])
    )
