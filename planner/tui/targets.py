"""Targets pane: the price catalog of the plan's region and purchase option, filterable and
sortable, with each instance's predicted training time and cost from the plan shown; pick the
instances to benchmark (local is always in). A fresh estimate picks the paid benchmarks that would
settle its answer; their worst-case cost against the budget shows before anything starts
(PlannerService.bench_cost, the CLI's pre-flight), and each picked instance's state: the vCPU quota it would launch
against (read from AWS in a worker, as `planner run --dry-run` reads it) and what its latest launch did (another
zone, the fallback, a spot reclaim)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.widgets import DataTable, Input, Label, Select, Static

from planner.errors import PlannerError
from planner.report.choices import choice_reason
from planner.report.plan import PLAN_COLUMNS, plan_row
from planner.report.prices import gpu_cells
from planner.report.text import escape, label_target, short
from planner.service import AwsOptions, PriceQuery, parse_targets
from planner.service.inputs import parse_flag
from planner.tui.messages import TargetsChanged
from planner.tui.typed import planner_app

if TYPE_CHECKING:
    from planner.service import PlanDocument, PriceRow

PICK_LINES = 4  # picks' state lines under the table (the rest counted): the table keeps the screen
WIDE = ("pick", "instance", "vCPUs", "GiB", "GPU", "GPU GB", "$/h", "training time", "cost")
# under 110 columns: what the pick rests on, whole (vCPUs and memory are `planner prices`'s; a column cut at the
# screen's edge read as a wrong number: "1" of 16 vCPUs)
NARROW = ("pick", "instance", "GPU", "$/h", "training time", "cost")


def _field(label: str, widget) -> Horizontal:
    return Horizontal(Label(label, classes="filter-label"), widget, classes="filter")


class TargetsPane(Vertical):
    DEFAULT_CSS = """
    TargetsPane #filters { grid-size: 4; grid-gutter: 0 2; height: auto; padding: 0 1; }
    TargetsPane .filter { height: 1; }
    TargetsPane .filter-label { width: auto; padding-right: 1; color: $text-muted; }
    TargetsPane .filter Select, TargetsPane .filter Input { width: 1fr; }
    TargetsPane #catalog { height: 1fr; margin-top: 1; }
    TargetsPane #selection { height: auto; max-height: 9; padding: 0 1; }
    TargetsPane #price-source { height: auto; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("space", "toggle", "Pick"),
        Binding("a", "suggested", "Suggested"),
        Binding("u", "local_only", "Local only"),
    ]

    def __init__(self) -> None:
        super().__init__(id="targets")
        self.selected: list[str] = []
        self.suggested: dict[
            str, str
        ] = {}  # target -> why a paid benchmark would settle the answer
        self.doc: PlanDocument | None = None
        self.rows: tuple[PriceRow, ...] | None = None
        self._order: tuple[str, ...] = ()
        self.quotas: dict[str, str] = {}  # target -> its vCPU quota's state, as last read
        self.quotas_read: tuple[str, ...] = ()  # the instance types they were read for
        self.launches: dict[str, str] = {}  # target -> what its latest launch did (a run's notice)

    def compose(self) -> ComposeResult:
        with Grid(id="filters"):
            yield _field(
                "show",
                Select(
                    [("all", "all"), ("GPU", "gpu"), ("CPU", "cpu")],
                    value="all",
                    id="kind",
                    allow_blank=False,
                    compact=True,
                ),
            )
            yield _field(
                "sort",
                Select(
                    [("price", "price"), ("GPU memory", "gpu-memory")],
                    value="price",
                    id="sort",
                    allow_blank=False,
                    compact=True,
                ),
            )
            yield _field("max $/h", Input(placeholder="any", id="max-price", compact=True))
            yield _field("min GB/GPU", Input(placeholder="any", id="min-gpu", compact=True))
        yield DataTable(id="catalog", cursor_type="row", zebra_stripes=True)
        yield Static("", id="selection")
        yield Static("", id="price-source")

    def on_mount(self) -> None:
        # after the first frame: reading the catalog imports pandas (~0.5 s)
        self.call_after_refresh(self.refresh_rows)

    def on_resize(self) -> None:
        # after the resize is laid out: rebuilt during it, columns kept old widths
        if self._order != self._columns():
            self.call_after_refresh(self.refresh_rows)

    def _columns(self) -> tuple[str, ...]:
        return WIDE if self.app.size.width >= 110 else NARROW

    def _number(self, widget_id: str, flag: str, name: str) -> float | None:
        """A filter's value by the CLI's rule for its flag; a bad one is said and ignored."""
        text = self.query_one(widget_id, Input).value.strip()
        try:
            return parse_flag(flag, text) if text else None
        except ValueError as exc:
            self.app.notify(f"{name}: {exc}", severity="error")
            return None

    def _estimates(self) -> dict[str, tuple[str, str]]:
        """target -> (training time, cost) cells of the plan shown (the CLI's cells)."""
        if not self.doc:
            return {}
        time_at, cost_at = PLAN_COLUMNS.index("training time"), PLAN_COLUMNS.index("cost")
        out: dict[str, tuple[str, str]] = {}
        for o in self.doc.plan.options:
            cells = plan_row(o)
            out.setdefault(o.target, (cells[time_at], cells[cost_at]))
        return out

    def refresh_rows(self) -> None:
        app = planner_app(self)
        kind = str(self.query_one("#kind", Select).value)
        query = PriceQuery(
            region=app.region,
            gpu={"gpu": True, "cpu": False}.get(kind),
            max_price=self._number("#max-price", "--max-price", "max $/h"),
            min_gpu_memory_gb=self._number("#min-gpu", "--min-gpu-memory", "min GB/GPU"),
            purchase=app.purchase,
            sort=str(self.query_one("#sort", Select).value),
        )
        try:
            prices = app.service.account.prices(query)
        except PlannerError as exc:
            self.app.notify(exc.render(), severity="error")
            return
        self.rows = prices.rows
        table = self.query_one("#catalog", DataTable)
        self._order = self._columns()
        table.clear(columns=True)
        for name in self._order:
            table.add_column(name, key=name)
        estimates = self._estimates()
        for r in prices.rows:
            target = f"aws:{r.instance_type}"
            price = r.price_usd_per_hour
            time_cell, cost_cell = estimates.get(target, ("-", "-"))
            gpu, gpu_mem = gpu_cells(r)
            cells = {
                "pick": "✓" if target in self.selected else "",
                "instance": r.instance_type,
                "vCPUs": str(r.vcpus),
                "GiB": f"{r.memory_gib:g}",
                "GPU": gpu,
                "GPU GB": gpu_mem,
                "$/h": "-" if price is None else f"{price:.4f}",
                "training time": time_cell,
                "cost": cost_cell,
            }
            table.add_row(*(Text.from_markup(cells[name]) for name in self._order), key=target)
        self.query_one("#price-source", Static).update(
            Text(
                f"{app.region}, {app.purchase}: {prices.source}, as of {prices.as_of}; $/h: the instance "
                "(the plan's adds its disk)"
            )
        )
        self.show_selection()

    def show_plan(self, doc: PlanDocument, fresh: bool) -> None:
        """The plan's predictions in the table; a fresh estimate picks its suggested benchmarks, and a re-plan (a
        what-if, a length) picks its own while the picks are still the last suggestion's (none edited by hand)."""
        following = fresh or self.selected == list(self.suggested)
        self.doc = doc
        self.suggested = {
            c.target: choice_reason(c) for c in doc.suggested_benchmarks
        }  # none when training here wins clearly
        if following:
            self.selected = list(self.suggested)
        self.refresh_rows()

    def on_select_changed(self, event: Select.Changed) -> None:
        if self.rows is not None:
            self.refresh_rows()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.refresh_rows()

    def action_toggle(self) -> None:  # type: ignore[override]  # the pane's own action, not DOMNode's toggle of an attribute
        table = self.query_one("#catalog", DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key is None:
            return
        if key in self.selected:
            self.selected.remove(key)
        else:
            self.selected.append(key)
        table.update_cell(key, "pick", "✓" if key in self.selected else "")
        self.show_selection()

    def action_suggested(self) -> None:
        self.selected = list(self.suggested)
        self.refresh_rows()
        if not self.suggested:
            self.app.notify(
                "no paid benchmark suggested: the plan is clear without one (or not made yet: e estimates)"
            )

    def action_local_only(self) -> None:
        self.selected = []
        self.refresh_rows()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_toggle()

    def show_selection(self) -> None:
        app = planner_app(self)
        aws = AwsOptions(region=app.region, purchase=app.purchase)
        targets = ["local", *self.selected]
        lines = [
            f"[b]targets[/]: {', '.join(targets)}   (space picks, a: the suggested, u: local only, r runs)"
        ]
        aws_types = parse_targets(",".join(targets)).aws_types
        if aws_types:
            try:
                worst = app.service.bench_cost(aws_types, aws)
                lines.append(
                    f"worst-case bench cost ${worst:.2f} of the ${aws.bench_budget:.2f} budget "
                    f"({aws.max_bench_minutes:g} min dead-man + grace each)"
                )
            except PlannerError as exc:
                lines.append(f"[red]{escape(exc.message)}[/]")
            if "" in self.quotas:
                lines.append(short(self.quotas[""], max(30, self.app.size.width - 4)))
        picks = []
        for target in self.selected:
            quota = self.quotas.get(target, "")
            launch = f"last launch: {self.launches[target]}" if target in self.launches else ""
            state = [
                part
                for part in ((quota, launch) if "OVER" in quota else (launch, quota))
                + (self.suggested.get(target),)
                if part
            ]
            if state:  # what stops a launch first: a quota over, then one not read, then the rest
                # one line each: the table keeps the screen
                width = max(30, self.app.size.width - len(target) - 8)
                picks.append(
                    (
                        0 if "OVER" in quota else 1 if "not read" in quota else 2,
                        f"  {target}: {short('; '.join(state), width)}",
                    )
                )
        picks.sort(key=lambda pick: pick[0])
        shown = picks if len(picks) <= PICK_LINES else picks[: PICK_LINES - 1]
        lines += [line for _, line in shown]
        if len(shown) < len(picks):
            over = sum(1 for rank, _ in picks[len(shown) :] if rank == 0)
            lines.append(
                f"  … {len(picks) - len(shown)} more picks, "
                + (f"{over} of them over a quota" if over else "none over its quota")
            )
        self.query_one("#selection", Static).update(Text.from_markup("\n".join(lines)))
        if tuple(aws_types) != self.quotas_read:
            self.quotas_read = tuple(aws_types)
            if aws_types:
                self.read_quotas(tuple(aws_types), aws)
        self.post_message(TargetsChanged(targets))

    @work(thread=True, exclusive=True, group="quotas")
    def read_quotas(self, aws_types: tuple[str, ...], aws: AwsOptions) -> None:
        """The vCPU quotas launching `aws_types` counts against, read from AWS off the UI thread (none without
        credentials here: said so), each picked instance's state shown beside it."""
        app = planner_app(self)
        states: dict[str, str] = {}
        try:
            problem = app.service.account.credentials_problem()
        except PlannerError as exc:  # a profile that is not there: said, as for no credentials
            problem = exc.message
        if problem:
            states = {
                "": "quotas not read: no AWS credentials here (a run that rents needs them)"
            }  # said once
        else:
            try:
                checks = app.service.launch_preview(list(aws_types), aws).quotas
            # over the budget, a region without prices: the budget line says so
            except PlannerError:
                checks = ()
            except Exception as exc:  # noqa: BLE001 - a worker's failure must not end the app: said beside each pick
                checks, states = (
                    (),
                    {f"aws:{t}": f"quota not read ({type(exc).__name__})" for t in aws_types},
                )
            for q in checks:
                # the numbers first: a narrow screen cuts the line's end, where the quota's long name is
                state = (
                    f"OVER its quota: needs {q.needed} vCPUs of {q.limit:g} ({q.used} in use): a run is "
                    f'refused, r says how to raise "{q.name}"'
                    if q.over
                    else f'quota: needs {q.needed} vCPUs of {q.limit:g} ({q.used} in use), "{q.name}"'
                    if q.limit is not None and q.used is not None
                    else f'quota not read: "{q.name}"'
                )
                states.update({f"aws:{t}": state for t in q.types})
                if q.problem:  # why, once for every quota it stopped
                    states[""] = (
                        f"quotas not read: {q.problem} (a launch over one fails with VcpuLimitExceeded)"
                    )
        app.call_from_thread(self._show_quotas, aws_types, states)

    def _show_quotas(self, aws_types: tuple[str, ...], states: dict[str, str]) -> None:
        if aws_types == self.quotas_read:  # still the picks they were read for
            self.quotas = states
            self.show_selection()

    def note_launch(self, label: str, text: str) -> None:
        """A run's notice about a target's launch: kept as its latest state and shown with its quota."""
        self.launches[label_target(label)] = text
        self.show_selection()
