"""Describe a workload once per spec: its layers and training footprint.

Built-in kinds are described by pure arithmetic (planner/workload/footprint.py). A `custom` model is
described by importing the user's module — in a child process with a time and memory limit
(runner.local.describe_model), never inside the planner, so a factory that crashes, hangs, exits
or allocates without bound costs an error message, not the planner. Descriptions are cached by
the spec's content: a command describes each spec once however many times it asks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import SpecError
from planner.service.account import Account
from planner.journal import RunJournal
from planner.workload.footprint import layer_from_row, layers_of
from runner.local import describe_model, DescribeError

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.workload.footprint import Footprint, Layer
    from planner.workload.spec import WorkloadSpec


class Describe(Account):
    """Specs: load, check what is being typed, describe (layers and footprint, once per spec), the form."""

    def __init__(self, aws_session: Any = None):
        super().__init__(aws_session)
        self._layers: dict[str, list[Layer]] = {}

    def load(self, path: str | Path) -> WorkloadSpec:
        """Raises SpecError naming the file and the field, with the fix."""
        from planner.workload.spec import load_spec

        return load_spec(path)

    def check_text(self, text: str, source: str, base_dir: Path | None = None) -> tuple[WorkloadSpec, Footprint]:
        """(spec, footprint) of a spec being typed (the TUI's editor), by the file's own rules with
        `source` naming it. Raises SpecError."""
        from planner.workload.spec import parse_spec_text

        spec = parse_spec_text(text, source=source if source.endswith((".yaml", ".yml", ".json")) else "spec.yaml",
                               base_dir=base_dir)
        return spec, self.footprint(spec)

    def layers(self, spec: WorkloadSpec) -> list[Layer]:
        """The model's layers (a custom model described in a child process). Raises SpecError."""
        key = json.dumps(spec.model_dump(mode="json"), sort_keys=True)
        if key not in self._layers:
            self._layers[key] = _describe(spec)
        return self._layers[key]

    def footprint(self, spec: WorkloadSpec, batch_size: int | None = None) -> Footprint:
        """Training memory and FLOPs at the spec's batch (or `batch_size`). Raises SpecError."""
        from planner.workload.footprint import footprint

        return footprint(spec, self.layers(spec), batch_size)

    def spec_form(self) -> dict[str, Any]:
        """The spec's fields for a generated form (planner/workload/form.py)."""
        from planner.workload.form import form_fields

        return form_fields()

    def check_run(self, run_dir: str | Path) -> WorkloadSpec:
        """The spec of a saved run. Raises JournalError naming the file and field unless `run_dir` is one."""
        return RunJournal.open(run_dir).read_spec()


def _describe(spec: WorkloadSpec) -> list[Layer]:
    layers = layers_of(spec)
    if layers is not None:
        return layers

    try:
        rows = describe_model(spec.to_job())  # the whole job: the task decides the loss it describes
    except DescribeError as exc:
        raise SpecError(str(exc)) from None
    return [layer_from_row(r) for r in rows]
