"""Pure: a predicted candidate for every instance of the catalog: a CPU instance scaled from this machine's measured
step (or from the work alone), a GPU instance by the device model at each GPU count it offers (planner/core/
candidates.py holds what a candidate is; planner/core/predict/ the models)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from planner.core.candidates import (
    LOCAL,
    Candidate,
    does_not_fit_note,
    fits,
    noted,
)
from planner.core.decide import ErrorBasis
from planner.core.estimate import (
    StepMeasurement,
    dataset_seconds,
    relative_half_widths,
)
from planner.core.predict import (
    CpuFacts,
    Fabric,
    GpuSpec,
    Interconnect,
    fabric_for,
    kernels_per_step,
    physical_cores,
    predict_cpu,
    predict_cpu_unmeasured,
    predict_data_parallel,
    scaling_note,
)
from planner.core.predict.gpu import Prediction, step_bytes
from planner.core.remarks import (
    BatchSplit,
    GpusIdle,
    NoBandwidth,
    NoGpuSpec,
    OnPaper,
)
from planner.workload.footprint import Footprint, Layer, footprint, merge_identical, sample_bytes
from pricing.facts import InstanceFacts
from runner.bench.result import BenchResult  # a plain dataclass (standard library only)

if TYPE_CHECKING:  # the spec's models (pydantic) are the caller's
    from planner.workload.spec import WorkloadSpec


GPU_COUNTS = (1, 2, 4, 8)  # data-parallel options on one instance: that many of its GPUs
INSTANCE_COUNTS = (2, 4)  # across instances (all their GPUs): predicted on paper, never benchmarked


@dataclass(frozen=True)
class Hardware:
    """The facts the device model needs besides the catalog: GPU specs by name, CPU facts by
    instance family, this machine's CPU facts (None: unknown), calibration corrections by device."""

    gpus: Mapping[str, GpuSpec]
    cpus: Mapping[str, CpuFacts]
    local_cpu: CpuFacts | None = None
    calibration: Mapping[str, float] | None = None
    # multi-GPU instance types
    interconnects: Mapping[str, Interconnect] = field(default_factory=dict)


def rented_fields(facts: InstanceFacts, purchase: str) -> dict[str, Any] | None:
    """The fields every predicted row of a rented instance shares (its target, price, region, purchase) for
    Candidate(**...); None when the instance is not offered that way (spot)."""
    price = facts.price(purchase)
    if price is None:
        return None
    return dict(
        target=f"aws:{facts.instance_type}",
        instance_type=facts.instance_type,
        source="predicted",
        price_per_hour=float(price),
        billing="ec2",
        region=facts.region,
        purchase=purchase,
    )


def predicted_candidates(
    spec: WorkloadSpec,
    fp: Footprint,
    local: BenchResult | None,
    instances: list[InstanceFacts],
    purchase: str,
    hardware: Hardware,
) -> list[Candidate]:
    """A predicted candidate for every instance with a price (`local`: this machine's CPU result,
    which the CPU model scales; without one, CPU instances are predicted from the work alone); a GPU
    instance once per GPU count it offers (`gpu_plans`)."""
    # same prediction, less work (e.g. BERT's 24 identical blocks)
    rows = _SpecRows(
        spec,
        fp,
        merge_identical(list(fp.layers)),
        local,
        hardware,
        setup=float(local.setup_seconds or 0.0) if local is not None else 0.0,
        data_seconds=dataset_seconds(local) if local is not None else 0.0,
    )
    out = []
    for facts in instances:
        common = rented_fields(facts, purchase)
        if common is None:  # spot not offered
            continue
        out += rows.gpus(facts, common) if facts.gpu_count else [rows.cpu(facts, common)]
    return out


@dataclass(frozen=True)
class _SpecRows:
    """What every predicted row of a spec rests on: the spec, its footprint and (merged) layers, this machine's
    CPU result (None: none), the hardware facts, and the run's one-time work measured here."""

    spec: WorkloadSpec
    fp: Footprint
    layers: list[Layer]
    local: BenchResult | None
    hardware: Hardware
    setup: float
    data_seconds: float

    def step(self, seconds: float, low: float, high: float) -> StepMeasurement:
        return StepMeasurement(seconds, low, high, self.setup, data_seconds=self.data_seconds)

    def cpu(self, facts: InstanceFacts, common: dict[str, Any]) -> Candidate:
        """A CPU instance: this machine's step scaled by processor, or the work alone without one."""
        name = f"{facts.vcpus} vCPU {facts.arch}"
        memory = facts.memory_gib * 2**30
        ok = fits(self.fp.total_bytes, memory)
        note = None if ok else does_not_fit_note(self.fp.total_bytes, memory)
        pred, low, high, basis = self._cpu_prediction(facts)
        if pred.step_seconds is None or low is None or high is None:
            return Candidate(
                **common, device="cpu", device_name=name, fits=ok, note=noted(note, pred.note)
            )
        return Candidate(
            **common,
            device="cpu",
            device_name=name,
            step=self.step(pred.step_seconds, low, high),
            fits=ok,
            note=noted(note or pred.note),
            basis=basis,
        )

    def _cpu_prediction(
        self, facts: InstanceFacts
    ) -> tuple[Prediction, float | None, float | None, ErrorBasis]:
        """The CPU instance's step: (prediction, low, high, what its error rests on)."""
        spec, local, hardware = self.spec, self.local, self.hardware
        cores = physical_cores(facts.vcpus, facts.arch, facts.instance_type)
        flops_per_step = self.fp.train_flops_per_sample * spec.batch_size
        # nothing measured here: from the work alone
        if local is None or local.status != "ok" or local.step_seconds is None:
            pred = predict_cpu_unmeasured(
                flops_per_step,
                kernels_per_step(self.layers, spec.train.optimizer, spec.train.precision),
                cores,
                hardware.cpus.get(facts.family),
                spec.train.precision,
                moved_bytes=step_bytes(
                    self.layers, spec.batch_size, spec.train.precision, spec.train.optimizer
                ),
            )
            return pred, pred.low, pred.high, ErrorBasis(model="cpu-roofline")
        pred = predict_cpu(
            local.step_seconds,
            int(local.threads or 1),
            cores,
            flops_per_step,
            (hardware.calibration or {}).get(f"cpu:{facts.family}"),
            local=hardware.local_cpu,
            target=hardware.cpus.get(facts.family),
            precision=spec.train.precision,
        )
        measured = StepMeasurement.from_result(local)
        # the bench's interval and its run-to-run noise: shared
        below, above = relative_half_widths(measured)
        basis = ErrorBasis(
            model="cpu-model", bench=LOCAL.label("cpu"), bench_below=below, bench_above=above
        )
        return (pred, *widened(pred, measured), basis)

    def gpus(self, facts: InstanceFacts, common: dict[str, Any]) -> list[Candidate]:
        """The instance's GPU counts, each priced at the whole instance (times the instances it rents)."""
        spec = self.spec
        gpu = self.hardware.gpus.get(facts.gpu_name)
        link = self.hardware.interconnects.get(facts.instance_type)
        out = []
        for n, k in gpu_plans(facts, link, spec.train.max_gpus):
            total = n * k
            base = {
                **common,
                "price_per_hour": common["price_per_hour"] * k,
                "device": "cuda",
                "gpus_used": total,
                "instances": k,
                "device_name": facts.gpu_name,
            }
            if gpu is None:
                out.append(Candidate(**base, note=(NoGpuSpec(facts.gpu_name),)))
                continue
            if spec.batch_size % total:
                out.append(Candidate(**base, note=(BatchSplit(spec.batch_size, total),)))
                continue
            fabric = fabric_for(link, gpu.arch, n, k) if total > 1 and link is not None else None
            if isinstance(fabric, NoBandwidth):
                out.append(Candidate(**base, note=(fabric,)))
                continue
            out.append(self._gpu(gpu, facts, (n, k), fabric, base))
        return out

    def _gpu(
        self,
        gpu: GpuSpec,
        facts: InstanceFacts,
        counts: tuple[int, int],
        fabric: Fabric | None,
        base: dict[str, Any],
    ) -> Candidate:
        """One GPU count: the data-parallel prediction, the per-GPU memory check, and the note that
        says how it scales (and, across instances, on what assumptions)."""
        spec, fp, hardware = self.spec, self.fp, self.hardware
        n, k = counts
        total = n * k
        memory = float(facts.gpu_memory_gib or 0.0) * 2**30
        need = footprint(spec, list(fp.layers), spec.batch_size // total).total_bytes + (
            fp.gradients_bytes if total > 1 else 0
        )
        ok = fits(need, memory)
        pred = predict_data_parallel(
            self.layers,
            gpu,
            spec.batch_size,
            total,
            fabric,
            spec.train.precision,
            spec.train.optimizer,
            sample_bytes(spec) if spec.data.location == "host" else 0.0,
            (hardware.calibration or {}).get(facts.gpu_name),
            timeline_layers=list(fp.layers),
        )
        link = hardware.interconnects[facts.instance_type] if k > 1 else None
        note = noted(
            None if ok else does_not_fit_note(need, memory, per_gpu=True),
            GpusIdle(1, facts.gpu_count) if ok and facts.gpu_count > 1 and total == 1 else None,
            pred.note,
            scaling_note(pred),
            OnPaper(k, float(link.network_gbps or 0.0), bool(link.efa))
            if link is not None
            else None,
        )
        if pred.step_seconds is None or pred.low is None or pred.high is None:
            return Candidate(**base, fits=ok, note=note)
        precision = spec.train.precision
        return Candidate(
            **base,
            step=self.step(pred.step_seconds, pred.low, pred.high),
            fits=ok,
            note=note,
            basis=ErrorBasis(
                model=f"gpu-model:{gpu.arch}:{precision}",
                estimate=f"gpu-model:{gpu.name}:{precision}" if total == 1 else "",
            ),
            scaling_efficiency=pred.scaling_efficiency if total > 1 else None,
        )


def widened(pred: Prediction, measured: StepMeasurement) -> tuple[float | None, float | None]:
    """A CPU instance's step interval: the model's band and the measurement it scales (the bench's own
    interval of its mean), in quadrature — a noisy bench here widens every CPU row it predicts."""
    if pred.step_seconds is None or pred.low is None or pred.high is None:
        return pred.low, pred.high
    if measured.step_seconds <= 0:
        return pred.low, pred.high
    below, above = relative_half_widths(measured, noise=0.0)  # the mean's interval alone
    model_below, model_above = 1 - pred.low / pred.step_seconds, pred.high / pred.step_seconds - 1
    return (
        pred.step_seconds * max(1 - math.hypot(model_below, below), 0.05),
        pred.step_seconds * (1 + math.hypot(model_above, above))
        if math.isfinite(above)
        else math.inf,
    )


def gpu_plans(
    facts: InstanceFacts, link: Interconnect | None, max_gpus: int | None
) -> list[tuple[int, int]]:
    """(GPUs per instance, instances) to offer: 1, 2, 4, 8 of the instance's GPUs when its interconnect
    is known (else 1), and all of them on 2 or 4 instances when its network bandwidth is sourced too;
    at most `max_gpus` GPUs in all."""
    plans = [(n, 1) for n in GPU_COUNTS if n <= facts.gpu_count and (n == 1 or link is not None)]
    if facts.gpu_count > 1 and link is not None and link.network_gbps:
        plans += [(facts.gpu_count, k) for k in INSTANCE_COUNTS]
    return [(n, k) for n, k in plans if max_gpus is None or n * k <= max_gpus] or [(1, 1)]
