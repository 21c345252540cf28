"""Pure: a CPU instance's training step, from this machine's measured step and both processors'
facts. Design notes: docs/reference/modules.md (planner/core/predict/cpu.py)."""

from __future__ import annotations

from planner.core.predict.gpu import Prediction
from planner.core.remarks import CpuNoBf16, FromWorkAlone, NoCpuClock, Remark
from pricing.facts import AMX_BF16_FLOPS_PER_CYCLE as AMX_BF16_FLOPS_PER_CYCLE
from pricing.facts import CpuFacts as CpuFacts

CPU_UNCERTAINTY = 0.4
CALIBRATED_UNCERTAINTY = 0.2
PARALLEL_HALF_FLOPS = 5e7  # work per step at which half of it parallelizes (Amdahl heuristic)
VECTOR_EXPONENT = 0.5  # assumption: doubling peak vector FLOPs buys ~1.4x in end-to-end training


def cpu_speed_ratio(local: CpuFacts, target: CpuFacts, precision: str) -> tuple[float, float]:
    """(scalar, vector) speed of one target core over one local core."""
    scalar = (target.clock_ghz * target.ipc) / (local.clock_ghz * local.ipc)
    vector = (target.clock_ghz * target.flops_per_cycle(precision)) / (
        local.clock_ghz * local.flops_per_cycle(precision)
    )
    return scalar, vector**VECTOR_EXPONENT * (target.ipc / local.ipc)


def parallel_fraction(train_flops_per_step: float) -> float:
    return train_flops_per_step / (train_flops_per_step + PARALLEL_HALF_FLOPS)


def physical_cores(vcpus: int, arch: str, family: str) -> int:
    """Graviton (arm64) and AMD c7a have one core per vCPU; other x86 instances two vCPUs per core."""
    if arch == "arm64" or family.startswith("c7a"):
        return vcpus
    return max(1, vcpus // 2)


def predict_cpu(
    local_step_seconds: float,
    local_threads: int,
    cores: int,
    train_flops_per_step: float,
    calibration: float | None = None,
    *,
    local: CpuFacts | None = None,
    target: CpuFacts | None = None,
    precision: str = "fp32",
) -> Prediction:
    """Scale this machine's measured step to `cores` cores of `target` (torch uses one thread per
    physical core). Without both processors' facts, per-core speed is taken equal to this machine's."""
    p = parallel_fraction(train_flops_per_step)
    scalar = vector = 1.0
    note: Remark | None = None
    if local is not None and target is not None:
        scalar, vector = cpu_speed_ratio(local, target, precision)
        if precision == "bf16" and not (target.amx or target.bf16):
            note = CpuNoBf16(target.name)
    serial = local_step_seconds * (1 - p) / scalar
    parallel = local_step_seconds * p * local_threads / vector
    step = serial + parallel / max(1, cores)
    rel = CPU_UNCERTAINTY
    if calibration:
        step, rel = step * calibration, CALIBRATED_UNCERTAINTY
    return Prediction(step, step * (1 - rel), step * (1 + rel), note=note)


# --predict-only: no step of the workload was measured anywhere, so a CPU instance's step is built
# from the work alone, as a roofline on its cores: the training FLOPs at a fraction of the
# processor's vector peak, or the bytes the step moves at its memory bandwidth per core, whichever
# is longer, plus a per-kernel dispatch cost (eager PyTorch on a ~3 GHz core) that does not
# parallelize. The constants are fitted by benchmarks/cpu_unmeasured.py (`make bench-cpu`) to this
# project's CPU measurements: six example workloads at 1 and 2 threads on the 2-vCPU AMD EPYC VM
# (AVX-512, 2.6 GHz), 2026-11-22, load average under 0.5 — median factor off 1.28, worst 2.33 (the
# VM's second vCPU adds almost nothing: 2-thread rows are over-predicted), 10 of 12 within +-60%.
# One machine is a thin basis, hence the wide interval. A measured local step (the relative model
# above) is always preferred.
UNMEASURED_EFFICIENCY = 0.28
UNMEASURED_DISPATCH_SECONDS = 12e-6
UNMEASURED_MEMORY_GBPS_PER_CORE = 4.0  # when the processor's figure is not sourced
UNMEASURED_UNCERTAINTY = 0.6


def predict_cpu_unmeasured(
    train_flops_per_step: float,
    kernels: int,
    cores: int,
    target: CpuFacts | None,
    precision: str = "fp32",
    efficiency: float = UNMEASURED_EFFICIENCY,
    dispatch_seconds: float = UNMEASURED_DISPATCH_SECONDS,
    moved_bytes: float = 0.0,
    memory_gbps_per_core: float | None = None,
) -> Prediction:
    """A CPU step with nothing measured: max(FLOPs over `cores` of `target`'s vector peak x efficiency,
    bytes over its memory bandwidth) plus kernels x dispatch (scaled by clock). None without the
    processor's facts."""
    if target is None:
        return Prediction(
            None,
            None,
            None,
            note=NoCpuClock(),
        )
    cores = max(1, cores)
    peak = target.clock_ghz * 1e9 * target.flops_per_cycle(precision)
    bandwidth = (
        memory_gbps_per_core or target.memory_gbps_per_core or UNMEASURED_MEMORY_GBPS_PER_CORE
    ) * 1e9
    work = max(
        train_flops_per_step / (cores * peak * efficiency), moved_bytes / (cores * bandwidth)
    )
    step = kernels * dispatch_seconds * 3.0 / target.clock_ghz + work
    rel = UNMEASURED_UNCERTAINTY
    return Prediction(
        step,
        step * (1 - rel),
        step * (1 + rel),
        note=FromWorkAlone(rel),
    )
