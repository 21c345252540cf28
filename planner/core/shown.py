"""Which rows a table shows: the rows that answer the question, grouped, in a screen. Design notes:
docs/reference/modules.md (planner/core/shown.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.core.plan import option_name
from planner.units import DEFAULT_GROUP_BY as DEFAULT_GROUP_BY  # what the user types (--group-by)
from planner.units import GROUP_BY as GROUP_BY
from planner.units import GroupBy as GroupBy

if TYPE_CHECKING:
    from planner.core.decide import RankedOption
    from planner.core.document import PlanDocument
    from planner.core.plan import Plan


@dataclass(frozen=True)
class RowFacts:
    """What grouping reads of a row: the instance it rents, its GPU model and how many GPUs in all (0: a
    CPU), whether it is always shown, and whether it is this machine (always shown, in no group)."""

    instance: str
    model: str = ""
    gpus: int = 0
    keep: bool = False
    here: bool = False
    across: bool = False  # several instances (on paper): no GPU-count group of its own

    @property
    def always(self) -> bool:
        return self.keep or self.here


@dataclass(frozen=True)
class Shown:
    """The rows shown (indices into the rows given, in their order) of `total`."""

    indices: tuple[int, ...]
    total: int

    @property
    def omitted(self) -> int:
        return self.total - len(self.indices)


def _group_keys(row: RowFacts, group_by: GroupBy) -> tuple[tuple[str, str], ...]:
    if group_by == "instance":
        return (("instance", row.instance),)
    if row.gpus <= 0:
        return (("cpu", ""),)
    if row.across:
        return (("model", row.model),)
    return (("model", row.model), ("count", str(row.gpus)))


def shown_rows(
    rows: Sequence[RowFacts], group_by: GroupBy = DEFAULT_GROUP_BY, max_rows: int | None = None
) -> Shown:
    """The rows a table shows of `rows` (best first within each group, as given): see the module docstring."""
    if group_by not in GROUP_BY:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BY)}, got {group_by!r}")
    if max_rows is not None and max_rows < 1:
        raise ValueError(f"max_rows must be at least 1, got {max_rows}")
    if group_by == "none":
        chosen = list(range(len(rows)))
    else:
        seen: set[tuple[str, str]] = set()
        chosen = []
        for i, row in enumerate(rows):
            if row.here:
                chosen.append(i)
                continue
            keys = _group_keys(row, group_by)
            new = [key for key in keys if key not in seen]
            seen.update(keys)
            if row.keep or new:
                chosen.append(i)
    if max_rows is not None and len(chosen) > max_rows:
        first = [i for i in chosen if rows[i].always] + [i for i in chosen if not rows[i].always]
        chosen = sorted(first[:max_rows])
    return Shown(tuple(chosen), len(rows))


def plan_row_facts(doc: PlanDocument) -> list[RowFacts]:
    """A plan's options as row facts: kept when the plan names them (the headline, an answer, a reference
    CPU) or they were measured (or failed); this machine's rows are `here`."""
    plan = doc.plan
    named = {
        o.key
        for o in (plan.option_of(rec) for rec in (plan.recommendation, *plan.answers.values()))
        if o is not None
    }
    if (
        asked := doc.task_option
    ) is not None:  # a SkyPilot task's own pick, which a line under the plan prices
        named.add(asked.key)
    named |= _close_calls(plan)
    if doc.length_not_given is not None:  # the instance the answer changes to at another length
        crossed = {t for _s, *picks in doc.length_not_given.crossovers for t in picks}
        named |= {key for t in crossed for key in _keys_named(plan, t)}
    references = set(plan.references.values())
    predicted = {
        _model(o.device_name)
        for o in plan.options
        if o.device == "cuda" and o.source == "predicted"
    }
    facts = []
    for o in plan.options:
        reference = o.device == "cpu" and o.target in references and o.usable
        keep = o.key in named or reference or o.source == "measured" or o.failed
        gpus = (o.gpus_used or 1) if o.device == "cuda" else 0
        model = _model(o.device_name, predicted) if gpus else ""
        facts.append(
            RowFacts(o.target, model, gpus, keep=keep, here=o.here, across=o.instances > 1)
        )
    return facts


def _keys_named(plan: Plan, name: str) -> set[str]:
    """The option a sentence names ('aws:p3.8xlarge (4 GPUs)', as option_name writes it), or else the first rented
    one of that target; none for 'local' or 'none'."""
    exact = {o.key for o in plan.options if option_name(o) == name and not o.here}
    first = next((o.key for o in plan.options if o.target == name and not o.here), None)
    return exact or ({first} if first else set())


def _close_calls(plan: Plan) -> set[str]:
    """The options the terse answer names as too close to call: the headline's rival, and its own answer's runner-up
    ('Close call: aws:g4dn.2xlarge ...', whose row a trial found only under --all)."""
    rec = plan.recommendation
    keys = {rec.choice_rival} if rec.choice_rival else set()
    answer = plan.answers.get(rec.answer) if rec.answer else None
    cmp = answer.comparison if answer is not None else None
    if cmp is not None and cmp.verdict == "too_close":
        keys |= _keys_named(plan, cmp.runner_up)
    return keys


def _model(device_name: str, known: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """A GPU row's model: "A10G (1 of 4)" is an A10G, and a measured "NVIDIA A10G" the predicted rows'
    A10G (the longest name it holds: L40S before L4), so a measurement and a prediction share a group."""
    name = (device_name or "GPU").split(" (")[0]
    held = [k for k in known if k in name]
    return name if name in known or not held else max(held, key=len)


def shown_options(
    doc: PlanDocument, group_by: GroupBy = DEFAULT_GROUP_BY, max_rows: int | None = None
) -> tuple[list[RankedOption], Shown]:
    """The plan's options a table shows, in the plan's order, and how many of how many."""
    shown = shown_rows(plan_row_facts(doc), group_by, max_rows)
    return [doc.plan.options[i] for i in shown.indices], shown


__all__ = [
    "DEFAULT_GROUP_BY",
    "GROUP_BY",
    "GroupBy",
    "RowFacts",
    "Shown",
    "plan_row_facts",
    "shown_options",
    "shown_rows",
]
