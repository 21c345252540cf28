"""What-if controls: objective, region, purchase option, deadline, value of waiting time, this
machine's price — each under its own label, so a filled field still says what it is. A change
posts WhatIfChanged with the plan options as PlannerService.plan_options takes them; the rules
(a deadline alone means "cheapest within it", the deadline objective needs one) are the service's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal
from textual.widgets import Input, Label, Select

from planner.errors import PlannerError
from planner.service import OBJECTIVES, PURCHASES, PlanChoice, duration_text
from planner.service.inputs import parse_flag

if TYPE_CHECKING:
    from textual.timer import Timer

    from planner.service import PlanOptions
from planner.tui.messages import WhatIfChanged

OBJECTIVE_CHOICES = tuple((o, o) for o in OBJECTIVES)
TYPED_REPLAN_SECONDS = 1.0  # a typed value re-plans once the field has rested this long
PURCHASE_CHOICES = tuple((p, p) for p in PURCHASES)


def _field(label: str, widget) -> Horizontal:
    return Horizontal(Label(label, classes="whatif-label"), widget, classes="whatif-field")


def _read(flag: str, text: str) -> Any:
    """A field's text by the CLI's rule for `flag` (None: empty); raises ValueError saying what the flag takes."""
    return parse_flag(flag, text.strip()) if text.strip() else None


def _flag_input(flag: str, placeholder: str, widget_id: str) -> Input:
    """A field read by the CLI's rule for `flag`, marked invalid as it is typed (not only when Enter refuses it)."""
    from textual.validation import Function

    def ok(text: str) -> bool:
        try:
            _read(flag, text)
        except ValueError:
            return False
        return True

    return Input(
        placeholder=placeholder,
        id=widget_id,
        compact=True,
        validators=[Function(ok, f"not a value {flag} takes")],
        validate_on=["changed", "submitted", "blur"],
    )


class WhatIf(Grid):
    DEFAULT_CSS = """
    WhatIf { grid-size: 3; grid-gutter: 0 2; height: auto; padding: 0 1; }
    WhatIf .whatif-field { height: 1; }
    WhatIf .whatif-label { width: auto; padding-right: 1; color: $text-muted; }
    WhatIf Select { width: 1fr; }
    WhatIf Input { width: 1fr; }
    WhatIf Input.-invalid { background: $error 30%; }
    """
    # shown: a field that takes typing takes the pane's keys too, so the footer had nothing else to say (a trial)
    BINDINGS = [Binding("escape", "leave", "Back to the table")]

    def __init__(
        self,
        regions: Callable[[], list[str]],
        region: str,
        id: str | None = None,
        purchase: str = "on-demand",
    ):
        """`regions`: the catalog's regions, read after the first frame (reading the catalog imports pandas)."""
        super().__init__(id=id)
        self.read_regions, self.initial_region, self.initial_purchase = regions, region, purchase
        self.regions = [region]  # until the catalog's are read
        # values set_options gave the selects (objective, region, purchase): their echoes are not edits
        self._expected: dict[str, str] = {}
        self._typing: Timer | None = None  # a typed value's re-plan, waiting for the field to rest

    def on_mount(self) -> None:
        self.call_after_refresh(self.load_regions)

    def load_regions(self) -> None:
        """Every region of the catalog in the region select, its value kept (no change event: nothing to re-plan)."""
        if len(self.regions) > 1:
            return
        regions = [*self.read_regions(), "all"]  # all: each instance in its cheapest region
        self.regions = (
            regions if self.initial_region in regions else [self.initial_region, *regions]
        )
        select = self.query_one("#region-whatif", Select)
        value = select.value
        with select.prevent(Select.Changed):
            select.set_options([(r, r) for r in self.regions])
            select.value = value

    def compose(self) -> ComposeResult:
        yield _field(
            "objective",
            Select(
                OBJECTIVE_CHOICES, value="cheapest", id="objective", allow_blank=False, compact=True
            ),
        )
        yield _field(
            "region",
            Select(
                [(r, r) for r in self.regions],
                value=self.initial_region,
                id="region-whatif",
                allow_blank=False,
                compact=True,
            ),
        )
        yield _field(
            "purchase",
            Select(
                PURCHASE_CHOICES,
                value=self.initial_purchase,
                id="purchase-whatif",
                allow_blank=False,
                compact=True,
            ),
        )
        yield _field("deadline", _flag_input("--deadline", "none, e.g. 4h", "deadline"))
        yield _field("waiting $/h", _flag_input("--time-value", "none, e.g. 20", "time-value"))
        yield _field("local $/h", _flag_input("--local-price", "0", "local-price"))

    def options(self) -> PlanChoice:
        """The plan options the controls show, each field read by the CLI's rule for its flag
        (planner.service.inputs); raises ValueError saying what the field accepts."""

        def read(widget_id: str, flag: str, name: str) -> Any:
            try:
                return _read(flag, self.query_one(widget_id, Input).value)
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None

        objective = str(self.query_one("#objective", Select).value)
        deadline = read("#deadline", "--deadline", "deadline")
        if objective == "deadline" and deadline is None:
            # the deadline cleared: the objective a deadline chose goes with it (a trial was left with an objective
            # that refused every plan)
            objective = "cheapest"
        return PlanChoice(
            objective=objective,
            deadline_seconds=deadline,
            time_value_per_hour=read("#time-value", "--time-value", "waiting $/h"),
            local_price_per_hour=read("#local-price", "--local-price", "local $/h") or 0.0,
            region=str(self.query_one("#region-whatif", Select).value),
            purchase=str(self.query_one("#purchase-whatif", Select).value),
        )

    def action_leave(self) -> None:
        """esc leaves a what-if field for the plan's table, where the pane's keys (x, v, g) work again."""
        table = self.screen.query("#options")
        self.screen.set_focus(table.first() if table else None)

    def set_options(self, options: PlanOptions, default_time_value: float | None = None) -> None:
        """Show a plan's options (an opened run's); the change events then match the plan and re-plan
        nothing. `default_time_value`: the $/h of waiting the headline weighed when none was given."""
        self.query_one("#time-value", Input).placeholder = (
            f"default {default_time_value:g}" if default_time_value else "none, e.g. 20"
        )
        deadline = options.deadline_seconds
        self._show("#deadline", "--deadline", duration_text(deadline) if deadline else "")
        tv = options.time_value_per_hour
        # 0: waiting costs nothing, not the default
        self._show("#time-value", "--time-value", f"{tv:g}" if tv is not None else "")
        price = options.local_price_per_hour
        self._show("#local-price", "--local-price", f"{price:g}" if price else "")
        wanted: dict[str, str] = {
            "objective": options.objective,
            "purchase-whatif": options.purchase,
        }
        self.load_regions()
        if options.region in self.regions:
            wanted["region-whatif"] = options.region
        for widget_id, value in wanted.items():
            select = self.query_one(f"#{widget_id}", Select)
            if select.value != value:
                self._expected[widget_id] = value
                select.value = value

    def _show(self, widget_id: str, flag: str, text: str) -> None:
        """A field shows `text` unless what it holds already means the same (90m for 1h30m, 1 for 1s): a plan made
        from a value being typed must not rewrite it under the cursor (a new user's trial: 1, re-planned, became 1s,
        and the 0m typed next made it 10ms)."""
        field = self.query_one(widget_id, Input)

        def value(t: str) -> object:
            try:
                return _read(flag, t)
            except ValueError:
                return t

        if value(field.value) != value(text):
            field.value = text

    def _changed(self) -> None:
        try:
            options = self.options()
        except (PlannerError, ValueError) as exc:
            self.app.notify(
                exc.render() if isinstance(exc, PlannerError) else str(exc), severity="error"
            )
            return
        self.post_message(WhatIfChanged(options))

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self._expected.pop(event.select.id or "", None) == event.value:
            return
        self._changed()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._changed()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Typing re-plans once the field rests TYPED_REPLAN_SECONDS with a value it takes (a new user's trial typed a
        deadline and waited for the plan); a value it does not take is marked, and said as a warning once typing
        rests (Enter says it as an error)."""
        event.stop()
        if self._typing is not None:
            self._typing.stop()
        self._typing = self.set_timer(TYPED_REPLAN_SECONDS, self._typed)

    def _typed(self) -> None:
        self._typing = None
        if self.query_one("#deadline", Input).value.strip().isdigit():
            return  # a bare number is a duration still being typed (1, then 0m): Enter takes it as seconds
        try:
            options = self.options()
        except (
            ValueError
        ) as exc:  # said once typing rests, as a warning: the field may still be half typed
            # (a trial: 'abc' marked red, nothing said, the answer above still for the last value)
            self.app.notify(
                f"{exc} (the plan is unchanged until the value is fixed)", severity="warning"
            )
            return
        except PlannerError:
            return
        self.post_message(WhatIfChanged(options, typed=True))

    def on_input_blurred(self, event: Input.Blurred) -> None:
        self._changed()  # a value typed and left counts too (the pane re-plans only what changed)
