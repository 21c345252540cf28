"""The chart's data, for the TUI and for `--chart`: which options, where each sits, their
intervals. Design notes: docs/reference/modules.md (planner/report/chart.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from planner.core.decide import RankedOption
    from planner.core.document import PlanDocument

TIME_TICKS = [
    (1, "1 s"),
    (2, "2 s"),
    (5, "5 s"),
    (10, "10 s"),
    (30, "30 s"),
    (60, "1 min"),
    (120, "2 min"),
    (300, "5 min"),
    (600, "10 min"),
    (1800, "30 min"),
    (3600, "1 h"),
    (7200, "2 h"),
    (18000, "5 h"),
    (36000, "10 h"),
    (86400, "1 d"),
    (172800, "2 d"),
    (432000, "5 d"),
    (864000, "10 d"),
    (2592000, "30 d"),
    (8640000, "100 d"),
    (31536000, "1 y"),
]
COST_TICKS = [(10.0**e, f"${10.0**e:g}") for e in range(-4, 6)]
# a file has room for more: 3 min and 20 min, $0.02 and $0.05 too
TIME_TICKS_FINE = sorted(
    {
        *TIME_TICKS,
        *[
            (n * scale, f"{n} {unit}")
            for unit, scale, more in (
                ("s", 1, (3, 20)),
                ("min", 60, (3, 4, 20)),
                ("h", 3600, (3, 20)),
                ("d", 86400, (3, 20)),
            )
            for n in more
        ],
    }
)
COST_TICKS_FINE = [(m * 10.0**e, f"${m * 10.0**e:g}") for e in range(-4, 6) for m in (1, 2, 5)]
TOP = 10  # options drawn by rank, before the recommendation, the answers and the best GPU

Kind = Literal[
    "chosen", "measured", "predicted"
]  # the headline's option, and the others by where they come from


def usable(o: RankedOption) -> bool:
    return bool(o.train_seconds) and o.point_cost is not None


def interval(low: float | None, high: float | None) -> tuple[float, float] | None:
    """An option's interval, or None when it has no usable one (a point without a bar)."""
    if low is None or high is None or not math.isfinite(high) or high < low:
        return None
    return low, high


def chart_options(doc: PlanDocument, top: int = TOP) -> list[RankedOption]:
    """The options to draw: the `top` best ranked of those the table shows by default (the cheapest of each GPU
    model at each count, and of the CPUs: the chart's numbers are rows of the table), then the recommendation and
    both answers, and the best-ranked GPU (the break-even line is about GPUs) when they are not among them."""
    from planner.core.shown import shown_options

    ranked = [o for o in doc.plan.options if usable(o)]
    grouped = [o for o in shown_options(doc)[0] if usable(o)]
    shown = grouped[:top]
    wanted = {
        chosen.key
        for rec in (doc.recommendation, *doc.plan.answers.values())
        if (chosen := doc.plan.option_of(rec)) is not None
    }
    shown += [o for o in ranked if o.key in wanted and o not in shown]
    if not any(o.device == "cuda" for o in shown):
        shown += [o for o in ranked if o.device == "cuda"][:1]
    return shown


def ticks(
    table: Sequence[tuple[float, str]], low: float, high: float, most: int
) -> tuple[list[float], list[str]]:
    """Tick positions (log10) and labels within [low, high] (log10), thinned to at most `most`."""
    inside = [(math.log10(v), label) for v, label in table if low <= math.log10(v) <= high]
    step = max(1, math.ceil(len(inside) / max(most, 1)))
    inside = inside[::step]
    return [p for p, _ in inside], [label for _, label in inside]


@dataclass(frozen=True)
class ChartPoint:
    option: RankedOption
    kind: Kind
    x: float  # log10 of the training seconds
    y: float  # log10 of the cost; a free option: the chart's floor
    x_bar: tuple[float, float] | None  # the training-time interval, log10; None: no usable interval
    y_bar: tuple[float, float] | None  # the cost interval, log10

    @property
    def label(self) -> str:
        """The plan table's # of the option."""
        return str(self.option.rank or "-")


@dataclass(frozen=True)
class ChartData:
    points: list[ChartPoint]  # in rank order as chart_options gives them
    break_even: float | None  # the break-even line's height (log10 $); None: no GPU has a speedup
    floor: float  # where free options sit (log10 $)
    box: tuple[
        float, float, float, float
    ]  # x0, x1, y0, y1 (log10): padded, room right of the last point for its label
    has_free: bool  # something sits on the floor: the y axis labels it $0
    x_label: str
    y_label: str

    def x_ticks(self, most: int, fine: bool = False) -> tuple[list[float], list[str]]:
        """At most `most` training-time ticks in human units (1 min, 2 h) inside the box; `fine`: from
        the finer table (3 min, 20 min too)."""
        return ticks(TIME_TICKS_FINE if fine else TIME_TICKS, self.box[0], self.box[1], most)

    def y_ticks(self, most: int, fine: bool = False) -> tuple[list[float], list[str]]:
        """Cost ticks inside the box ($0.01, $1; `fine`: $0.02, $0.05 too), the floor labelled $0 when
        something is free."""
        yt, yl = ticks(COST_TICKS_FINE if fine else COST_TICKS, self.box[2], self.box[3], most)
        if self.has_free:
            keep = [  # a tick within a quarter decade of the floor would print over its $0
                (t, lab) for t, lab in zip(yt, yl) if t > self.floor + FLOOR_CLEARANCE
            ]
            yt, yl = [self.floor, *[t for t, _ in keep]], ["$0", *[lab for _, lab in keep]]
        return yt, yl


FLOOR_CLEARANCE = 0.25  # decades between the $0 floor and the lowest cost tick kept


def _floor(shown: list[RankedOption]) -> float:
    """Where free options sit: a little under the cheapest paid figure (log axes have no $0)."""
    paid = [
        float(v)
        for o in shown
        for v in (o.cost_usd_low, o.point_cost, o.cost_usd_high)
        if v and 0 < v < math.inf
    ]
    return math.log10(min(paid)) - 0.5 if paid else -3.0


def chart_data(doc: PlanDocument, top: int = TOP) -> ChartData | None:
    """The chart of `doc`, or None when no option has a training time and a cost to draw."""
    shown = chart_options(doc, top)
    if not shown:
        return None
    floor = _floor(shown)

    def y_of(cost: float | None) -> float:
        return math.log10(cost) if cost and cost > 0 else floor  # free: the bottom line

    points: list[ChartPoint] = []
    x_all: list[float] = []
    y_all: list[float] = []
    for o in shown:
        x, y = math.log10(o.train_seconds or 1e-3), y_of(o.point_cost)
        x_bar = y_bar = None
        if times := interval(o.train_seconds_low, o.train_seconds_high):
            low, high = (math.log10(max(t, 1e-3)) for t in times)
            x_bar = (low, high)
            x_all += x_bar
        if costs := interval(o.cost_usd_low, o.cost_usd_high):
            y_bar = (y_of(costs[0]), y_of(costs[1]))
            y_all += y_bar
        kind: Kind = (
            "chosen"
            if doc.is_recommended(o)
            else "measured"
            if o.source == "measured"
            else "predicted"
        )
        points.append(ChartPoint(o, kind, x, y, x_bar, y_bar))
        x_all.append(x)
        y_all.append(y)
    line = doc.break_even_cost
    break_even = y_of(line) if line is not None else None
    if break_even is not None:
        y_all.append(break_even)
    x0, x1, y0, y1 = min(x_all), max(x_all), min(y_all), max(y_all)
    pad_x, pad_y = max((x1 - x0) * 0.05, 0.05), max((y1 - y0) * 0.08, 0.1)
    box = (x0 - pad_x, x1 + 3 * pad_x, y0 - pad_y, y1 + pad_y)
    tv = doc.plan.time_value_per_hour
    return ChartData(
        points=points,
        break_even=break_even,
        floor=floor,
        box=box,
        has_free=y0 <= floor,
        x_label="training time (log)",
        y_label=f"cost + waiting at ${tv:g}/h" if tv else "cost (log)",
    )
