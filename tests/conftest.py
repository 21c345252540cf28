"""Shared fixtures: example specs and small valid spec dicts."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

TINY_MLP = {
    "name": "tiny-mlp",
    "model": {"kind": "mlp", "input_size": 4, "hidden": [8], "outputs": 1},
    "data": {"samples": 256, "task": "regression", "location": "device"},
    "train": {"batch_size": 64, "epochs": 2, "optimizer": "adam", "learning_rate": 0.01},
}


# Tests whose answer depends on this machine's speed (a decision from a local bench, a timed window, a busy-
# machine check): `make test` runs them after the rest (three pytest-xdist workers), on two workers with one torch
# thread each (OMP_NUM_THREADS=1), so that each measures on a core of its own: torch's two threads sharing a core
# with another process wait for each other, and a step can take many times longer (runner/bench/machine.py). The runner's tests that measure nothing (workloads built, models
# described, a folder bundled, a child stopped at its limit or with its parent) run with the rest.
SERIAL = (
    "tests/runner/test_script_launcher.py",
    "tests/runner/test_bench_run.py",
    "tests/runner/test_distributed.py",
    "tests/cli/test_estimate.py",
    "tests/cli/test_estimate_script.py",
    "tests/cli/test_run_plan.py",
    "tests/cli/test_check_bench.py::test_bench_",
    "tests/cli/test_benchmarks.py::test_drift_",
    "tests/cli/test_benchmarks.py::test_catalog_",
    "tests/runner/test_standin.py::test_host_",
)  # check's refusals and the benchmarks that compute only: with the rest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(SERIAL):
            item.add_marker(pytest.mark.serial)


@pytest.fixture(scope="session", autouse=True)
def no_terminal_input():
    """Every child the tests start reads /dev/null, not the terminal a developer ran `make test` from: a
    paid launch asks "Proceed? [y/N]" on a terminal, and a test must never wait for an answer (the tests
    that want a terminal give their child a pty of their own)."""
    import os

    saved = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    yield
    os.dup2(saved, 0)
    os.close(saved)


@pytest.fixture
def tiny_mlp() -> dict:
    return copy.deepcopy(TINY_MLP)


@pytest.fixture
def write_spec(tmp_path):
    import yaml

    def write(data, name: str = "spec.yaml") -> Path:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else yaml.safe_dump(data))
        return path

    return write


def bench_children() -> list[int]:
    """This process's child processes running the bench (the opening estimate's), by /proc."""
    import os
    from pathlib import Path

    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and "runner.bench" in command:
            found.append(int(proc.name))
    return found


def bench_script(
    path,
    args=(),
    *,
    seconds: float = 10.0,
    total_steps: int | None = None,
    epochs: int | None = None,
    workdir=None,
    env=None,
    cancel=None,
    on_progress=None,
    service=None,
):
    """`planner bench train.py -- ARGS` through the service's one door: the script opened as a workload, benched.
    Returns its ScriptBench (run, estimate)."""
    from planner.service import BenchOptions, PlannerService

    service = service or PlannerService()
    workload = service.workloads.open(str(path), list(args), total_steps, epochs, workdir, env)
    return service.bench(workload, BenchOptions(seconds=seconds), on_progress, cancel)


def validate_script(
    path,
    args=(),
    *,
    seconds: float = 10.0,
    total_steps: int | None = None,
    epochs: int | None = None,
    recheck: bool = True,
    service=None,
):
    """`planner validate train.py -- ARGS` through the service: the script's estimate against its whole run."""
    from planner.service import BenchOptions, PlannerService

    service = service or PlannerService()
    workload = service.workloads.open(str(path), list(args), total_steps, epochs)
    return service.validate(workload, BenchOptions(seconds=seconds), recheck=recheck)


def note_of(option: dict) -> str:
    """A plan option's notes as the JSON holds them (schema 6: facts, each with its words), in words."""
    return "; ".join(n["text"] for n in option["note"])
