"""Pure: the typed candidates a plan compares, built once from measurements and predictions. Design
notes: docs/reference/modules.md (planner/core/candidates.py)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from planner.core.decide import ErrorBasis, Option
from planner.core.estimate import (
    StepMeasurement,
    dataset_seconds,
    estimate_training,
    relative_half_widths,
)
from planner.core.remarks import (
    AtTarget,
    BenchFailed,
    DataModelled,
    DoesNotFit,
    MeasuredBusy,
    Remark,
    Said,
    remark_from_json,
)
from pricing.facts import InstanceFacts
from runner.bench.result import BenchResult  # a plain dataclass (standard library only)

if TYPE_CHECKING:  # the spec's models (pydantic) are the caller's
    pass

# a workload fits when its footprint is at most 90% of the memory (allocator, CUDA context)
FIT_FRACTION = 0.9


def fits(need_bytes: float, memory_bytes: float) -> bool:
    return need_bytes <= FIT_FRACTION * memory_bytes


def does_not_fit_note(
    need_bytes: float, memory_bytes: float, per_gpu: bool = False, where: str = ""
) -> DoesNotFit:
    """The fit rule with its numbers: needs ~22.7 GiB; may use 20.5 GiB (90% of 22.8 GiB)."""
    return DoesNotFit(need_bytes, memory_bytes, FIT_FRACTION, per_gpu, where)


def noted(*remarks: Remark | None) -> tuple[Remark, ...]:
    """An option's notes: the remarks given, in order, none left out but the Nones."""
    return tuple(x for x in remarks if x is not None)


@dataclass(frozen=True, order=True)
class Target:
    """Where a bench runs: `local` (this machine) or `aws:INSTANCE_TYPE`. A value, not a string
    to slice: `name` is what users type and plans show, `label(device)` names its journal file."""

    kind: str  # "local" | "aws"
    instance_type: str | None = None

    @classmethod
    def parse(cls, text: str) -> Target:
        if text == "local":
            return cls("local")
        if text.startswith("aws:") and len(text) > 4:
            return cls("aws", text[4:])
        raise ValueError(f"unknown target {text!r}: use local or aws:INSTANCE_TYPE")

    @classmethod
    def from_label(cls, label: str) -> Target:
        """A journal file's stem ("local-cpu", "aws-g5.xlarge") back to its target."""
        if label.startswith("aws-"):
            return cls("aws", label[4:])
        return cls("local")

    @property
    def name(self) -> str:
        return "local" if self.kind == "local" else f"aws:{self.instance_type}"

    @staticmethod
    def shown(label: str) -> str:
        """A journal label as lines name it, the plan's way: aws-g5.xlarge -> aws:g5.xlarge, local-cpu -> local;
        this machine's other device keeps its label (local-cuda)."""
        name = Target.from_label(label).name
        return name if name != "local" or label in ("local", "local-cpu") else label

    @property
    def cloud(self) -> bool:
        return self.kind == "aws"

    def label(self, device: str | None = None) -> str:
        """File-name-safe: local-cpu, local-cuda, aws-g5.xlarge (an instance's device is its own)."""
        return f"local-{device}" if self.kind == "local" else f"aws-{self.instance_type}"

    def __str__(self) -> str:
        return self.name


LOCAL = Target("local")


@dataclass(frozen=True)
class Candidate(Option):
    """An option before its whole run is estimated: its step, measured or predicted, is known."""

    step: StepMeasurement | None = None  # None: failed, does not fit, or not predicted

    def option(self, total_steps: int) -> Option:
        """The candidate with its whole run estimated (planner/core/estimate.py)."""
        base = Option(**{f.name: getattr(self, f.name) for f in fields(Option)})
        if self.step is None:
            return base
        est = estimate_training(self.step, total_steps, cloud=self.billing == "ec2")
        return replace(
            base,
            step_seconds=self.step.step_seconds,
            step_seconds_low=self.step.step_seconds_ci_low,
            step_seconds_high=self.step.step_seconds_ci_high,
            train_seconds=est.seconds,
            train_seconds_low=est.low,
            train_seconds_high=est.high,
            one_time_seconds=est.one_time_seconds,
            data_seconds=est.data_seconds,
            interval_note=est.note,
        )


def measured_candidate(
    target: Target,
    result: BenchResult,
    price_per_hour: float,
    region: str | None = None,
    purchase: str | None = None,
    need_bytes: int | None = None,
    facts: InstanceFacts | None = None,
) -> Candidate:
    """A candidate from one bench result. `need_bytes`: what the real run holds (the whole dataset
    too), checked against the memory the bench found free there — the bench itself held only a
    pool of batches, so it can measure a workload whose real run does not fit. `facts`: the
    instance's catalog row, which names the device of a benchmark that failed before it saw one."""
    # failed before it saw a device: the instance's own
    if result.status != "ok" and facts is not None:
        device = "cuda" if facts.gpu_count else "cpu"
    else:
        device = result.device or "cpu"
    common: dict[str, Any] = dict(
        target=target.name,
        instance_type=target.instance_type,
        device=device,
        source="measured",
        price_per_hour=price_per_hour,
        billing="ec2" if target.cloud else "local",
        device_name=result.device_name or (facts.gpu_name if facts is not None else ""),
        region=region if target.cloud else None,
        purchase=purchase if target.cloud else None,
        gpus_used=int(getattr(result, "processes", 1) or 1) if device == "cuda" else None,
    )
    if result.status != "ok":
        return Candidate(
            **common,
            fits=result.status != "does_not_fit",
            failed=result.status != "does_not_fit",
            note=(BenchFailed(result.message or result.status),),
        )
    caveat = MeasuredBusy() if getattr(result, "machine_busy", False) else None
    step = StepMeasurement.from_result(result)
    label = target.label(device)
    below, above = relative_half_widths(step)
    basis = ErrorBasis(model=f"measured:{label}", bench=label, bench_below=below, bench_above=above)
    have = getattr(result, "memory_available_bytes", None)
    if need_bytes and have and not fits(need_bytes, have):
        where = "here" if not target.cloud else f"on {result.device_name or target.name}"
        return Candidate(
            **common,
            step=step,
            caveat=caveat,
            fits=False,
            basis=basis,
            note=(does_not_fit_note(need_bytes, have, where=where),),
        )
    return Candidate(**common, step=step, caveat=caveat, basis=basis)


def measurement_said(label: str, result: BenchResult) -> Said:
    """What the bench saw (variation, warm-up, interval, a busy machine), for the plan's warnings,
    and, when the bench held a pool of batches smaller than the dataset, what was measured and what
    was modelled (a note)."""
    name = Target.shown(label)
    modelled = data_note(result)
    return Said(
        [AtTarget(name, remark_from_json(w)) for w in result.warnings or []],
        [AtTarget(name, modelled)] if modelled else [],
    )


def data_note(result: BenchResult) -> DataModelled | None:
    """What the bench measured on its bounded pool of batches and what the plan models for the whole
    dataset (None when the pool was the whole dataset)."""
    pool, total = (
        getattr(result, "data_pool_bytes", 0) or 0,
        getattr(result, "dataset_bytes", 0) or 0,
    )
    if result.status != "ok" or not pool or total <= pool:
        return None
    return DataModelled(result.data_pool_samples, pool, total, dataset_seconds(result))
