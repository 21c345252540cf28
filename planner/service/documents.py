"""The plan document: what `planner run`, `plan` and `estimate` print as JSON and journal as plan.json."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.service.settings import PlanOptions
    from planner.workload.spec import WorkloadSpec


def workload_summary(spec: WorkloadSpec) -> dict[str, Any]:
    return {"name": spec.name, "kind": spec.model.kind, "task": spec.task, "samples": spec.data.samples,
            "batch_size": spec.batch_size, "epochs": spec.train.epochs, "steps_per_epoch": spec.steps_per_epoch,
            "total_steps": spec.total_steps, "precision": spec.train.precision, "data_location": spec.data.location}


def plan_document(spec: WorkloadSpec, plan, options: PlanOptions, run_dir: Path | None) -> dict[str, Any]:
    """The plan as strict JSON data (no infinities: null plus a `<key>_note`)."""
    from planner.report import strict_json

    doc = {"workload": workload_summary(spec), **plan.as_dict(), "plan_options": options.as_dict()}
    if run_dir is not None:
        doc["run_dir"] = str(run_dir)
    return strict_json(doc)
