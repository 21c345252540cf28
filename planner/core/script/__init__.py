"""Pure: a user's training script as the launcher saw it (runner/script.py: the end of every step,
every DataLoader epoch) -> its parts and the whole run, with an honest interval. Design notes:
docs/reference/modules.md (planner/core/script/__init__.py)."""

from __future__ import annotations

from planner.core.script.estimate import (
    ScriptEstimate,
    estimate_or_per_steps,
    estimate_script,
    length_disagreement,
    paired_windows,
    steady_step,
    steps_alike,
)
from planner.core.script.instances import (
    measured_script_candidate,
    never_asks_for_a_gpu,
    python_share,
    script_candidates,
)
from planner.core.script.job import (
    LENGTHS,
    PER_STEPS,
    Crossover,
    RunLengthUnknown,
    ScriptEnv,
    ScriptJob,
    ScriptLength,
    length_free_warning,
)
from planner.core.script.length import args_for_length, own_epochs, own_length, own_steps
from planner.core.script.said import script_said
from planner.core.script.standin import (
    gpu_precision,
    mean_trace,
    predicted_here,
    standin_step,
    too_slow_here,
    traced_step,
)
from planner.core.script.timeline import (
    MIN_STEADY_STEPS,
    Epoch,
    LoaderUnderWay,
    Moved,
    OpClassWork,
    ScriptRun,
    StepTrace,
)

__all__ = [
    "Crossover",
    "Epoch",
    "estimate_or_per_steps",
    "estimate_script",
    "gpu_precision",
    "length_disagreement",
    "length_free_warning",
    "LENGTHS",
    "LoaderUnderWay",
    "mean_trace",
    "measured_script_candidate",
    "MIN_STEADY_STEPS",
    "Moved",
    "never_asks_for_a_gpu",
    "OpClassWork",
    "args_for_length",
    "own_epochs",
    "own_length",
    "own_steps",
    "paired_windows",
    "PER_STEPS",
    "predicted_here",
    "python_share",
    "RunLengthUnknown",
    "script_candidates",
    "script_said",
    "ScriptEnv",
    "ScriptEstimate",
    "ScriptJob",
    "ScriptLength",
    "ScriptRun",
    "standin_step",
    "steady_step",
    "steps_alike",
    "StepTrace",
    "too_slow_here",
    "traced_step",
]
