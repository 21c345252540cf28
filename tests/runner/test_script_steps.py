"""How the launcher counts a script's steps where the step's time does not matter (not timed against this machine:
run with the parallel tests): a closure optimizer's step."""

from __future__ import annotations

import textwrap
from pathlib import Path

from planner.core.script import ScriptRun, estimate_script, script_said
from runner.local import run_script


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
    done = run_script(script(tmp_path, lbfgs), [], seconds=0.2, workdir=tmp_path, min_steps=9, cap_seconds=60)
    result = done.result
    assert result["boundary"] == "optimizer" and result["closure_passes"] == 25 and result["closure_steps"] >= 9
    steps = result["steps"]
    assert len(steps) >= 9 and (steps[-1] - steps[0]) / (len(steps) - 1) >= 25 * 0.01  # a step is its 25 passes
    run = ScriptRun.from_json(result)
    assert "one step of the 25 forward and backward passes its closure ran" in " ".join(script_said(run, estimate_script(run, 100), False).notes)
