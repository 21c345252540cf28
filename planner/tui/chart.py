"""The plan as a picture: each option's training time against its cost, intervals as error bars,
the recommendation and the break-even line. Design notes: docs/reference/modules.md
(planner/tui/chart.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual_plotext import PlotextPlot

from planner.report.chart import ChartData, chart_data

if TYPE_CHECKING:
    from planner.service import PlanDocument, RankedOption

MEASURED, PREDICTED, CHOSEN = "●", "○", "★"  # the table marks its rows alike
MARKERS = {"chosen": CHOSEN, "measured": MEASURED, "predicted": PREDICTED}
COLORS = {"chosen": "yellow", "measured": "green", "predicted": "cyan"}
LEGEND = (
    f"[green]{MEASURED} measured[/]  [cyan]{PREDICTED} predicted[/]  [yellow]{CHOSEN} recommended[/]  "
    "bars: intervals  [red]── break-even[/]  numbers: the table's #"
)


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
        data = chart_data(doc, self.top) if doc else None
        self.shown = [p.option for p in data.points] if data else []
        if data is None:
            plt.title("cost vs training time: no plan yet")
            self.refresh()
            return
        plt.title("")
        for p in data.points:  # the intervals first, the markers over them
            if p.x_bar:
                plt.plot(list(p.x_bar), [p.y, p.y], color=COLORS[p.kind], marker="─")
            if p.y_bar:
                plt.plot([p.x, p.x], list(p.y_bar), color=COLORS[p.kind], marker="│")
        if data.break_even is not None:
            plt.hline(data.break_even, color="red")
        self._axes(data)
        for p in data.points:
            plt.scatter([p.x], [p.y], marker=MARKERS[p.kind], color=COLORS[p.kind])
        self._labels(data)
        self.refresh()

    def _labels(self, data: ChartData) -> None:
        """Each point's rank right of it, unless it would overwrite a marker or another label."""
        x0, x1, y0, y1 = data.box
        cols, rows = max(self.size.width - 10, 10), max(self.size.height - 4, 4)

        def cell(x: float, y: float) -> tuple[int, int]:
            return round((x - x0) / (x1 - x0) * cols), round((y1 - y) / (y1 - y0) * rows)

        taken = {cell(p.x, p.y) for p in data.points}  # markers
        step = (x1 - x0) / cols
        # best ranks labelled first
        for p in sorted(data.points, key=lambda p: p.option.rank or 1e9):
            col, row = cell(p.x + 1.5 * step, p.y)
            cells = {(col + i, row) for i in range(len(p.label) + 1)}
            if cells & taken:
                continue
            taken |= cells
            self.plt.text(p.label, p.x + 1.5 * step, p.y, color=COLORS[p.kind], alignment="left")

    def _axes(self, data: ChartData) -> None:
        plt = self.plt
        plt.xlim(data.box[0], data.box[1])
        plt.ylim(data.box[2], data.box[3])
        width, height = max(self.size.width, 40), max(self.size.height, 8)
        plt.xticks(*data.x_ticks(width // 10))
        plt.yticks(*data.y_ticks(height // 3))
        plt.xlabel(data.x_label)
        plt.ylabel(data.y_label)
