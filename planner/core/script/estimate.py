"""A script's whole run from its timeline: setup, steady step, epochs, between epochs, with an honest interval (the package's docstring says how)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace

from planner.core.estimate import (
    PROCESS_EXIT_SECONDS,
    RUN_TO_RUN_NOISE,
    StepMeasurement,
    estimate_training,
)
from planner.core.predict.cpu import (
    UNMEASURED_UNCERTAINTY,
)
from planner.core.remarks import (
    AfterLastStep,
    BusyWhileMeasured,
    FinishedShort,
    LengthDisagrees,
    NoDataLoader,
    NoEpochBoundary,
    PredictedHere,
    Remark,
    Said,
    StepUnsettled,
)
from planner.core.script.job import PER_STEPS, RunLengthUnknown
from planner.core.script.length import RunLength, own_epochs, run_length
from planner.core.script.timeline import (
    ALIKE_SPREAD,
    MIN_STEADY_STEPS,
    MIN_WARMUP_STEPS,
    WARMUP_SHARE,
    ScriptRun,
)
from planner.errors import InputError


@dataclass(frozen=True)
class ScriptEstimate:
    setup_seconds: float
    step_seconds: float
    step_low: float
    step_high: float
    steps_measured: int
    warmup_steps: int
    # optimizer steps in one whole epoch seen; None: no whole epoch seen
    steps_per_epoch: float | None
    between_epochs_seconds: float | None  # None: no epoch boundary seen
    total_steps: int
    epochs: float  # the epochs the whole run has (total_steps / steps_per_epoch when known)
    seconds: float
    low: float
    high: float
    warnings: list[Remark] = field(default_factory=list)  # what makes the estimate less certain
    notes: list[Remark] = field(default_factory=list)  # how it was made
    # what ran after the last step, measured (the run finished while measured)
    after_seconds: float | None = None
    # planned for PER_STEPS steps: no length was given and none could be known
    per_steps: bool = False

    @property
    def said(self) -> Said:
        return Said(self.warnings, self.notes)


def _durations(run: ScriptRun) -> tuple[list[float], list[float], int, list[float]]:
    """(steady step durations, durations of steps that span an epoch's end, warm-up steps dropped, the
    durations of the warm-up steps after the first that span no epoch's end and were not traced)."""
    ends = run.steps
    spans = {i for e in run.epochs for i in range(1, len(ends)) if ends[i - 1] <= e.end < ends[i]}
    traced = (
        set()
        if run.trace is None
        else {  # ran slower under the dispatch mode: not a timing
            i
            for i in range(1, len(ends))
            if ends[i] > run.trace.start and ends[i - 1] < run.trace.start + run.trace.wall
        }
    )
    warmup = max(MIN_WARMUP_STEPS, int(len(ends) * WARMUP_SHARE))
    steady = [
        ends[i] - ends[i - 1] for i in range(max(1, warmup), len(ends)) if i not in spans | traced
    ]
    warming = [
        ends[i] - ends[i - 1] for i in range(1, min(warmup, len(ends))) if i not in spans | traced
    ]
    return steady, [ends[i] - ends[i - 1] for i in sorted(spans - traced)], warmup, warming


def steps_alike(run: ScriptRun) -> bool:
    """Whether the script's steady steps do alike work: their middle half within 1.5x (a convnet's batches, even
    on a noisy machine: ~1.1-1.3x; an RL agent's episodes while it learns: ~1.7-1.9x, measured on
    examples/scripts/reinforce.py). On a machine other processes kept busy, times spread whatever the work: steps a
    DataLoader fed (a batch each, or the same few) are then alike by their work (a trial: a fixed-work convnet's traced
    step was said as 17 to 69 kernels from one busy run to the next, scaled by its spread times)."""
    steady = _durations(run)[0]
    if len(steady) < 4:
        return False
    q1, _, q3 = statistics.quantiles(steady, n=4)
    if q1 > 0 and q3 / q1 <= ALIKE_SPREAD:
        return True
    fed = any(e.batches > 0 for e in run.under_way) or any(e.batches > 0 for e in run.epochs)
    return bool(run.busy_warnings) and fed


def _windows(durations: list[float], size: int) -> list[float]:
    """The mean of each `size` consecutive steps, in step order."""
    return [
        statistics.fmean(durations[i : i + size]) for i in range(0, len(durations) - size + 1, size)
    ]


def paired_windows(first: ScriptRun, second: ScriptRun, windows: int = 20) -> list[float]:
    """Two measurements of the same script, window by window (the same steps, at least 5 a window, up to
    `windows`): the second's mean step over the first's. A seeded script runs the same steps both times,
    so these ratios move with the machine, not with the workload (an RL agent's episodes grow as it learns:
    its own windows spread whatever the machine does)."""
    one, two = _durations(first)[0], _durations(second)[0]
    size = max(5, min(len(one), len(two)) // windows)
    return [b / a for a, b in zip(_windows(one, size), _windows(two, size)) if a > 0]


def steady_step(run: ScriptRun) -> tuple[float, float]:
    """The mean steady step (no warm-up, no traced step, no step spanning an epoch's end) and its relative
    half-width: the step a plan of the script uses, and the one its progress line says. InputError when too few
    steps were steady."""
    steady, _, warmup, _ = _durations(run)
    return _steady_step(run, steady, warmup)


def _steady_step(run: ScriptRun, steady: list[float], warmup: int) -> tuple[float, float]:
    """steady_step over the steady durations _durations found (estimate_script has them already)."""
    if len(steady) < MIN_STEADY_STEPS:
        raise InputError(
            f"the script took {len(run.steps)} step(s) before it stopped ({run.stopped_because}): too few "
            f"to time a steady step (at least {MIN_STEADY_STEPS + warmup + 1})",
            hint="give more --seconds, or a run with more steps",
        )
    mean = statistics.fmean(steady)
    half = 1.96 * statistics.stdev(steady) / math.sqrt(len(steady)) / mean
    windows = _windows(steady, max(5, len(steady) // 20))
    moving = statistics.stdev(windows) / mean if len(windows) >= 5 else 0.0
    # not i.i.d. steps: the levels the windows moved between are what the rest may run at
    if moving > half:
        half = moving
    return mean, half


def estimate_script(
    run: ScriptRun,
    total_steps: int | None = None,
    epochs: int | None = None,
    noise: float = RUN_TO_RUN_NOISE,
    args: list[str] | None = None,
) -> ScriptEstimate:
    """The whole run of the script from its measured part (see the module docstring). `args`: the script's own; when
    the length is not known and they hold an --epochs its DataLoader could count, the error suggests it (never assumed:
    a script's flag may mean something else)."""
    steady, spanning, warmup, warming = _durations(run)
    mean, half = _steady_step(run, steady, warmup)
    # its steps here are a prediction from the stand-in's trace, not a measurement
    if run.predicted_here:
        half = UNMEASURED_UNCERTAINTY
    # robust to a slow step
    between = (
        max(statistics.median(spanning) - statistics.median(steady), 0.0) if spanning else None
    )
    length = run_length(run, total_steps, epochs, args)
    warnings, notes = _step_remarks(run, length, between)
    setup, after, one_time = _one_time(run, mean, warming, length, between, notes)
    # the spec's extrapolation (planner/core/estimate.py): setup runs from the spawn (no separate process start); exit
    # as a bench's parent would measure it
    step = StepMeasurement(
        mean,
        mean * max(1 - half, 0.05),
        mean * (1 + half),
        one_time,
        process_start_seconds=0.0,
        exit_seconds=PROCESS_EXIT_SECONDS,
        steps_measured=len(steady),
    )
    whole = estimate_training(step, length.total_steps, noise=noise)
    if whole.note:
        warnings.append(whole.note)
    return ScriptEstimate(
        setup,
        mean,
        step.step_seconds_ci_low,
        step.step_seconds_ci_high,
        len(steady),
        warmup,
        length.steps_per_epoch,
        between,
        length.total_steps,
        length.epochs,
        whole.seconds,
        whole.low,
        whole.high,
        warnings,
        notes,
        after,
    )


def _step_remarks(
    run: ScriptRun, length: RunLength, between: float | None
) -> tuple[list[Remark], list[Remark]]:
    """What the measurement says of the steps and the run's shape: (warnings, notes)."""
    notes = list(length.notes)
    warnings: list[Remark] = []
    ran = len(run.steps)
    if (
        length.asked
        and run.stopped_because == "finished"
        and abs(length.total_steps - ran) > max(1.0, 0.02 * ran)
    ):
        warnings.append(FinishedShort(ran, length.training_epochs, length.total_steps))
    if not run.steady:
        # else the workload's own steps differ and move: an agent's episodes as it learns
        alike = steps_alike(run)
        if alike or length.total_steps > ran:
            warnings.append(
                StepUnsettled(
                    run.stopped_because == "finished",
                    run.drift if run.windows_spread is not None else None,
                    run.windows_spread if run.drift is not None else None,
                    alike,
                )
            )
    # no epochs to be between: work outside steps is inside a step's time
    if between is None and run.loaders_started == 0:
        notes.append(NoDataLoader(run.stopped_because == "finished"))
    # measured whole, the run itself planned: nothing between its epochs is left out (a trial: one epoch warned)
    elif between is None and not (run.stopped_because == "finished" and not length.asked):
        warnings.append(NoEpochBoundary())
    warnings[:0] = [quiet_again(w) for w in run.busy_warnings]
    if run.predicted_here:
        warnings.insert(
            0, PredictedHere(run.predicted_here, UNMEASURED_UNCERTAINTY, run.stops_here)
        )
    return warnings, notes


def _one_time(
    run: ScriptRun,
    mean: float,
    warming: list[float],
    length: RunLength,
    between: float | None,
    notes: list[Remark],
) -> tuple[float, float | None, float]:
    """The run's one-time work: (setup, the work after its last step when measured, all of it). Says in `notes`
    what the work after the last step rests on."""
    # the warm-up's steps as they were timed, of those the run planned has: slower ones (allocator, caches) add to
    # the setup, faster ones (an agent's first short episodes, which a steady step would count long) take off it;
    # never below no setup at all
    warm = sum(d - mean for d in warming[: max(length.total_steps - 1, 0)])
    setup = max(max(run.steps[0] - mean, 0.0) + warm, 0.0)
    # the time between epochs is one-time work too: one pass after each epoch, the last one the work after the last
    # step (a final evaluation) — unless the run finished while measured, when that work was timed: its last step to
    # its end (a test pass, a checkpoint), in place of the last epoch's pass
    after = (
        run.wall - run.steps[-1]
        if run.stopped_because == "finished" and run.wall > run.steps[-1]
        else None
    )
    epochs = length.epochs
    passes = (between or 0.0) * (max(epochs - 1, 0.0) if after is not None else epochs)
    if after is not None and after >= max(0.05, 0.02 * run.wall):
        notes.append(AfterLastStep(after, measured=True))
    elif after is None and between is not None:
        notes.append(AfterLastStep(between, measured=False))
    return setup, after, setup + passes + (after or 0.0)


def estimate_or_per_steps(
    run: ScriptRun, total_steps: int | None, epochs: int | None, args: list[str] | None = None
) -> ScriptEstimate:
    """The whole run (estimate_script); with no length given and none the measurement can know, a run of PER_STEPS
    steps, `per_steps` (every use case answers per PER_STEPS steps, and says so). Raises RunLengthUnknown when a
    length was given that the measurement cannot count."""
    try:
        return estimate_script(run, total_steps, epochs, args=args)
    except RunLengthUnknown:
        if total_steps is not None or epochs is not None:
            raise
    return replace(estimate_script(run, PER_STEPS, None, args=args), per_steps=True)


def quiet_again(warning: Remark) -> Remark:
    """A busy machine's warning under a script's estimate: it says to measure again when the machine is quiet."""
    return replace(warning, again=True) if isinstance(warning, BusyWhileMeasured) else warning


def length_disagreement(
    args: list[str], run: ScriptRun, est: ScriptEstimate
) -> LengthDisagrees | None:
    """A warning when the run planned is not the one the script's own arguments train: `planner estimate
    train.py --epochs 5 -- --epochs 20` plans 5 epochs of a script told to run 20 (a what-if the user may
    mean, or a slip). None when they agree (within an epoch's step), when the arguments name no epochs, when
    the epochs planned are not known, when the script finished while measured (estimate_script says so), or when the
    plan is per PER_STEPS steps (no length given: a trial's SkyPilot task said '31.25 epochs ... say --epochs 20')."""
    own = own_epochs(args)
    if own is None or not est.steps_per_epoch or run.stopped_because == "finished" or est.per_steps:
        return None  # per PER_STEPS steps (no length given) is no run's length: the plan asks for it instead
    flag, epochs = own
    if abs(est.epochs - epochs) * est.steps_per_epoch < 1:
        return None
    return LengthDisagrees(est.epochs, est.total_steps, flag, epochs)
