"""PlannerService: every use case, one class (see planner/service/__init__.py for the door's rules)."""

from __future__ import annotations

from planner.service.scripts import Scripts


class PlannerService(Scripts):
    """Every use case, one method each, implemented by the module that owns it (the mixins' chain:
    Account -> Describe -> Measure -> Predict -> Runs -> Scripts). The CLI and the TUI call these and nothing
    below them."""
