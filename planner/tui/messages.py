"""Messages the panes post to the app (small dataclasses, as Textual apps do)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class SpecChanged(Message):
    spec: Any  # WorkloadSpec | None
    text: str


@dataclass
class TargetsChanged(Message):
    targets: list[str]


@dataclass
class RunFinished(Message):
    doc: dict[str, Any] | None
    error: str | None = None


@dataclass
class FormEdited(Message):
    data: dict[str, Any]  # the spec the form shows, to be written into the YAML editor
