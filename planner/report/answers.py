"""The plan's answers in words, for the CLI and the TUI: the headline and its label, both answers, the failed
targets, the instances left running, the paid benchmarks that would settle it (one `planner run` per region) and a
SkyPilot task's own pick."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from planner.core.candidates import Target
from planner.report.choices import choice_reason, task_choice_text
from planner.report.text import escape
from planner.report.why import answer_reason, choice_text, headline_reason

if TYPE_CHECKING:
    from planner.core.document import LeftRunning, PlanDocument

from planner.report.plan import device_text
from planner.report.remarks import note_text

VERDICT_TITLES = {
    "clear": "Recommendation",
    "only_option": "Recommendation",
    "likely": "Recommendation (likely)",
    "too_close": "Too close to call",
    "deadline_missed": "Deadline at risk",
    "nothing_fits": "No option can run this workload",
    "failed": "No benchmark succeeded",
}


def headline_label(doc: PlanDocument) -> str:
    """The headline's first words, plain: 'Recommendation: local (cpu)', 'Too close to call: ...'."""
    rec = doc.recommendation
    option = doc.recommended
    # "L4", "A100 x8 (85%)": as in the table
    device = device_text(option) if option is not None else rec.device
    target = f": {rec.target} ({device})" if rec.target else ""
    return VERDICT_TITLES[rec.verdict] + target


def recommendation_text(doc: PlanDocument, prefix: str = "") -> str:
    """The headline: the verdict, where, and why (here or rent, when the plan has both answers)."""
    why = choice_text(doc.plan) or headline_reason(doc.plan)
    # a target keeps its case
    why = why if why.startswith(("aws:", "local")) else why[:1].upper() + why[1:]
    return f"{prefix}[bold]{escape(headline_label(doc))}.[/] {escape(why)}."


def answers_text(doc: PlanDocument) -> list[str]:
    """The two answers under the headline: training here, and the best instance to rent."""
    if not doc.has_both_answers or any(
        rec.verdict == "failed" for rec in doc.plan.answers.values()
    ):
        return []  # one answer is the headline itself (a failed one is in the headline's "not compared" and failed_lines)
    return [
        f"  [bold]{label}:[/] {escape(answer_reason(doc.plan, rec))}."
        for key, label in (("here", "Here"), ("rent", "If you rent"))
        if (rec := doc.answer(key)) is not None  # type: ignore[arg-type]
    ]


def failed_lines(doc: PlanDocument) -> list[str]:
    """Each failed benchmark with its whole reason (the table's cell is cut to fit): the headline of a
    plan where some targets failed and others did not names only the latter."""
    if doc.recommendation.verdict == "failed":
        return []  # the headline is the failures, whole
    return [
        f"  [red]Failed:[/] {escape(o.target)} ({escape(device_text(o))}): {escape(' '.join(note_text(o.note).split()))}"
        for o in doc.failed
    ]


def plan_answers(doc: PlanDocument) -> list[tuple[str, str]]:
    """(key, markup) of what a plan answers, as the CLI prints it: the headline ("recommendation"),
    the failed benchmarks ("failed") and the "here" and "rent" answers."""
    out = [("recommendation", recommendation_text(doc))]
    out += [("failed", line) for line in failed_lines(doc)]
    keys = [key for key in ("here", "rent") if doc.answer(key) is not None]  # type: ignore[arg-type]
    return (
        out
        + [(key, line.strip()) for key, line in zip(keys, answers_text(doc))]
        + [("task", line.strip()) for line in task_choice_lines(doc)]
    )


def unterminated_lines(doc: PlanDocument | None) -> list[str]:
    """What a run could not terminate, each a plain sentence with the command that will — `planner
    run`'s words, for the TUI's run pane too."""
    return [left_running_line(x) for x in (doc.unterminated or [])] if doc is not None else []


def left_running_line(x: LeftRunning) -> str:
    """The sentence `planner run` and the TUI's run pane print for an instance a run could not terminate (or could
    not even look for: its error, and how to find it)."""
    if x.instance_id is None:
        return (
            f"NOT TERMINATED: {Target.shown(x.label)} could not be looked for ({x.error}); it may be billing: "
            "find it with `planner ls` and terminate it with `planner reap --region REGION`"
        )
    return (
        f"NOT TERMINATED: {x.instance_id} ({Target.shown(x.label)}) in {x.region} is still billing; it halts by its "
        f"dead-man timer and is reaped after {x.expires_at}. Terminate it now: {x.reap_command}"
    )


NO_BENCHMARK = "No paid benchmark needed: training here wins clearly, and measuring an instance would not change that"


def predicted_footer(
    doc: PlanDocument, spec: str, script_args: list[str] | None = None, explain: bool = True
) -> list[str]:
    """Under a plan with predicted rows (plain lines): where they come from, and the paid benchmarks that
    would settle it, with the command that runs them. Not `explain` (the terse default): that command alone."""
    measured_here = any(
        o.target == "local" and o.source == "measured" and o.train_seconds for o in doc.plan.options
    )
    cpus = (
        "this machine's step scaled by processor, +-40%"
        if measured_here
        else "nothing was measured here, so from the work alone (a roofline), +-60%"
    )
    prices = doc.prices
    lines = [
        f"\nPredicted rows come from the device model (GPUs: fitted to published training measurements, "
        f"interval from its error there; CPU instances: {cpus}); "
        + (f"prices: {prices.source}, as of {prices.as_of}." if prices else "prices: as listed.")
    ]
    benchmark = doc.suggested_benchmarks
    if benchmark:
        lines.append("A paid benchmark would settle:")
        lines += [f"  {c.target}: {choice_reason(c)}" for c in benchmark]
        # each of the script's arguments as the shell gives it back; the plan's purchase option kept (a trial: the
        # command without --purchase spot went over the bench budget)
        after = f" -- {shlex.join(script_args)}" if script_args else ""
        spot = " --purchase spot" if doc.options.purchase == "spot" else ""
        commands = [
            f"planner run {spec} --targets local,{','.join(ts)} --region {region}{spot}{after}"
            for region, ts in benchmark_regions(doc, benchmark).items()
        ]  # a run launches in one region
        if not explain:
            return ["A paid benchmark would settle it:", *(f"  {command}" for command in commands)]
        # no aside after a script's own arguments (it would read as one of them), nor across regions
        auto = "" if script_args or doc.spans_regions else "   (or --targets auto)"
        lines += [f"  -> {command}{auto}" for command in commands]
    elif not explain:
        return []
    elif doc.benchmark and doc.trains_here_clearly:
        lines.append(
            f'{NO_BENCHMARK} (should you rent anyway, --json lists the ones that would settle which: "benchmark").'
        )
    lines.append(
        f"Not worth benchmarking: {len(doc.skipped or [])} instance(s) (see --json for each reason)."
    )
    return lines


def benchmark_regions(doc: PlanDocument, benchmark: list) -> dict[str, list[str]]:
    """The suggested benchmarks' targets by the region each is planned in (the plan's region, unless it spans several:
    then each instance's cheapest)."""
    if not doc.spans_regions:
        return {doc.options.region: [c.target for c in benchmark]}
    where = {o.target: o.region for o in doc.plan.options if o.region}
    out: dict[str, list[str]] = {}
    for c in benchmark:
        out.setdefault(where.get(c.target) or "us-east-1", []).append(c.target)
    return out


def task_choice_lines(doc: PlanDocument) -> list[str]:
    """A SkyPilot task's own pick (its resources), priced against the answer to renting (else the headline): a line
    under the answers, for both fronts."""
    if doc.task_choice is None:
        return []

    rent = doc.answer("rent")
    answer = (
        doc.plan.option_of(rent) if rent is not None and doc.has_both_answers else doc.recommended
    )
    name = "the answer to renting" if rent is not None and doc.has_both_answers else "the headline"
    text = task_choice_text(
        doc.task_choice.source,
        doc.task_choice.written,
        doc.task_option,
        len(doc.task_choice.targets),
        answer,
        doc.options.region,
        name,
        doc.task_choice.other_counts,
    )
    return [f"  [bold]Your task:[/] {escape(text)}."]
