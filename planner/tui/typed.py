"""The app a pane belongs to, typed: Textual gives each widget `self.app` as a plain `App`; the
planner's panes read the PlannerApp's service and settings (region, purchase, AMI, bench seconds)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from planner.tui.app import PlannerApp


def planner_app(node: DOMNode) -> PlannerApp:
    return cast("PlannerApp", node.app)
