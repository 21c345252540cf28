"""The plan as data (issue 40): every option as numbers in SI units (seconds, USD, bytes) for `--format csv`,
never display text."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.core.plan import billed_cost, hourly_rate
from planner.report.remarks import note_text

if TYPE_CHECKING:
    from planner.core.document import PlanDocument


PLAN_CSV_COLUMNS = (
    "rank",
    "recommended",
    "target",
    "instance_type",
    "region",
    "purchase",
    "device",
    "device_name",
    "gpus",
    "instances",
    "source",
    "step_s",
    "step_low_s",
    "step_high_s",
    "one_time_s",
    "train_s",
    "train_low_s",
    "train_high_s",
    "usd_per_hour",
    "cost_usd",
    "cost_low_usd",
    "cost_high_usd",
    "speedup",
    "speedup_low",
    "speedup_high",
    "break_even_speedup",
    "reference",
    "scaling_efficiency",
    "fits",
    "failed",
    "note",
)


def _number(value: float | int | None) -> str:
    """A CSV number: repr-exact, empty when there is none (or no finite value)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def plan_csv_rows(doc: PlanDocument) -> list[list[str]]:
    """Every option of the plan (not the grouped view), in its order, as numbers in SI units (seconds, USD per hour
    and USD, ratios) and plain words; empty where an option has no such value. A spreadsheet or pandas reads them as
    numbers (issue 40: never display text)."""
    out = []
    for o in doc.plan.options:
        cost_low = cost_high = None
        if o.train_seconds_low is not None and o.train_seconds_high is not None and o.usable:
            cost_low = billed_cost(o, o.train_seconds_low)
            cost_high = (
                billed_cost(o, o.train_seconds_high)
                if math.isfinite(o.train_seconds_high)
                else None
            )
        out.append(
            [
                _number(o.rank),
                "true" if doc.is_recommended(o) else "false",
                o.target,
                o.instance_type or "",
                o.region or "",
                o.purchase or "",
                o.device,
                o.device_name or "",
                _number(o.gpus_used or 0),
                _number(o.instances),
                o.source,
                _number(o.step_seconds),
                _number(o.step_seconds_low),
                _number(o.step_seconds_high),
                _number(o.one_time_seconds),
                _number(o.train_seconds),
                _number(o.train_seconds_low),
                _number(o.train_seconds_high),
                _number(hourly_rate(o)),
                _number(o.cost_usd),
                _number(cost_low),
                _number(cost_high),
                _number(o.speedup),
                _number(o.speedup_low),
                _number(o.speedup_high),
                _number(o.break_even_speedup),
                o.reference or "",
                _number(o.scaling_efficiency),
                "true" if o.fits else "false",
                "true" if o.failed else "false",
                " ".join(note_text(o.note).split()),
            ]
        )
    return out
