"""Issue 40: one step longer than the bench may run ends the bench from outside (the harness only looks at its clock
between steps), with a clear message, and `estimate` answers all the same, from the work alone. Real child processes:
a bench of a convnet whose one step takes seconds here, given a wall-clock cap shorter than that."""

from __future__ import annotations

import time

import pytest

from planner.report.remarks import word, words

SLOW = """name: slow-cnn
model: {kind: cnn, input_shape: [3, 256, 256], channels: [128, 128, 128, 128], outputs: 10}
data: {samples: 64, task: classification, location: device}
train: {batch_size: 16, epochs: 1, optimizer: sgd, learning_rate: 0.01, precision: fp32}
"""


@pytest.fixture
def slow_spec(tmp_path):
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW)
    return path


def test_a_step_longer_than_the_wall_cap_ends_the_bench_and_estimate_answers_from_the_work(
    slow_spec, monkeypatch
):
    import planner.service.bench as bench
    from planner.service import PlannerService, plan_options
    from tests.conftest import bench_children

    monkeypatch.setattr(
        bench, "BENCH_WALL_EXTRA_SECONDS", 3.0
    )  # the bench may run 3.5 s in all; a step takes more
    service = PlannerService()
    start = time.monotonic()
    doc = service.estimate(
        service.workloads.open(str(slow_spec)), plan_options(region="us-east-1"), 0.5
    )
    assert time.monotonic() - start < 20
    said = word(doc.plan.warnings[0])
    assert (
        "stopped at the bench's wall-clock cap of 4 s with no result" in said
        and "predicted from the work alone" in said
    )
    assert {o.source for o in doc.plan.options} == {"predicted"} and doc.recommendation.target
    assert bench_children() == []  # its process group ended with it


def test_a_precision_this_cpu_would_emulate_is_measured_in_fp32_and_said(tmp_path, monkeypatch):
    """Issue 40: a bf16 spec on a CPU without bf16 units (no AVX-512 BF16, no AMX) emulated each step 51-75x slower and
    never answered. Such a CPU (its /proc/cpuinfo stood in for by PLANNER_CPUINFO, read by the bench's own child
    process) measures fp32 and says so first, in estimate, bench and run alike; every CPU instance is still predicted
    for its own bf16 units."""
    from planner.service import PlannerService, plan_options
    from planner.service.bench import BenchOptions, emulated_here, sized_here

    spec_path = tmp_path / "bf16.yaml"
    spec_path.write_text(
        "name: tiny-bf16\nmodel: {kind: mlp, input_size: 8, hidden: [32], outputs: 1}\n"
        "data: {samples: 1024}\ntrain: {batch_size: 128, epochs: 2, precision: bf16}\n"
    )
    assert word(emulated_here("bf16", {"avx2", "avx512f"})).startswith(
        "this CPU has no bf16 units (AVX-512 BF16 or AMX)"
    )
    assert (
        emulated_here("bf16", {"avx512f", "amx_bf16"}) is None
        and emulated_here("fp32", {"avx2"}) is None
    )
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("model name\t: Old Xeon\nflags\t\t: fpu avx2 fma\n")
    monkeypatch.setenv("PLANNER_CPUINFO", str(cpuinfo))
    service = PlannerService()
    workload = service.workloads.open(str(spec_path))
    assert "bf16 would be emulated here" in service.workloads.emulated_here(workload.spec)
    assert service.workloads.emulated_here(workload.spec, "cuda") == ""  # a GPU runs the spec's own
    # sized for what trains: 4-byte activations here
    fp = service.workloads.footprint(workload.spec)
    assert sized_here(workload.spec, fp, "cpu").total_bytes > fp.total_bytes
    assert sized_here(workload.spec, fp, "cuda") is fp
    measured = {}
    doc = service.estimate(
        workload,
        plan_options(region="us-east-1"),
        0.5,
        on_result=lambda label, data: measured.update({label: data}),
    )
    local = next(iter(measured.values())).result
    assert (
        local.status == "ok"
        and local.precision == "fp32"
        and "bf16 would be emulated here" in words(local.warnings)[0]
    )
    assert any("bf16 would be emulated here" in w for w in words(doc.plan.warnings))
    assert (
        doc.workload.precision == "bf16"
    )  # the plan is still of the spec: bf16 wherever it has units
    benched = service.bench(workload, BenchOptions(seconds=0.5, device="cpu"))
    assert benched.precision == "fp32" and "bf16 would be emulated" in words(benched.warnings)[0]
    monkeypatch.setenv(
        "PLANNER_CPUINFO", str(tmp_path / "none")
    )  # cannot tell: the spec's own precision
    assert service.bench(workload, BenchOptions(seconds=0.5, device="cpu")).precision == "bf16"
