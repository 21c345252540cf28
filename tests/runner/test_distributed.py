"""The data-parallel bench (runner/bench/distributed.py): its arithmetic, and real gloo runs on this CPU."""

from __future__ import annotations

import pytest

from runner.bench.distributed import fit_fabric


def test_the_fabric_fit_recovers_latency_and_bandwidth():
    latency, bus, ranks = 300e-6, 0.8e9, 2
    points = [(b, latency + 2 * (ranks - 1) / ranks * b / bus) for b in (1024, 2**20, 2**22, 2**24)]
    got_latency, got_bus = fit_fabric(points, ranks)
    assert got_latency == pytest.approx(latency, rel=1e-6) and got_bus == pytest.approx(
        bus, rel=1e-6
    )
    flat = fit_fabric(
        [(1024, 1e-3), (2**20, 1e-3)], 4
    )  # no slope: bandwidth unbounded, never negative
    assert flat[1] == float("inf") and flat[0] >= 0


def test_a_gloo_data_parallel_bench_runs_for_real(tmp_path):
    """`planner bench SPEC --processes 2`'s code path: torchrun, DistributedDataParallel, gloo, 2 x 1 thread."""
    from planner.service import BenchOptions, PlannerService, SpecWorkload
    from planner.workload.spec import parse_spec
    from tests.conftest import TINY_MLP

    spec = parse_spec(
        {**TINY_MLP, "model": {"kind": "mlp", "input_size": 16, "hidden": [64], "outputs": 4}}
    )
    service = PlannerService()
    result = service.bench(SpecWorkload(spec), BenchOptions(device="cpu", seconds=1.5, processes=2))
    assert result.status == "ok", result.message
    assert (result.processes, result.backend, result.threads, result.batch_size) == (
        2,
        "gloo",
        1,
        64,
    )
    params = 16 * 64 + 64 + 64 * 4 + 4
    assert result.gradient_bytes == 4 * params  # fp32 gradients, all-reduced every step
    assert 0.0 <= result.allreduce_share < 1.0 and result.step_seconds_no_sync > 0
    assert result.allreduce_seconds > 0 and result.step_seconds > 0
    assert len(result.fabric["points"]) == 4 and result.fabric["bus_bytes_per_second"] > 0
    assert result.samples_per_second == pytest.approx(64 / result.step_seconds)


def test_processes_must_split_the_batch_and_cannot_sweep(tmp_path, capsys):
    from planner.cli import main
    from planner.errors import InputError
    from planner.service import BenchOptions, PlannerService, SpecWorkload
    from planner.workload.spec import parse_spec
    from tests.conftest import TINY_MLP

    spec = parse_spec(TINY_MLP)  # batch 64
    with pytest.raises(InputError, match="does not split evenly over 3 processes"):
        PlannerService().bench(SpecWorkload(spec), BenchOptions(device="cpu", processes=3))
    with pytest.raises(InputError, match="--sweep measures one process"):
        PlannerService().bench(
            SpecWorkload(spec), BenchOptions(device="cpu", processes=2, sweep=True)
        )
    path = tmp_path / "s.json"
    import json

    path.write_text(json.dumps(TINY_MLP))
    assert main(["bench", str(path), "--processes", "3"]) == 2
    assert "does not split evenly" in capsys.readouterr().err


def test_the_job_carries_the_processes_and_the_bench_clamps_them_to_the_gpus():
    from planner.service import BenchOptions
    from planner.service.bench import make_job
    from planner.workload.footprint import footprint
    from planner.workload.spec import parse_spec
    from runner.bench.distributed import processes_for
    from tests.conftest import TINY_MLP

    spec = parse_spec(TINY_MLP)
    job = make_job(spec, BenchOptions(device="auto", processes=4), footprint(spec)).runner_job()
    assert job["processes"] == 4
    assert processes_for({**job, "device": "cpu"}) == 4  # CPU ranks share the cores
    assert processes_for({**job, "processes": None}) == 1
