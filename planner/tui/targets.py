"""Targets pane: the price catalog, filterable and sortable; pick targets (local is always in);
the worst-case bench cost against the budget before anything starts."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Select, Static

from planner.errors import PlannerError
from planner.tui.messages import TargetsChanged


class TargetsPane(Vertical):
    DEFAULT_CSS = """
    TargetsPane #filters { height: 3; }
    TargetsPane #filters Select { width: 22; }
    TargetsPane #filters Input { width: 18; }
    TargetsPane #catalog { height: 1fr; }
    TargetsPane #selection { height: auto; padding: 0 1; }
    """
    BINDINGS = [("space", "toggle", "Pick/unpick")]

    def __init__(self):
        super().__init__(id="targets")
        self.selected: list[str] = []
        self.rows = None

    def compose(self) -> ComposeResult:
        catalog = self.app.service.catalog()
        with Horizontal(id="filters"):
            yield Select([(r, r) for r in self.app.service.regions()], value=self.app.region, id="region", allow_blank=False)
            yield Select([("all", "all"), ("GPU", "gpu"), ("CPU", "cpu")], value="all", id="kind", allow_blank=False)
            yield Select([("on-demand", "on-demand"), ("spot", "spot")], value="on-demand", id="purchase", allow_blank=False)
            yield Select([("by price", "price"), ("by GPU memory", "gpu-memory")], value="price", id="sort", allow_blank=False)
            yield Input(placeholder="max $/h", id="max-price")
            yield Input(placeholder="min GPU GiB", id="min-gpu")
        yield DataTable(id="catalog", cursor_type="row", zebra_stripes=True)
        yield Static("", id="selection")
        yield Static(f"prices: {catalog.source}, as of {catalog.as_of}", id="price-source")

    def on_mount(self) -> None:
        table = self.query_one("#catalog", DataTable)
        table.add_columns("pick", "instance", "vCPUs", "GiB", "GPU", "GPU GiB", "$/h", "region")
        self.refresh_rows()

    def _number(self, widget_id: str) -> float | None:
        text = self.query_one(widget_id, Input).value.strip()
        try:
            return float(text) if text else None
        except ValueError:
            self.app.notify(f"{widget_id[1:]}: must be a number, got {text!r}", severity="error")
            return None

    def refresh_rows(self) -> None:
        from planner.service import PriceQuery

        kind = self.query_one("#kind", Select).value
        purchase = self.query_one("#purchase", Select).value
        query = PriceQuery(region=self.query_one("#region", Select).value, gpu={"gpu": True, "cpu": False}.get(kind),
                           max_price=self._number("#max-price"), min_gpu_memory_gib=self._number("#min-gpu"),
                           purchase=purchase, sort=self.query_one("#sort", Select).value)
        try:
            _catalog, rows = self.app.service.prices(query)
        except PlannerError as exc:
            self.app.notify(exc.render(), severity="error")
            return
        self.rows = rows
        self.app.region, self.app.purchase = query.region, purchase
        table = self.query_one("#catalog", DataTable)
        table.clear()
        for _, r in rows.iterrows():
            target = f"aws:{r['instance_type']}"
            gpu = f"{int(r['gpu_count'])}x {r['gpu_name']}" if r["gpu_count"] else "-"
            price = r["price_usd_per_hour"]
            table.add_row("✓" if target in self.selected else "", r["instance_type"], str(int(r["vcpus"])),
                          f"{r['memory_gib']:g}", gpu, "-" if not r["gpu_count"] else f"{r['gpu_memory_gib']:.4g}",
                          "-" if price != price else f"{price:.4f}", r["region"], key=target)
        self.show_selection()

    def on_select_changed(self, event: Select.Changed) -> None:
        if self.rows is not None:
            self.refresh_rows()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.refresh_rows()

    def action_toggle(self) -> None:
        table = self.query_one("#catalog", DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key in self.selected:
            self.selected.remove(key)
        else:
            self.selected.append(key)
        table.update_cell(key, table.ordered_columns[0].key, "✓" if key in self.selected else "")
        self.show_selection()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_toggle()

    def show_selection(self) -> None:
        from planner.service import AwsOptions

        targets = ["local", *self.selected]
        text = f"targets: {', '.join(targets)}"
        aws_types = [t[4:] for t in self.selected]
        if aws_types:
            try:
                worst = self.app.service.bench_cost(aws_types, AwsOptions(region=self.app.region, purchase=self.app.purchase))
                text += f"\nworst-case bench cost ${worst:.2f} of the $2.00 budget (20 min dead-man + 10 min grace each)"
            except PlannerError as exc:
                text += f"\n{exc.message}"
        self.query_one("#selection", Static).update(text)
        self.post_message(TargetsChanged(targets))
