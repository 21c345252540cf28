"""The plan document of each use case, built once: PlanDocument (planner/core/document.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from planner.core.document import PlanDocument, WorkloadSummary

if TYPE_CHECKING:
    from planner.core.decide import Plan
    from planner.core.document import PlanOptions
    from planner.workload.spec import WorkloadSpec


def workload_summary(spec: WorkloadSpec) -> WorkloadSummary:
    return WorkloadSummary(spec.name, spec.model.kind, spec.task, spec.data.samples, spec.batch_size, spec.train.epochs,
                           spec.steps_per_epoch, spec.total_steps, spec.train.precision, spec.data.location)


def plan_document(spec: WorkloadSpec, plan: Plan, options: PlanOptions, run_dir: Path | None, **parts) -> PlanDocument:
    return PlanDocument(workload_summary(spec), plan, options, str(run_dir) if run_dir is not None else None, **parts)
