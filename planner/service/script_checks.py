"""A training script checked and judged: its path and folder, whether it names a GPU, why it cannot be measured
here, and its validation against the run itself (ScriptValidation)."""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.core.formats import seconds_text
from planner.core.script import (
    MIN_STEADY_STEPS,
    ScriptEstimate,
    ScriptRun,
    own_epochs,
    own_length,
    paired_windows,
    steady_step,
)
from planner.errors import InputError
from planner.report.remarks import words
from planner.units import shown_path
from runner.script_job import own_error

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.core.script import ScriptLength
    from planner.service.workload import ScriptWorkload
    from pricing.facts import CpuFacts


# the benches before and after the run agree this closely: the machine held its speed
STEADY_MACHINE_PERCENT = 5.0


STEADY_RUN_SPREAD_PERCENT = 15.0  # p10-p90 of a run's 20 windows; steady runs here spread 3-9%


def capped_too_soon(steps: int, done: Any) -> bool:
    """Stopped at the cap with too few steps to time a steady one (the warm-up and the traced step aside)."""
    return done.returncode is None and steps < MIN_STEADY_STEPS + 2


def cannot_measure_here(run: ScriptRun | None, done: Any) -> tuple[str, bool] | None:
    """Why a script written for a GPU could not be measured on this CPU, when the stand-in GPU may plan it instead, and
    whether it stops on a CPU as written: stopped at the cap with too few steps (a large step on a small CPU: False), or
    stopped before its first step (CUDA hard-coded; an exit when no GPU is there: True). None for a failure a GPU would
    not mend: after steps were taken, or slow steps of a script that never asked for a GPU."""
    steps = len(run.steps) if run is not None else 0
    if capped_too_soon(steps, done):
        # its slow steps would run for real on the stand-in too
        if run is not None and run.gpu_asked is False:
            return None
        return (
            f"its first step here did not end within the {done.seconds:.0f} s cap"
            if not steps
            else f"it took {steps} step(s) here within the {done.seconds:.0f} s cap, too few to time"
        ), False
    if steps:
        return None
    said = (done.stderr_tail or done.stdout_tail).strip()
    if run is None or run.status == "error":
        own = own_error(run.message if run is not None else "", said).strip().splitlines()
        return f"here it stops before its first step: {own[-1] if own else 'no error given'}", True
    return "here it ends without a training step", True


GPU_WORDS = re.compile(r"\bcuda\b|torch\.accelerator|\.cuda\(")


def names_a_gpu(path: Path) -> bool:
    """The script's own text names CUDA (or torch.accelerator): written for a GPU, it is traced on the stand-in GPU
    before it is measured here (only the order changes: a script that never names one is measured first, and traced
    after if it asked for a GPU)."""
    try:
        return GPU_WORDS.search(path.read_text(errors="replace")) is not None
    except OSError:
        return False


def this_cpu(gpu_run: ScriptRun) -> tuple[CpuFacts | None, int]:
    """What a step here is predicted on from a stand-in trace (core.script.predicted_here, too_slow_here): this
    machine's processor facts, and the torch threads the script ran with."""
    from pricing.catalog import local_cpu_facts

    return local_cpu_facts(), max(gpu_run.threads, 1)


def script_path(script: str | Path) -> Path:
    """The training script to run; InputError unless it is a .py file."""
    path = Path(script)
    if path.suffix != ".py":
        raise InputError(
            f"{shown_path(str(script))}: not a Python file to run",
            hint="give the training script, e.g. train.py",
        )
    if not path.is_file():
        raise InputError(
            f"{shown_path(str(script))}: no such file", hint="check the path of the training script"
        )
    return path


def script_workdir(script: Path, workdir: str | Path | None) -> Path:
    """The folder the script runs in and that ships with it: `workdir` (--workdir, as SkyPilot's: relative paths
    in its arguments are relative to it), or the script's own folder. InputError unless it is a folder that
    holds the script."""
    if workdir is None:
        return script.resolve().parent
    folder, hint = (
        Path(workdir),
        "give the folder the script runs in (it ships whole to an instance), e.g. --workdir .",
    )
    if not str(workdir):
        raise InputError("--workdir '': is empty", hint=hint)
    if not folder.is_dir():
        raise InputError(
            f"--workdir {shown_path(str(workdir))}: "
            + ("is a file, not a folder" if folder.exists() else "no such folder"),
            hint=hint,
        )
    if folder.resolve() not in script.resolve().parents:
        raise InputError(
            f"--workdir {shown_path(str(workdir))}: the script {shown_path(str(script))} is not inside it",
            hint="give a folder that holds the script: it runs there, and ships whole to an instance",
        )
    return folder.resolve()


def check_validated_epochs(args: list[str], epochs: int | None) -> None:
    """validate compares the estimate with the run the script's own arguments train: `--epochs 5 -- --epochs 20`
    is refused before anything runs (InputError). A --total-steps is checked once the epoch is known."""
    own = own_epochs(list(args))
    if own is not None and epochs is not None and own[1] != epochs:
        raise InputError(
            f"--epochs {epochs}: the script's own arguments say {own[0]} {own[1]}, and validate compares "
            "the estimate with the run they train",
            hint=f"give --epochs {own[1]}, or the script {own[0]} {epochs}",
        )


def unsteady_reason(drift_percent: float, spread_percent: float | None) -> str | None:
    """Why the machine did not hold its speed around a validate run, or None when it did."""
    if abs(drift_percent) > STEADY_MACHINE_PERCENT:
        return (
            f"the machine's own speed moved by more than {STEADY_MACHINE_PERCENT:g}% around the run"
        )
    if spread_percent is not None and spread_percent > STEADY_RUN_SPREAD_PERCENT:
        return f"the benches agree, but the run's own step time varied by more than {STEADY_RUN_SPREAD_PERCENT:g}%"
    return None


def window_spread_percent(windows: list[float]) -> float | None:
    """(p90 - p10) / median of a run's window means, in percent; None for fewer than 5 windows."""
    if len(windows) < 5:
        return None
    s = sorted(windows)
    deciles = statistics.quantiles(s, n=10, method="inclusive")  # numpy's linear interpolation
    return 100.0 * (deciles[8] - deciles[0]) / statistics.median(s)


@dataclass(frozen=True)
class ScriptValidation:
    """A script's validate run: its measurement and the whole run estimated from it, the whole run as the user
    would run it (spawn to exit, nothing hooked), and the script measured again after it (`recheck`; None: not
    asked). When the same steps of the two measurements (paired_windows: the median ratio of their windows)
    disagree by more than STEADY_MACHINE_PERCENT, or those ratios spread by more than STEADY_RUN_SPREAD_PERCENT,
    the machine did not hold its speed around the run and an error of that size may be the machine's."""

    script: str
    args: list[str]
    measured: ScriptRun
    estimate: ScriptEstimate
    actual_seconds: float
    recheck: ScriptRun | None = None
    # the length was given as --total-steps (not --epochs, not the run measured whole)
    steps_given: bool = False

    @property
    def error_percent(self) -> float:
        return 100.0 * (self.estimate.seconds - self.actual_seconds) / self.actual_seconds

    @property
    def interval_usable(self) -> bool:
        """Whether the estimate has an interval to be inside of (finite ends, a low end above 0)."""
        return self.estimate.low > 0 and math.isfinite(self.estimate.high)

    @property
    def inside_interval(self) -> bool:
        """The real run within the estimate's interval; never for an interval with no usable end (inside one is no news)."""
        return (
            self.interval_usable and self.estimate.low <= self.actual_seconds <= self.estimate.high
        )

    @cached_property
    def _paired(
        self,
    ) -> list[
        float
    ]:  # the same steps twice: the machine's move, not the workload's (computed once)
        return paired_windows(self.measured, self.recheck) if self.recheck is not None else []

    @property
    def machine_drift_percent(self) -> float | None:
        paired = self._paired
        return 100.0 * (statistics.median(paired) - 1) if paired else None

    @property
    def window_spread_percent(self) -> float | None:
        return window_spread_percent(self._paired) if self._paired else None

    @property
    def unsteady_reason(self) -> str | None:
        """Why the machine did not hold its speed around the run; None when it did, or was not measured again."""
        drift = self.machine_drift_percent
        return None if drift is None else unsteady_reason(drift, self.window_spread_percent)

    @property
    def machine_steady(self) -> bool | None:
        return None if self.machine_drift_percent is None else self.unsteady_reason is None

    @property
    def own_steps_differ(self) -> tuple[str, int] | None:
        """The script's own steps flag (`--steps 200`) when it names another count than the steps planned (a trial:
        `--total-steps 500 -- --steps 200` was +141% with no word why); None when it names none or the same."""
        from planner.core.script.length import own_steps

        own = own_steps(list(self.args))
        planned = self.estimate.total_steps
        # only against a --total-steps given: under --epochs a script's cap (--max_steps 100000) is often never
        # reached, and a run measured whole is its own length (a review)
        if (
            not self.steps_given
            or self.measured.stopped_because == "finished"
            or own is None
            or own[1] <= 0
            or abs(own[1] - planned) <= max(1.0, 0.02 * planned)
        ):
            return None
        return own

    @property
    def recheck_step_seconds(self) -> float | None:
        return steady_step(self.recheck)[0] if self.recheck is not None else None

    def to_json(self) -> dict[str, Any]:
        """`planner validate train.py --json`: the comparison (the measurements themselves are not in it)."""
        est = self.estimate
        return {
            "script": self.script,
            "args": self.args,
            "total_steps": est.total_steps,
            "epochs": est.epochs,
            "predicted_seconds": est.seconds,
            "predicted_seconds_low": est.low,
            "predicted_seconds_high": est.high,
            "actual_seconds": self.actual_seconds,
            "error_percent": self.error_percent,
            "inside_interval": self.inside_interval,
            "step_seconds": est.step_seconds,
            "setup_seconds": est.setup_seconds,
            "between_epochs_seconds": est.between_epochs_seconds,
            "after_last_step_seconds": est.after_seconds,
            "measure_seconds": self.measured.wall,
            "recheck_step_seconds": self.recheck_step_seconds,
            "machine_drift_percent": self.machine_drift_percent,
            "window_spread_percent": self.window_spread_percent,
            "machine_steady": self.machine_steady,
            "machine_unsteady_reason": self.unsteady_reason,
            "interval_usable": self.interval_usable,
            "script_steps_flag": (
                None
                if (own := self.own_steps_differ) is None
                else {"flag": own[0], "value": own[1]}
            ),
            "warnings": words(est.warnings),
            "notes": words(est.notes),
        }


def refuse_validate_without_length(workload: ScriptWorkload) -> None:
    """validate compares the estimate of the whole run with the run itself: with no length given, refused before
    anything is measured (the measurement cannot know it unless the script ends inside it). Raises InputError."""
    if workload.total_steps is not None or workload.epochs is not None:
        return
    raise InputError(
        "validate compares the estimate of the whole run with the run itself, and the run's length was not given",
        hint="give --total-steps N (the optimizer steps the script's own arguments run) or --epochs N (its "
        "DataLoader epochs)",
    )


def refuse_deadline_without_length(
    workload: ScriptWorkload | ScriptLength, deadline_seconds: float | None
) -> None:
    """A deadline is met or missed by the whole run: with no length given, refused before anything is measured (a plan
    without the length is of PER_STEPS steps, which no deadline is about), and a saved run's plan with none refused.
    Raises InputError."""
    if deadline_seconds is None or workload.total_steps is not None or workload.epochs is not None:
        return
    named = own_length(list(getattr(workload, "args", ())))
    own = ""
    if named is not None:
        given_as, flag, n = named
        counts = "" if given_as == "--epochs" else ", if it counts optimizer steps"
        own = f"{given_as} {n} with --deadline, before -- (the script's own {flag} {n}{counts}); otherwise "
    raise InputError(
        f"--deadline: a deadline of {seconds_text(deadline_seconds)} is met or missed by the whole run, and the "
        "run's length was not given",
        hint=f"give {own}"
        + "--total-steps N (the optimizer steps of the whole run) or --epochs N (DataLoader epochs) with "
        "--deadline; without a deadline, a plan with no length answers per 1,000 steps",
    )
