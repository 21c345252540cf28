"""How the launcher counts a script's steps where the step's time does not matter (not timed against this machine:
run with the parallel tests): a closure optimizer's step."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.core.script import ScriptRun, estimate_script, script_said
from planner.report.remarks import words
from runner.local import run_script
from tests.conftest import bench_script


def script(tmp_path: Path, text: str, name: str = "train.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_closure_optimizers_step_is_one_step_however_many_passes_its_closure_runs(tmp_path):
    """LBFGS runs its closure (a forward and backward pass) up to max_iter times inside one step(closure). Its
    passes are not steps, even before its first step ends (a slow step longer than the budget counted 20 backward
    passes as 20 steps, and the run came out 91% short)."""
    lbfgs = """
    import time, torch
    x, y = torch.randn(64, 8), torch.randn(64, 1)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.LBFGS(model.parameters(), max_iter=25, tolerance_grad=0, tolerance_change=0)
    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        time.sleep(0.01)
        return loss
    for _ in range(12):
        opt.step(closure)
    """
    done = run_script(
        script(tmp_path, lbfgs), [], seconds=0.2, workdir=tmp_path, min_steps=9, cap_seconds=60
    )
    result = done.result
    assert (
        result["boundary"] == "optimizer"
        and result["closure_passes"] == 25
        and result["closure_steps"] >= 9
    )
    steps = result["steps"]
    assert (
        len(steps) >= 9 and (steps[-1] - steps[0]) / (len(steps) - 1) >= 25 * 0.01
    )  # a step is its 25 passes
    run = ScriptRun.from_json(result)
    assert "one step of the 25 forward and backward passes its closure ran" in " ".join(
        words(script_said(run, estimate_script(run, 100), False).notes)
    )


def test_the_work_after_the_last_step_of_a_run_that_finished_is_measured_and_in_the_estimate(
    tmp_path,
):
    """A final evaluation (here a 1.5 s pass) after the last step: timed when the run finishes while measured, and part
    of the whole run on every row; a run planned longer keeps it once, at its end."""

    final = """
    import time, torch
    w = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(w.parameters(), lr=0.01)
    for _ in range(60):
        opt.zero_grad(); w(torch.randn(32, 8)).pow(2).mean().backward(); opt.step()
        time.sleep(0.005)
    time.sleep(1.5)  # the final evaluation, a checkpoint
    """
    run, est = bench_script(script(tmp_path, final), [], seconds=30)
    assert run.stopped_because == "finished" and est.total_steps == 60
    assert est.after_seconds is not None and 1.5 <= est.after_seconds < 3.0
    assert est.seconds >= est.setup_seconds + 60 * est.step_seconds + 1.5
    assert any("after its last step the script ran" in n for n in words(est.notes))
    longer = estimate_script(run, 6000)
    assert longer.seconds - est.seconds == pytest.approx(5940 * est.step_seconds, rel=0.01)


def test_the_launchers_own_start_up_is_off_the_runs_clock_but_the_scripts_import_of_torch_is_not(
    tmp_path,
):
    """The script's setup runs from its own start as `python train.py` would: the interpreter and `import torch` in,
    the launcher's hooks, its CPU watch and its calibrations out (they cost ~2 s here: +31-77% on a 3 s run)."""
    quick = """
    import torch
    w = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(w.parameters(), lr=0.1)
    for _ in range(30):
        opt.zero_grad(); w(torch.randn(8, 4)).sum().backward(); opt.step()
    """
    done = run_script(script(tmp_path, quick), [], seconds=5.0, workdir=tmp_path, cap_seconds=120)
    result = done.result
    start = result["start_up"]
    assert start["entered"] is not None and 0 <= start["entered"] < start["before_script"]
    own = (
        start["before_script"] - start["entered"] - start["torch_import"]
    )  # the launcher's own work
    assert result["launcher_seconds"] == pytest.approx(max(own, 0.0), abs=0.01)
    # the script begins, on the run's clock, after the interpreter's start and torch's import only
    assert result["imports_done"] == pytest.approx(
        start["entered"] + start["torch_import"], abs=0.05
    )
    assert (
        result["trace"] is not None and result["trace"]["traced_op_overhead_seconds"] > 0
    )  # taken as the trace began


def test_a_spot_notice_stops_a_script_job_and_keeps_its_steps(tmp_path, monkeypatch):
    """A script job on a spot instance (runner/script_job.py, what the instance runs) told of its reclaim (the notice
    file runner/bootstrap.sh writes) stops the script with everything it started and keeps the steps it took: the
    launcher's interim result, said to be interrupted."""
    import threading
    import time

    from runner.script_job import run_job

    slow = """
    import time, torch
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(100000):
        opt.zero_grad()
        model(torch.randn(8, 4)).sum().backward()
        opt.step()
        time.sleep(0.05)
    """
    script(tmp_path, slow)
    flag = tmp_path / "interruption.txt"
    monkeypatch.setenv("PLANNER_INTERRUPT_FILE", str(flag))
    timer = threading.Timer(
        8.0, lambda: flag.write_text('spot interruption notice: {"action": "terminate"}')
    )
    timer.start()
    started = time.monotonic()
    try:
        result = run_job(
            {
                "kind": "script",
                "folder": str(tmp_path),
                "script": "train.py",
                "seconds": 120,
                "cap_seconds": 200,
                "device": "cpu",
            },
            str(tmp_path),
        )
    finally:
        timer.cancel()
    assert time.monotonic() - started < 60  # stopped at the notice, not at its 120 s budget
    assert result.status == "ok" and result.stopped_because == "interrupted", result.message
    assert result.interruption == 'spot interruption notice: {"action": "terminate"}'
    assert result.steps_measured >= 5 and words(result.warnings)[0].startswith(
        "interrupted (spot interruption notice"
    )
