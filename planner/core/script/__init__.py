"""Pure: a user's training script as the launcher saw it (runner/script.py: the end of every step,
every DataLoader epoch) -> its parts and the whole run, with an honest interval.

    whole run = setup + steps x step time + epochs x time between epochs + exit

- setup: spawn to the start of the first step (interpreter, imports, data, model), i.e. the first
  step's end less one steady step, plus what the warm-up steps after it took beyond steady ones
  (allocator, caches, oneDNN primitives: a step of the first epoch ran ~40% slower here) or less than them (an RL
  agent's first short episodes), never below zero;
- step time: the mean of the steady steps (the first WARMUP_SHARE dropped, and every step that
  spans an epoch boundary: it holds the evaluation, the checkpoint), its 95% interval (normal
  approximation) and the run-to-run noise of a machine, in quadrature (planner/core/estimate.py);
  when the steady steps' windows (20 of them) move more than that interval allows (an RL agent's
  episodes lengthen and shorten as it learns; a machine changes speed), the steps not measured may
  run at any of their levels: the interval is the windows' own standard deviation instead (the launcher
  measured on to 3x its budget while they moved more than runner/script.py's STEADY_WINDOWS, and a plan from a measurement
  that never settled says so: an agent whose later episodes are longer runs longer than planned);
- between epochs: what a step spanning an epoch's end takes beyond the median steady step (the evaluation
  pass, a checkpoint, the next epoch's first batch), the median over the boundaries seen; without a
  boundary it is not known, and the estimate says so instead of pretending it is nothing;
- steps: `--total-steps`, or `--epochs` x the optimizer steps of one whole training epoch seen (a
  DataLoader iterated to its end with steps in it; an evaluation loader has none; accumulation shows as
  fewer steps than batches); with no whole epoch seen, a training DataLoader still under way gives them
  as its length / the batches per step seen so far (an epoch longer than the measurement); when neither
  can be known, InputError saying why (no DataLoader at all, or one without a length).

Modules: timeline (what the launcher saw), job (the run's length, environment, journaled job), estimate (the whole
run from the timeline), standin (the stand-in GPU's trace, and a step here predicted from it), instances (every
instance's row), said (the measurement's warnings and notes).
"""

from __future__ import annotations

from planner.core.script.estimate import (
    ScriptEstimate,
    estimate_or_per_steps,
    estimate_script,
    length_disagreement,
    own_epochs,
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
    "own_epochs",
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
