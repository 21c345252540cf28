"""A plan's title in words: the workload and its length (a spec's steps, epochs and batch; a script's arguments and
steps, as it runs them), the objective and the rule the headline used."""

from __future__ import annotations

from functools import singledispatch

from planner.core.document import PlanDocument, ScriptSummary, WorkloadSummary
from planner.report.remarks.script import length_text
from planner.report.text import escape, seconds_text


def given_duration(seconds: float | None) -> str:
    """A duration the user gave (--deadline 1h), said as given: '1 h', '90 min'; else as the table says it."""
    for unit, scale in (("d", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)):
        if seconds and seconds >= scale and abs(seconds / scale - round(seconds / scale)) < 1e-9:
            return f"{round(seconds / scale)} {unit}"
    return seconds_text(seconds)


def steps_word(w: ScriptSummary) -> str:
    """What a script's steps are: its optimizer's, or its backward passes when it steps no torch.optim optimizer."""
    return (
        "training steps (backward passes)" if w.step_boundary == "backward" else "optimizer steps"
    )


def script_length_text(doc: PlanDocument, w: ScriptSummary) -> str:
    """A script plan's length as its title says it: '4,480 optimizer steps', or, planned without the run's length,
    'per 1,000 optimizer steps (no length given)'."""
    steps = f"{w.total_steps:,} {steps_word(w)}"
    return f"per {steps} (no length given)" if doc.length_not_given else steps


def plan_title(doc: PlanDocument) -> str:
    plan = doc.plan
    objective = (
        plan.objective
        if plan.objective != "deadline"
        else f"cheapest within {given_duration(plan.deadline_seconds)}"
    )
    rule = ""
    if plan.headline_time_value is not None and doc.has_both_answers:
        # the default weighs here against rent only; given, waiting ranks every option (as terse_title says)
        rule = (
            f"; here vs rent at ${plan.headline_time_value:g}/h of waiting (default)"
            if doc.headline_time_value_is_default
            else f"; waiting at ${plan.headline_time_value:g}/h"
        )
    return escape(f"{workload_what(doc)}; objective: {objective}{rule}")


def workload_what(doc: PlanDocument, terse: bool = False) -> str:
    """The workload and its length, as a title says them (`terse`: the short answer's first line)."""
    return _what(doc.workload, doc, terse)


@singledispatch
def _what(w: WorkloadSummary, doc: PlanDocument, terse: bool) -> str:
    """A spec's steps, epochs and batch."""
    if terse:
        return f"{w.name}: {w.total_steps:,} steps of batch {w.batch_size:,}"
    return (
        f"{w.name}: {w.total_steps:,} steps ({w.epochs:,} epochs x {w.steps_per_epoch:,}), "
        f"batch {w.batch_size:,}"
    )


@_what.register(ScriptSummary)
def _script_what(w: ScriptSummary, doc: PlanDocument, terse: bool) -> str:
    """A script's name, arguments and length, at its own batch size (a trial read "as the script runs them" as its
    length: the length is the plan's, the batch the script's)."""
    what = " ".join([w.name, *(w.script_args or [])]) + f": {script_length_text(doc, w)}"
    if (what_if := doc.what_if_length) is not None:
        # a re-plan of another length: the title's arguments are the run's own (a trial read them as the plan's)
        what += f" (a what-if: its run is {length_text(*what_if.own)})"
    if terse:
        return what
    epochs = f" ({_epochs_of(w.total_steps, w.steps_per_epoch)})" if w.steps_per_epoch else ""
    return f"{what}{epochs}, at the script's own batch size"


def _epochs_of(steps: int, per_epoch: int) -> str:
    """A script's steps in epochs, as exact as the arithmetic: '40 epochs x 128', '319.5 epochs of 313 steps'."""
    epochs = steps / per_epoch
    if steps % per_epoch == 0:
        return f"{steps // per_epoch:,} epoch{'' if steps == per_epoch else 's'} x {per_epoch:,}"
    return (
        f"{epochs:,.1f} epochs of {per_epoch:,} steps"
        if epochs >= 1
        else f"{epochs:.2g} of an epoch of {per_epoch:,} steps"
    )
