"""Messages the panes post to the app (small dataclasses, as Textual apps do): attributes down,
messages up. The app routes what one pane learns to the others."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from planner.service import Measured, PlanChoice, PlanDocument


@dataclass
class SpecChanged(Message):
    """The editor's text was validated: `spec` is the WorkloadSpec, or None when it is invalid."""

    spec: Any
    text: str


@dataclass
class SpecLoaded(Message):
    """A spec file was read into the editor; `estimate`: worth a fresh estimate (not an opened run's spec)."""

    path: str
    estimate: bool = True


@dataclass
class FieldEdited(Message):
    """The form changed one field: `path` is ("name",) or (section, field); None removes it."""

    path: tuple[str, ...]
    value: Any


@dataclass
class KindChosen(Message):
    """The form chose another model kind (its fields are rebuilt)."""

    kind: str


@dataclass
class TargetsChanged(Message):
    targets: list[str]


@dataclass
class WhatIfChanged(Message):
    """The what-if controls changed: the plan options they show. `typed`: a field's value as it rests while typed
    (not yet entered): options the service refuses then wait for Enter to say why."""

    options: PlanChoice
    typed: bool = False


@dataclass
class PlanShown(Message):
    """The Results pane shows a new plan document (None: none any more); `fresh` when it is a new
    estimate of a spec (its suggested benchmarks become the picked targets)."""

    doc: PlanDocument | None
    fresh: bool = False


@dataclass
class PlanStatus(Message):
    """What the Results pane is doing (measuring, stale), for every view of the answers."""

    text: str


@dataclass
class EstimateDone(Message):
    """The estimate stopped measuring this machine (with a plan, or with an error)."""


@dataclass
class RunResult(Message):
    """One target's measurement arrived during a run (label -> result, as the journal has it)."""

    label: str
    measured: Measured


@dataclass
class LaunchNotice(Message):
    """What a run's launch of a target did that the user should know (another zone, the fallback, a reclaim)."""

    label: str
    text: str


@dataclass
class RunFinished(Message):
    doc: PlanDocument | None
    error: str | None = None
