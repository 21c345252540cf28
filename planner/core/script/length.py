"""A script's whole run's length: as given, the run itself when it finished while measured, or epochs counted in steps
(an epoch seen whole, or its DataLoader's length); the script's own --epochs, read but never assumed."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from planner.core.remarks import EpochFromLoader, FinishedInBudget, Remark
from planner.core.script.job import RunLengthUnknown, ScriptLength
from planner.core.script.timeline import LoaderUnderWay, ScriptRun

EPOCH_FLAGS = (
    "--epochs",
    "--num-epochs",
    "--num_epochs",
    "--n-epochs",
    "--n_epochs",
    "--max-epochs",
    "--max_epochs",
)


# a script's own count of its steps: maybe optimizer steps, maybe environment steps or micro-batches (said, never
# assumed)
STEP_FLAGS = (
    "--steps",
    "--max-steps",
    "--max_steps",
    "--total-steps",
    "--total_steps",
    "--num-steps",
    "--num_steps",
    "--train-steps",
    "--train_steps",
    "--iters",
    "--max-iters",
    "--max_iters",
    "--iterations",
)


def own_epochs(args: list[str]) -> tuple[str, int] | None:
    """The epochs the script's own arguments give it (`--epochs 20`, `--num_epochs=20`, the last one given, as
    argparse takes it): (the flag, its number); None when they name none, or not as a whole number. Only these
    spellings: a script's `--steps` may count environment steps or batches, not the optimizer steps planned."""
    return _own(args, EPOCH_FLAGS)


def own_steps(args: list[str]) -> tuple[str, int] | None:
    """The steps the script's own arguments name (`--steps 200`, `--max_iters=5000`; STEP_FLAGS), as own_epochs
    reads epochs. What they count is the script's: a caller may say they differ from the plan, never assume it."""
    return _own(args, STEP_FLAGS)


def own_length(args: list[str]) -> tuple[str, str, int] | None:
    """The whole run's length the script's own arguments name, as the planner is given it: ('--epochs', '--num_epochs',
    20) from its epochs flag, else ('--total-steps', '--max_iters', 5000) from its steps flag (what that counts is the
    script's: a caller says "if it counts optimizer steps"); None when they name neither above 0."""
    for given_as, flags in (("--epochs", EPOCH_FLAGS), ("--total-steps", STEP_FLAGS)):
        named = _own(args, flags)
        if named is not None and named[1] > 0:
            return given_as, *named
    return None


def args_for_length(args: list[str], own: ScriptLength, new: ScriptLength) -> list[str]:
    """The script's arguments for a run of length `new`: its own steps (or epochs) flag set to it where that flag
    named the run's own length `own` (it then counts what the planner counts: `--max_iters 5000` planned as 5,000
    steps becomes `--max_iters 50000` for 50,000); otherwise as they are, since what the flag counts is the
    script's."""
    for flags, was, wanted in (
        (STEP_FLAGS, own.total_steps, new.total_steps),
        (EPOCH_FLAGS, own.epochs, new.epochs),
    ):
        found = _last(args, flags)
        if found is None or wanted in (None, was) or not found[2].isdigit() or int(found[2]) != was:
            continue
        at, flag, _ = found
        inline = "=" in args[at]
        args = list(args)
        args[at if inline else at + 1] = f"{flag}={wanted}" if inline else str(wanted)
    return args


def _last(args: list[str], flags: tuple[str, ...]) -> tuple[int, str, str] | None:
    """The last of `flags` given (argparse takes the last): its index, the flag, its value as written (`--flag N` or
    `--flag=N`; '' when none follows)."""
    found = None
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in flags:
            found = (i, flag, value if eq else (args[i + 1] if i + 1 < len(args) else ""))
    return found


def _own(args: list[str], flags: tuple[str, ...]) -> tuple[str, int] | None:
    found = _last(args, flags)
    return (found[1], int(found[2])) if found is not None and found[2].isdigit() else None


def _steps_per_epoch_from_length(run: ScriptRun) -> tuple[float, int, float] | None:
    """(steps per epoch, the loader's length, batches per step) of the training DataLoader under way when the
    measurement stopped: the one with the most steps in it (at least 3), of a known length."""
    best: tuple[int, LoaderUnderWay] | None = None
    for e in run.under_way:
        n = sum(1 for t in run.steps if t > e.start)
        if e.length > 0 and e.batches > 0 and n >= 3 and (best is None or n > best[0]):
            best = (n, e)
    if best is None:
        return None
    n, e = best
    per_step = max(round(e.batches / n), 1)  # accumulation: whole batches per optimizer step
    return float(math.ceil(e.length / per_step)), e.length, float(per_step)


def _why_no_epoch(run: ScriptRun) -> str:
    """Why --epochs cannot be counted in steps, from what the launcher saw."""
    if run.loaders_started == 0:
        return (
            f"the script iterated no DataLoader in the {len(run.steps):,} steps measured, so --epochs (DataLoader "
            "epochs) cannot be counted in steps"
        )
    if run.under_way and all(e.length == 0 for e in run.under_way):
        return "its DataLoader has no length (an iterable dataset), so --epochs cannot be counted in steps"
    return "no whole DataLoader epoch was seen, so --epochs cannot be counted in steps"


@dataclass(frozen=True)
class RunLength:
    """The whole run's length, in steps and epochs, and how it was found."""

    total_steps: int
    epochs: float  # total_steps / steps_per_epoch when not given
    steps_per_epoch: float | None  # None: no whole epoch seen, no loader length
    training_epochs: int  # whole training epochs seen in the measurement
    asked: bool  # the user said how long the run is
    notes: list[Remark]


def run_length(
    run: ScriptRun, total_steps: int | None, epochs: int | None, args: list[str] | None
) -> RunLength:
    """The run's length: as given, the run itself when it finished in the budget, or epochs counted in steps
    (an epoch seen whole, or the DataLoader's length). RunLengthUnknown when none of those serves."""
    # a training epoch is a DataLoader iterated to its end with steps in it (an evaluation loader has none)
    per_epoch = [n for e in run.epochs if (n := sum(1 for t in run.steps if e.start < t <= e.end))]
    steps_per_epoch = float(statistics.median(per_epoch)) if per_epoch else None
    from_length = None if steps_per_epoch is not None else _steps_per_epoch_from_length(run)
    if from_length is not None:
        steps_per_epoch = from_length[0]
    notes: list[Remark] = []
    training_epochs = len(per_epoch)
    asked = total_steps is not None or epochs is not None
    if not asked and run.stopped_because == "finished":  # measured whole: the run itself
        total_steps, epochs = len(run.steps), training_epochs or None
        notes.append(FinishedInBudget())
    if total_steps is None:
        if epochs is None or steps_per_epoch is None:
            raise _length_unknown(run, epochs, steps_per_epoch, args)
        total_steps = int(round(epochs * steps_per_epoch))
        if from_length is not None:
            notes.append(EpochFromLoader(steps_per_epoch, from_length[1], from_length[2]))
    n_epochs = (
        float(epochs)
        if epochs is not None
        else (total_steps / steps_per_epoch if steps_per_epoch else 0.0)
    )
    return RunLength(total_steps, n_epochs, steps_per_epoch, training_epochs, asked, notes)


def _length_unknown(
    run: ScriptRun, epochs: int | None, steps_per_epoch: float | None, args: list[str] | None
) -> RunLengthUnknown:
    """What to give when the run's length cannot be found (the script's own --epochs suggested, never assumed)."""
    seen = (
        f"--epochs N (an epoch of {steps_per_epoch:,.0f} steps was seen)"
        if steps_per_epoch
        else "--epochs N with a DataLoader epoch in the measurement"
    )
    own = own_epochs(args or []) if epochs is None and steps_per_epoch else None
    return RunLengthUnknown(
        "the whole run's length is not known: "
        + (_why_no_epoch(run) if epochs is not None else f"give --total-steps N, or {seen}"),
        hint="give --total-steps N (the optimizer steps of the whole run)"
        + (" or --epochs N" if steps_per_epoch and epochs is None else "")
        + (
            f"; its own arguments say {own[0]} {own[1]}: --epochs {own[1]} if that is the whole run"
            if own
            else ""
        ),
    )
