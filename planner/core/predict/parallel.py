"""Pure: one data-parallel training step (PyTorch DistributedDataParallel) of the global batch on N
GPUs. Design notes: docs/reference/modules.md (planner/core/predict/parallel.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from planner.core.predict.constants import DEFAULT, DeviceConstants
from planner.core.predict.fabric import Fabric, allreduce_seconds
from planner.core.predict.gpu import GpuSpec, Prediction, layer_gpu_seconds, predict_gpu
from planner.core.remarks import Remark, Scaling
from planner.workload.footprint import FP32, Layer

BUCKET_CAP_BYTES = 25 * 1024 * 1024
FIRST_BUCKET_BYTES = 1024 * 1024
DDP_COPY_PASSES = 4  # gradients read and written into the bucket, and back after the all-reduce
COMM_SLOW_FACTOR = 2.0  # the interval's slow side: the all-reduce at half the modelled bandwidth
POOR_SCALING = 0.5
GOOD_SCALING = 0.8


@dataclass(frozen=True)
class Overlap:
    allreduce_seconds: float  # every bucket's all-reduce, end to end (none hidden)
    exposed_seconds: float  # what runs past the end of backward
    buckets: int
    gradient_bytes: float


def expected_max_normal(n: int, steps: int = 4000) -> float:
    """E[max of n independent standard normals] = integral of x n phi(x) Phi(x)^(n-1) dx (0 for n <= 1)."""
    if n <= 1:
        return 0.0
    lo, hi = -8.0, 8.0
    h = (hi - lo) / steps
    total = 0.0
    for i in range(steps + 1):
        x = lo + i * h
        phi = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        cdf = 0.5 * (1 + math.erf(x / math.sqrt(2)))
        total += (0.5 if i in (0, steps) else 1.0) * x * n * phi * cdf ** (n - 1)
    return total * h


def straggler_seconds(step_seconds: float, cv: float, ranks: int) -> float:
    """How much longer a synchronised step is than one rank's mean: it ends with the slowest rank."""
    return step_seconds * max(0.0, cv) * expected_max_normal(ranks)


def bucket_sizes(
    gradient_bytes: list[float],
    cap: float = BUCKET_CAP_BYTES,
    first_cap: float = FIRST_BUCKET_BYTES,
) -> list[tuple[int, float]]:
    """(index of the gradient that completes the bucket, bucket bytes), in backward order."""
    out: list[tuple[int, float]] = []
    size, limit = 0.0, first_cap
    for i, nbytes in enumerate(gradient_bytes):
        if nbytes <= 0:
            continue
        size += nbytes
        if size >= limit:
            out.append((i, size))
            size, limit = 0.0, cap
    if size > 0:
        out.append((len(gradient_bytes) - 1, size))
    return out


def overlap(
    pieces: list[tuple[float, float]],
    fabric: Fabric,
    cap: float = BUCKET_CAP_BYTES,
    first_cap: float = FIRST_BUCKET_BYTES,
) -> Overlap:
    """Simulate DDP's bucketed all-reduce against backward. `pieces`: (backward seconds, gradient
    bytes) per layer, in backward order (the last layer of the forward pass first)."""
    ready, t = [], 0.0
    for seconds, _nbytes in pieces:
        t += seconds
        ready.append(t)
    backward = t
    free = total = 0.0
    buckets = bucket_sizes([nbytes for _s, nbytes in pieces], cap, first_cap)
    for index, nbytes in buckets:
        duration = allreduce_seconds(nbytes, fabric)
        free = max(ready[index] if ready else 0.0, free) + duration
        total += duration
    exposed = max(0.0, free - backward) if buckets else 0.0
    return Overlap(total, exposed, len(buckets), sum(b for _i, b in buckets))


def backward_pieces(
    layers: list[Layer],
    gpu: GpuSpec,
    batch: int,
    precision: str,
    step_seconds: float,
    optimizer_seconds: float,
    constants: DeviceConstants = DEFAULT,
) -> list[tuple[float, float]]:
    """(backward seconds, fp32 gradient bytes) per layer in backward order, scaled so that the layers'
    forward + backward and the optimizer add up to `step_seconds`."""
    raw, shares = [], []
    for layer in layers:
        timed = layer_gpu_seconds(layer, gpu, batch, precision, constants)
        gpu_seconds = timed[0] if isinstance(timed, tuple) else 0.0
        kernels = max(1, layer.kernels + layer.backward_kernel_count)
        raw.append(max(gpu_seconds, kernels * constants.dispatch_seconds))
        if layer.train_flops > 0:
            shares.append(layer.backward_flops_per_sample / layer.train_flops)
        else:
            shares.append(layer.backward_kernel_count / kernels)
    total = sum(raw) + optimizer_seconds
    scale = step_seconds / total if total > 0 else 0.0
    pieces = [
        (r * s * scale, float(layer.params * FP32)) for layer, r, s in zip(layers, raw, shares)
    ]
    return pieces[::-1]


def pieces_by_flops(layers: list[Layer], step_seconds: float) -> list[tuple[float, float]]:
    """(backward seconds, fp32 gradient bytes) per layer in backward order for a measured step on a
    CPU, where time follows the work: each layer's share of the step is its share of the FLOPs (at
    least one FLOP per activation element, for the elementwise layers), split by its backward share."""
    work = [max(layer.train_flops, layer.activation_elems) for layer in layers]
    total = sum(work) or 1.0
    pieces = []
    for layer, w in zip(layers, work):
        share = (
            layer.backward_flops_per_sample / layer.train_flops if layer.train_flops > 0 else 0.5
        )
        pieces.append((step_seconds * w / total * share, float(layer.params * FP32)))
    return pieces[::-1]


@dataclass(frozen=True)
class ParallelPrediction:
    step_seconds: float | None  # one step of the global batch on every GPU
    low: float | None
    high: float | None
    gpus: int
    per_gpu_batch: int
    per_gpu: Prediction
    single_gpu_step: float | None  # the global batch on one GPU, for the scaling efficiency
    allreduce_seconds: float = 0.0
    exposed_seconds: float = 0.0
    fabric: str = ""
    note: Remark | None = None

    @property
    def scaling_efficiency(self) -> float | None:
        if not self.step_seconds or not self.single_gpu_step:
            return None
        return self.single_gpu_step / (self.gpus * self.step_seconds)

    @property
    def speedup(self) -> float | None:
        return (
            None
            if not self.step_seconds or not self.single_gpu_step
            else self.single_gpu_step / self.step_seconds
        )


def predict_data_parallel(
    layers: list[Layer],
    gpu: GpuSpec,
    global_batch: int,
    gpus: int,
    fabric: Fabric | None,
    precision: str,
    optimizer: str,
    host_bytes_per_sample: float = 0.0,
    calibration: float | None = None,
    *,
    accumulation: int = 1,
    timeline_layers: list[Layer] | None = None,
    step_cv: float = 0.0,
    constants: DeviceConstants = DEFAULT,
) -> ParallelPrediction:
    """A step of `global_batch` split evenly over `gpus` GPUs joined by `fabric` (None for one GPU).
    `layers` may be merged (planner.workload.footprint.merge_identical); `timeline_layers` are the layers in
    forward order for the bucket timeline (default: `layers`); `step_cv`: the per-rank step's
    coefficient of variation, when known (stragglers)."""
    per_batch = global_batch // gpus

    def at(batch: int) -> Prediction:
        """One GPU's step at `batch`."""
        return predict_gpu(
            layers,
            gpu,
            batch,
            precision,
            optimizer,
            host_bytes_per_sample * batch,
            calibration,
            accumulation=accumulation,
            constants=constants,
        )

    per = at(per_batch)
    single = per if gpus == 1 else at(global_batch)
    common: dict[str, Any] = dict(
        gpus=gpus, per_gpu_batch=per_batch, per_gpu=per, single_gpu_step=single.step_seconds
    )
    if (
        per.step_seconds is None
        or per.low is None
        or per.high is None
        or gpus == 1
        or fabric is None
    ):
        return ParallelPrediction(per.step_seconds, per.low, per.high, note=per.note, **common)
    pieces = backward_pieces(
        timeline_layers or layers,
        gpu,
        per_batch,
        precision,
        per.step_seconds - per.transfer_seconds,
        per.optimizer_seconds,
        constants,
    )
    band = (per.step_seconds, per.low, per.high)
    return _over_fabric(per, band, pieces, fabric, gpu, accumulation, step_cv, constants, common)


def _over_fabric(
    per: Prediction,
    band: tuple[float, float, float],
    pieces: list[tuple[float, float]],
    fabric: Fabric,
    gpu: GpuSpec,
    accumulation: int,
    step_cv: float,
    constants: DeviceConstants,
    common: dict[str, Any],
) -> ParallelPrediction:
    """One GPU's step `per` (its `band`: step, low, high) with the all-reduce of its gradient buckets overlapped
    with the backward pass (`pieces`), the copies DDP makes, and the wait for the slowest rank."""
    step, low, high = band
    fast = overlap(pieces, fabric)
    slow = overlap(
        pieces, replace(fabric, bus_bytes_per_second=fabric.bus_bytes_per_second / COMM_SLOW_FACTOR)
    )
    bandwidth = gpu.bandwidth_gbps * 1e9 * constants.bandwidth_efficiency
    copies = DDP_COPY_PASSES * fast.gradient_bytes / bandwidth
    per_step = (fast.exposed_seconds + copies) / max(1, accumulation)
    wait = straggler_seconds(step, step_cv, fabric.ranks)
    return ParallelPrediction(
        step + wait + per_step,
        low + wait + per_step,
        high + wait + (slow.exposed_seconds + copies) / max(1, accumulation),
        allreduce_seconds=fast.allreduce_seconds,
        exposed_seconds=fast.exposed_seconds,
        fabric=fabric.describe(),
        note=per.note,
        **common,
    )


def scaling_note(p: ParallelPrediction) -> Scaling | None:
    """How this GPU count scales, and why, for the option's notes (None for one GPU)."""
    eff, speedup = p.scaling_efficiency, p.speedup
    if eff is None or speedup is None or p.gpus <= 1:
        return None
    if eff >= GOOD_SCALING:
        return Scaling(p.gpus, p.per_gpu_batch, speedup, eff, "well")
    per = p.per_gpu
    reasons = []
    if per.step_seconds and per.launch_seconds >= 0.5 * (per.step_seconds - per.transfer_seconds):
        reasons.append("dispatch_bound")  # splitting the batch barely shortens the per-GPU step
    if p.step_seconds and p.exposed_seconds >= 0.2 * p.step_seconds:
        reasons.append("exposed")  # the gradient all-reduce not hidden behind backward
    if not reasons:
        reasons.append("small_share")  # each GPU's share of the batch too small to keep it busy
    verdict = "poorly" if eff < POOR_SCALING else "moderately"
    return Scaling(
        p.gpus, p.per_gpu_batch, speedup, eff, verdict, tuple(reasons), p.exposed_seconds
    )
