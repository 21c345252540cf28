"""Choices in words: why an instance is suggested for a paid benchmark, or left out (planner.core.settle's facts),
and a SkyPilot task's own pick against the plan's answer, as the CLI, the TUI and the JSON say them."""

from __future__ import annotations

from planner.core.formats import sig_money
from planner.core.plan import BenchmarkChoice, RankedOption, device_label, option_name
from planner.core.remarks import GpusIdle
from planner.report.remarks import note_text, word
from planner.report.why import result_text

HERE_WINS = "not needed: training here wins clearly, whatever an instance measures"


def choice_reason(c: BenchmarkChoice) -> str:
    """Why a paid benchmark of an instance is suggested or skipped, in words (planner.core.settle's facts)."""
    if c.why is None:  # a document written before the reasons were facts: its own words
        return c.reason
    said = _choice_words(c)
    if c.left_out_by == "max_instances":
        said = f"--max-instances {c.max_instances} reached ({said})"
    elif c.left_out_by == "budget":
        said = f"over --bench-budget (worst case ${c.worst_case_usd or 0.0:.2f}; {said})"
    return f"{HERE_WINS} ({said})" if c.here_wins else said


def choice_words(c: BenchmarkChoice) -> dict[str, object]:
    """A paid benchmark's choice as JSON shows it: its facts, and its `reason` in words."""
    from planner.core.document_json import choice_json

    return {**choice_json(c, word), "reason": choice_reason(c)}


def _choice_words(c: BenchmarkChoice) -> str:
    why = c.why
    if why == "reference":
        return "the best predicted CPU instance: the reference each GPU is compared with"
    if why == "too_close":
        return f"too close to call between {c.winner} and {c.runner_up}: measuring them would settle it"
    if why == "recommended":
        unbacked = (
            " (no published training figure backs this GPU: its prediction rests on its sheet)"
        )
        return "the predicted recommendation: confirm it before paying for the full run" + (
            unbacked if c.unbacked else ""
        )
    if why == "unpredicted":
        return f"could not be predicted ({note_text(c.notes) or c.note}): a benchmark settles it"
    if why == "data_parallel":
        return f"data-parallel option ({c.note}): predicted from the device model; benchmark the instance's 1-GPU option"
    if why == "does_not_fit":
        said = note_text(c.notes) or c.note
        return f"does not fit in GPU memory ({said})" if said else "does not fit in GPU memory"
    if why == "same_gpu":
        return f"same GPU ({c.gpu}) as {c.other}, which is cheaper"
    if why == "cpu_no_better":
        return f"CPU instance predicted no better than {c.other}"
    low, high, even = c.speedup_low or 0.0, c.speedup_high or 0.0, c.break_even or 0.0
    if why == "too_slow":
        return (
            f"predicted too slow for its price even at best ({high:.2f}x < break-even {even:.2f}x)"
        )
    if why == "straddles":
        return f"its speedup ({low:.2f}-{high:.2f}x) straddles break-even ({even:.2f}x)"
    return f"predicted to beat break-even even at its low end ({low:.2f}x > {even:.2f}x)"


def task_choice_text(
    source: str,
    written: str,
    chosen: RankedOption | None,
    allowed: int,
    answer: RankedOption | None,
    region: str,
    answer_name: str,
    other_counts: list[str] | None = None,
) -> str:
    """A SkyPilot task's own pick (its resources) against the plan's answer: its best option's time and cost, and
    their ratios to the answer's (`answer_name`: "the answer to renting", "the headline"). `other_counts`: none
    allowed, the instances with its accelerator at another count ('A100:8 aws:p4d.24xlarge')."""
    asks = f"{source} asks for {written}"
    if chosen is None:
        if other_counts:
            shown = ", ".join(
                f"{count} ({target})" for count, target in (o.rsplit(" ", 1) for o in other_counts)
            )
            return (
                f"{asks}: no instance in {region} has that count, so the plan cannot price it (SkyPilot matches "
                f"the count exactly; there: {shown})"
            )
        return f"{asks}: no instance in {region} has it, so the plan cannot price it (the catalog's instances are in the table)"
    idle = next((n for n in chosen.note if isinstance(n, GpusIdle)), None)
    what = (
        f"{option_name(chosen)} ({device_label(chosen)}"
        + (
            f"; the {'script' if idle.script else 'run'} trains on {idle.used} of its {idle.of} GPUs, "
            f"all {idle.of} priced"
            if idle is not None
            else ""
        )
        + ")"
        + (f", the best of the {allowed} instances it allows" if allowed > 1 else "")
    )
    if not chosen.usable:
        return f"{asks} — {what} cannot run this workload: {note_text(chosen.note)}"
    if answer is None or answer.key == chosen.key:
        return f"{asks} — {what}: {result_text(chosen)}" + (
            f", {answer_name} too" if answer is not None else ""
        )
    cost = (
        f"{chosen.cost_usd / answer.cost_usd:.2f}x the cost"
        if chosen.cost_usd is not None and answer.cost_usd
        else "the cost of " + sig_money(chosen.cost_usd or 0.0)
    )
    time = (
        f"{chosen.train_seconds / answer.train_seconds:.2f}x the time"
        if chosen.train_seconds and answer.train_seconds
        else ""
    )
    return (
        f"{asks} — {what}: {result_text(chosen)}, {cost}{' and ' + time if time else ''} of {answer_name}, "
        f"{option_name(answer)} ({device_label(answer)}): {result_text(answer)}"
    )
