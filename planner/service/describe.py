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

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.workload.footprint import Footprint, Layer
    from planner.workload.spec import WorkloadSpec


class Describer:
    def __init__(self) -> None:
        self._layers: dict[str, list[Layer]] = {}

    def layers(self, spec: WorkloadSpec) -> list[Layer]:
        key = json.dumps(spec.model_dump(mode="json"), sort_keys=True)
        if key not in self._layers:
            self._layers[key] = _describe(spec)
        return self._layers[key]

    def footprint(self, spec: WorkloadSpec, batch_size: int | None = None) -> Footprint:
        from planner.workload.footprint import footprint

        return footprint(spec, self.layers(spec), batch_size)


def _describe(spec: WorkloadSpec) -> list[Layer]:
    from planner.workload.footprint import layer_from_row, layers_of

    layers = layers_of(spec)
    if layers is not None:
        return layers
    from runner.local import DescribeError, describe_model

    try:
        rows = describe_model(spec.to_job())  # the whole job: the task decides the loss it describes
    except DescribeError as exc:
        raise SpecError(str(exc)) from None
    return [layer_from_row(r) for r in rows]


def load(path: str | Path) -> WorkloadSpec:
    from planner.workload.spec import load_spec

    return load_spec(path)


def parse_text(text: str, source: str, base_dir: Path | None) -> WorkloadSpec:
    """A spec typed in an editor (the TUI): the file's own rules, with `source` naming it."""
    from planner.workload.spec import parse_spec_text

    return parse_spec_text(text, source=source if source.endswith((".yaml", ".yml", ".json")) else "spec.yaml",
                           base_dir=base_dir)


def spec_form() -> dict[str, Any]:
    """The spec's fields for a generated form (planner/workload/form.py)."""
    from planner.workload.form import form_fields

    return form_fields()
