"""The words of an option's own remarks (a row's note and caveat)."""

from __future__ import annotations

from planner.core import remarks as r
from planner.report.remarks.base import word


@word.register
def _does_not_fit(x: r.DoesNotFit) -> str:
    gib = 2**30
    need = (
        f"needs ~{x.need_bytes / gib:.1f} GiB{' per GPU' if x.per_gpu else ''}; may use "
        f"{x.fraction * x.memory_bytes / gib:.1f} GiB ({x.fraction:.0%} of {x.memory_bytes / gib:.1f} GiB: the rest "
        "is kept free for the allocator and the OS)"
    )
    return f"does not fit {x.where}: the run {need}" if x.where else need


@word.register
def _bench_failed(x: r.BenchFailed) -> str:
    return " ".join(x.message.split())


@word.register
def _gpus_idle(x: r.GpusIdle) -> str:
    picks = " (the script picks its device)" if x.script else ""
    return f"{x.used} of its {x.of} GPUs used{picks}; priced for the whole instance"


@word.register
def _on_paper(x: r.OnPaper) -> str:
    return (
        f"predicted only, on paper: across {x.instances} instances over {x.gbps:g} Gbit/s "
        f"{'EFA' if x.efa else 'network'} at NCCL's 96% of line rate (measured rings reached 0.6-1.2x "
        "of that, NVIDIA/nccl#527), in one cluster placement group"
    )


@word.register
def _no_gpu_spec(x: r.NoGpuSpec) -> str:
    return f"no spec for GPU {x.gpu}"


@word.register
def _batch_split(x: r.BatchSplit) -> str:
    return f"skipped: batch {x.batch:,} does not split evenly over {x.gpus} GPUs"


@word.register
def _no_bandwidth(x: r.NoBandwidth) -> str:
    if x.link == "network":
        return f"not predicted: {x.instance_type}'s network bandwidth is not sourced"
    return f"not predicted: no sourced {x.link} bandwidth for {x.gpus} GPUs of {x.instance_type}"


@word.register
def _measured_busy(x: r.MeasuredBusy) -> str:
    return "measured while the machine was busy (see the warnings)"


@word.register
def _cpu_no_bf16(x: r.CpuNoBf16) -> str:
    return f"{x.cpu} has no bf16 instructions: bf16 runs through fp32 conversions; use fp32"


@word.register
def _no_cpu_clock(x: r.NoCpuClock) -> str:
    return "no sourced clock for this processor, and nothing measured here to scale (run without --predict-only)"


@word.register
def _from_work_alone(x: r.FromWorkAlone) -> str:
    return f"predicted from the work alone (nothing measured here): +-{x.uncertainty:.0%}"


@word.register
def _no_gpu_figures(x: r.NoGpuFigures) -> str:
    return f"no published {x.mode} figures for {x.gpu}: benchmark it"


@word.register
def _unbacked(x: r.Unbacked) -> str:
    return (
        f"no published {x.precision} training figure backs {x.gpu}: predicted from its sheet, its power limit and "
        f"the nearest evidence ({x.generation.title()}, else every generation), interval widened; a paid benchmark "
        "settles it"
    )


@word.register
def _no_published_band(x: r.NoPublishedBand) -> str:
    return f"no published {x.precision} measurement on {x.generation.title()}: interval widened"


REASONS = {
    "dispatch_bound": "the per-GPU step is dispatch-bound (splitting the batch barely shortens it)",
    "small_share": "each GPU's share of the batch is too small to keep it busy",
}


@word.register
def _scaling(x: r.Scaling) -> str:
    head = (
        f"{x.gpus} GPUs at batch {x.per_gpu_batch:,} each: {x.speedup:.2f}x one GPU's speed "
        f"({x.efficiency:.0%} scaling efficiency)"
    )
    if x.verdict == "well":
        return f"{head}; scales well"
    reasons = [
        f"{x.exposed_seconds * 1e3:.3g} ms of the gradient all-reduce is not hidden behind backward"
        if reason == "exposed"
        else REASONS.get(reason, reason)
        for reason in x.reasons
    ]
    return f"{head}; scales {x.verdict}: {' and '.join(reasons)}"


@word.register
def _used_no_gpu(x: r.UsedNoGpu) -> str:
    return "measured on its CPU: the script did not use a GPU there"


@word.register
def _not_measured(x: r.NotMeasured) -> str:
    return f"not measured: {x.reason}"


@word.register
def _no_step_traced(x: r.NoStepTraced) -> str:
    return "not predicted: no step of the script was traced"
