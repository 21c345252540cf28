"""Results pane: the options table (the CLI's columns), a cost-vs-time chart with the intervals,
the recommendation with its break-even explanation, and what-if controls that re-plan from the run
journal instantly (the same `replan` as `planner plan`)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Select, Static
from textual_plotext import PlotextPlot

from planner.errors import PlannerError


class ResultsPane(Vertical):
    DEFAULT_CSS = """
    ResultsPane #whatif { height: 3; }
    ResultsPane #whatif Select { width: 16; }
    ResultsPane #whatif Input { width: 14; }
    ResultsPane #options { height: auto; max-height: 10; }
    ResultsPane #chart { height: 1fr; min-height: 8; }
    ResultsPane #recommendation { height: auto; padding: 0 1; }
    """

    def __init__(self):
        super().__init__(id="results")
        self.run_dir: str | None = None
        self.doc: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="whatif"):
            yield Select([("cheapest", "cheapest"), ("fastest", "fastest")], value="cheapest", id="objective", allow_blank=False)
            yield Select([(r, r) for r in self.app.service.regions()], value=self.app.region,
                         id="region-whatif", allow_blank=False)
            yield Select([("on-demand", "on-demand"), ("spot", "spot")], value="on-demand", id="purchase-whatif", allow_blank=False)
            yield Input(placeholder="deadline (e.g. 4h)", id="deadline")
            yield Input(placeholder="time value $/h", id="time-value")
            yield Input(placeholder="local $/h", id="local-price")
        yield DataTable(id="options", cursor_type="row")
        yield PlotextPlot(id="chart")
        yield Static("Run a workload to see the plan.", id="recommendation")

    def on_mount(self) -> None:
        from planner.report import PLAN_COLUMNS

        self.query_one("#options", DataTable).add_columns(*PLAN_COLUMNS)

    def show(self, doc: dict[str, Any]) -> None:
        from rich.text import Text

        from planner.report import is_recommended, plan_row, recommendation_text

        self.doc, self.run_dir = doc, doc.get("run_dir")
        table = self.query_one("#options", DataTable)
        table.clear()
        for o in doc["options"]:  # the CLI's cells, so the two fronts cannot disagree
            style = "bold green" if is_recommended(o, doc) else ""
            table.add_row(*(Text.from_markup(cell, style=style) for cell in plan_row(o)))
        self.query_one("#recommendation", Static).update(recommendation_text(doc))
        self.draw(doc)

    def draw(self, doc: dict[str, Any]) -> None:
        chart = self.query_one("#chart", PlotextPlot)
        plt = chart.plt
        plt.clear_data()
        plt.title("cost vs training time (bars: the intervals)")
        plt.xlabel("training hours")
        plt.ylabel("cost $")
        top = max([o.get("cost_usd_high") or 0.0 for o in doc["options"]] + [0.0])
        plt.ylim(0, top * 1.15 if top > 0 else 1.0)  # costs are never negative
        for o in doc["options"]:
            if o.get("train_seconds") is None:
                continue
            hours = [o["train_seconds_low"] / 3600, o["train_seconds_high"] / 3600]
            costs = [o["cost_usd_low"], o["cost_usd_high"]]
            plt.plot(hours, costs)
            plt.scatter([o["train_seconds"] / 3600], [o["cost_usd"]], label=f"{o['target']} {o['device']}")
        chart.refresh()

    def replan(self) -> None:
        if not self.run_dir:
            return
        from planner.service import parse_duration

        def number(widget_id: str) -> float | None:
            text = self.query_one(widget_id, Input).value.strip()
            return float(text) if text else None

        try:
            deadline_text = self.query_one("#deadline", Input).value.strip()
            deadline = parse_duration(deadline_text) if deadline_text else None
            overrides = {"objective": self.query_one("#objective", Select).value, "deadline_seconds": deadline, "time_value_per_hour": number("#time-value"),
                         "local_price_per_hour": number("#local-price"),
                         "purchase": self.query_one("#purchase-whatif", Select).value,
                         "region": self.query_one("#region-whatif", Select).value}
            doc = self.app.service.replan(self.run_dir, overrides)
        except (PlannerError, ValueError) as exc:
            self.app.notify(exc.render() if isinstance(exc, PlannerError) else str(exc), severity="error")
            return
        self.show(doc)

    def on_select_changed(self, event: Select.Changed) -> None:
        self.replan()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.replan()
