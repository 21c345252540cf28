"""The plan as a picture people read: training time (log axis, in s / min / h / d) against cost
(log axis, in dollars — billed cost, plus waiting when a time value is set, as the plan weighs it;
free options on the bottom line), each option's interval as error bars, measured (●) and predicted
(○) apart, the recommendation (★), and the break-even line (red): the reference CPU option's cost,
below which a GPU pays for itself (PlanDocument.break_even_cost).

With 40 options it stays legible: the top N by rank, plus the recommendation and both answers when
they rank lower; each point carries its rank (the table's #) unless another label is in the way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual_plotext import PlotextPlot

if TYPE_CHECKING:
    from planner.service import PlanDocument, RankedOption

TIME_TICKS = [(1, "1 s"), (2, "2 s"), (5, "5 s"), (10, "10 s"), (30, "30 s"), (60, "1 min"), (120, "2 min"),
              (300, "5 min"), (600, "10 min"), (1800, "30 min"), (3600, "1 h"), (7200, "2 h"), (18000, "5 h"),
              (36000, "10 h"), (86400, "1 d"), (172800, "2 d"), (432000, "5 d"), (864000, "10 d"), (2592000, "30 d"),
              (8640000, "100 d"), (31536000, "1 y")]
COST_TICKS = [(10.0 ** e, f"${10.0 ** e:g}") for e in range(-4, 6)]
MEASURED, PREDICTED, CHOSEN = "●", "○", "★"  # the table marks its rows alike
LEGEND = (f"[green]{MEASURED} measured[/]  [cyan]{PREDICTED} predicted[/]  [yellow]{CHOSEN} recommended[/]  "
          "bars: intervals  [red]── break-even[/]  numbers: the table's #")


def usable(o: RankedOption) -> bool:
    return bool(o.train_seconds) and o.point_cost is not None


def interval(low: float | None, high: float | None) -> tuple[float, float] | None:
    """An option's interval, or None when it has no usable one (a point without a bar)."""
    if low is None or high is None or not math.isfinite(high) or high < low:
        return None
    return low, high


def chart_options(doc: PlanDocument, top: int) -> list[RankedOption]:
    """The options to draw: the `top` best ranked, then the recommendation and both answers, and the
    best-ranked GPU (the break-even line is about GPUs) when they rank lower."""
    ranked = [o for o in doc.plan.options if usable(o)]
    shown = ranked[:top]
    wanted = {chosen.key for rec in (doc.recommendation, *doc.plan.answers.values())
              if (chosen := doc.plan.option_of(rec)) is not None}
    shown += [o for o in ranked[top:] if o.key in wanted]
    if not any(o.device == "cuda" for o in shown):
        shown += [o for o in ranked if o.device == "cuda"][:1]
    return shown


def color(o: RankedOption, doc: PlanDocument) -> str:
    return "yellow" if doc.is_recommended(o) else "green" if o.source == "measured" else "cyan"


def ticks(table: Sequence[tuple[float, str]], low: float, high: float, most: int) -> tuple[list[float], list[str]]:
    """Tick positions (log10) and labels within [low, high] (log10), thinned to at most `most`."""
    inside = [(math.log10(v), label) for v, label in table if low <= math.log10(v) <= high]
    step = max(1, math.ceil(len(inside) / max(most, 1)))
    inside = inside[::step]
    return [p for p, _ in inside], [label for _, label in inside]


class PlanChart(PlotextPlot):
    DEFAULT_CSS = """
    PlanChart { height: 1fr; min-height: 10; }
    """

    def __init__(self, top: int = 10, id: str | None = None):
        super().__init__(id=id)
        self.top = top
        self.doc: PlanDocument | None = None
        self.shown: list[RankedOption] = []

    def show(self, doc: PlanDocument | None) -> None:
        self.doc = doc
        self.draw()

    def on_resize(self) -> None:
        self.draw()

    def draw(self) -> None:
        plt, doc = self.plt, self.doc
        plt.clear_data()
        self.shown = shown = chart_options(doc, self.top) if doc else []
        if doc is None or not shown:
            plt.title("cost vs training time: no plan yet")
            self.refresh()
            return
        plt.title("")
        floor = self._floor(shown)

        def y_of(cost: float | None) -> float:
            return math.log10(cost) if cost and cost > 0 else floor  # free: the bottom line

        points = []
        x_all, y_all = [], []
        for o in shown:  # the intervals first, the markers over them
            x, y, c = math.log10(o.train_seconds or 1e-3), y_of(o.point_cost), color(o, doc)
            points.append((o, x, y, c))
            x_all.append(x)
            y_all.append(y)
            if times := interval(o.train_seconds_low, o.train_seconds_high):
                bar = [math.log10(max(t, 1e-3)) for t in times]
                plt.plot(bar, [y, y], color=c, marker="─")
                x_all += bar
            if costs := interval(o.cost_usd_low, o.cost_usd_high):
                bar = [y_of(v) for v in costs]
                plt.plot([x, x], bar, color=c, marker="│")
                y_all += bar
        line = doc.break_even_cost
        if line is not None:
            plt.hline(y_of(line), color="red")
            y_all.append(y_of(line))
        box = self._axes(min(x_all), max(x_all), min(y_all), max(y_all), floor)
        for o, x, y, c in points:
            marker = CHOSEN if doc.is_recommended(o) else MEASURED if o.source == "measured" else PREDICTED
            plt.scatter([x], [y], marker=marker, color=c)
        self._labels(points, box)
        self.refresh()

    def _labels(self, points: list, box: tuple[float, float, float, float]) -> None:
        """Each point's rank right of it, unless it would overwrite a marker or another label."""
        x0, x1, y0, y1 = box
        cols, rows = max(self.size.width - 10, 10), max(self.size.height - 4, 4)

        def cell(x: float, y: float) -> tuple[int, int]:
            return round((x - x0) / (x1 - x0) * cols), round((y1 - y) / (y1 - y0) * rows)

        taken = {cell(x, y) for _, x, y, _ in points}  # markers
        step = (x1 - x0) / cols
        for o, x, y, c in sorted(points, key=lambda p: p[0].rank or 1e9):  # best ranks labelled first
            text = str(o.rank or "-")
            col, row = cell(x + 1.5 * step, y)
            cells = {(col + i, row) for i in range(len(text) + 1)}
            if cells & taken:
                continue
            taken |= cells
            self.plt.text(text, x + 1.5 * step, y, color=c, alignment="left")

    @staticmethod
    def _floor(shown: list[RankedOption]) -> float:
        """Where free options sit: a little under the cheapest paid figure (log axes have no $0)."""
        paid = [float(v) for o in shown for v in (o.cost_usd_low, o.point_cost, o.cost_usd_high) if v and 0 < v < math.inf]
        return math.log10(min(paid)) - 0.5 if paid else -3.0

    def _axes(self, x0: float, x1: float, y0: float, y1: float, floor: float) -> tuple[float, float, float, float]:
        plt = self.plt
        pad_x, pad_y = max((x1 - x0) * 0.05, 0.05), max((y1 - y0) * 0.08, 0.1)
        box = (x0 - pad_x, x1 + 3 * pad_x, y0 - pad_y, y1 + pad_y)  # room right of the last point for its label
        plt.xlim(box[0], box[1])
        plt.ylim(box[2], box[3])
        width, height = max(self.size.width, 40), max(self.size.height, 8)
        plt.xticks(*ticks(TIME_TICKS, box[0], box[1], width // 10))
        yt, yl = ticks(COST_TICKS, box[2], box[3], height // 3)
        if y0 <= floor:
            keep = [(t, lab) for t, lab in zip(yt, yl) if t > floor]
            yt, yl = [floor, *[t for t, _ in keep]], ["$0", *[lab for _, lab in keep]]
        plt.yticks(yt, yl)
        tv = self.doc.plan.time_value_per_hour if self.doc is not None else None
        plt.xlabel("training time (log)")
        plt.ylabel(f"cost + waiting at ${tv:g}/h" if tv else "cost (log)")
        return box
