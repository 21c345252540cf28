"""Pure: the GPU device model — one training step of a described workload on a GPU not measured.
Design notes: docs/reference/modules.md (planner/core/predict/gpu.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from planner.core.predict.constants import (
    CALIBRATED_UNCERTAINTY,
    DEFAULT,
    EMULATED_INTERVAL,
    INTERVALS,
    POOLED_INTERVAL,
    TENSOR_CORE_BF16_TF32,
    UNMEASURED_WIDENING,
    DeviceConstants,
)
from planner.core.remarks import EmulatedPrecision, NoGpuFigures, NoPublishedBand, Remark, Unbacked
from planner.workload.footprint import ACT_BYTES, FP32, Layer
from planner.workload.footprint import COMPUTE_OPS as COMPUTE
from pricing.facts import GpuSpec as GpuSpec
from pricing.facts import gpu_spec_from_row as gpu_spec_from_row

# fp32 words read + written per parameter by one update of torch.optim's default (foreach)
# implementation: Adam makes several passes over parameters, gradients and both moments.
OPTIMIZER_WORDS = {"adam": 16, "adamw": 17, "sgd": 7}
OPTIMIZER_OPS = {"adam": 10, "adamw": 11, "sgd": 3}  # foreach launches per chunk of tensors
FOREACH_CHUNK = 32  # tensors per foreach launch (order of magnitude of torch's chunking)


def sustained_clock_fraction(gpu: GpuSpec, constants: DeviceConstants = DEFAULT) -> float:
    """The share of its boost clock a GPU holds under a long compute-bound load, within its power limit.

    Dynamic power grows about as the cube of the clock (the voltage rises with it), so at full load an
    SM at f GHz draws about k x f^3 W (k = constants.watts_per_sm_ghz3, fitted to published training
    measurements). A board whose limit is below SMs x k x boost^3 settles where the two meet — never
    below its base clock: a 72 W L4 or a 70 W T4 runs well below the clock its sheet's TFLOPS assume;
    a 400 W A100 holds it. 1.0 when a fact is missing."""
    if not (gpu.tdp_watts and gpu.sm_count and gpu.boost_clock_mhz):
        return 1.0
    boost = gpu.boost_clock_mhz / 1000.0
    full = constants.watts_per_sm_ghz3 * gpu.sm_count * boost**3
    if full <= gpu.tdp_watts:
        return 1.0
    sustained = boost * float(gpu.tdp_watts / full) ** (1.0 / 3.0)
    floor = (gpu.base_clock_mhz or 0.0) / 1000.0
    return float(max(sustained, floor) / boost)


@dataclass(frozen=True)
class Prediction:
    step_seconds: float | None
    low: float | None
    high: float | None
    note: Remark | None = None  # what the prediction rests on, or why there is none
    compute_seconds: float = 0.0  # GPU time of compute-bound kernels
    memory_seconds: float = 0.0  # GPU time of bandwidth-bound kernels (incl. optimizer)
    launch_seconds: float = 0.0  # CPU dispatch of every kernel (eager PyTorch)
    transfer_seconds: float = 0.0  # host-to-device copies
    optimizer_seconds: float = 0.0
    kernels: int = 0
    by_op: dict[str, float] = field(default_factory=dict)  # GPU seconds per op class


def math_mode(op: str, precision: str, generation: str) -> str | None:
    """What PyTorch computes an op class in: None (bandwidth-bound), "fp32" (CUDA cores), "tf32",
    "fp16", "bf16" (tensor cores) or "bf16-emulated" (Volta/Turing: no bf16 tensor cores)."""
    if op not in COMPUTE:
        return None
    ampere_plus = generation in TENSOR_CORE_BF16_TF32
    if precision == "fp16":
        return "fp16"
    if precision == "bf16":
        return "bf16" if ampere_plus else "bf16-emulated"
    if precision == "tf32":
        return "tf32" if ampere_plus else "fp32"
    # fp32 = PyTorch defaults: cudnn.allow_tf32 is True (convolutions, cuDNN RNNs), matmuls fp32
    return "tf32" if ampere_plus and op in ("conv", "recurrent") else "fp32"


def kernels_per_step(layers: list[Layer], optimizer: str, precision: str = "fp32") -> int:
    return sum(_step_kernels(layers, optimizer, precision).values())


def _step_kernels(layers: list[Layer], optimizer: str, precision: str) -> dict[str, int]:
    model = sum(layer.kernels + layer.backward_kernel_count for layer in layers)
    if not any(layer.op_class == "loss" for layer in layers):
        model += 6  # loss forward and backward (log-softmax + nll, or mse)
    tensors = sum(layer.tensors for layer in layers)
    chunks = math.ceil(tensors / FOREACH_CHUNK) if tensors else 0
    update = OPTIMIZER_OPS[optimizer] * chunks
    if precision == "fp16":  # GradScaler: unscale + inf check per chunk, scale update
        update += 2 * chunks + 3
    if precision in ("bf16", "fp16"):  # autocast casts each compute layer's weights every forward
        model += sum(layer.tensors for layer in layers if layer.op_class in COMPUTE)
    return {"model": model, "optimizer": update}


def layer_bytes(layer: Layer, batch: int, act_bytes: int) -> float:
    """Bytes one training step moves through memory for `layer` (forward and backward)."""
    if layer.moved_elems is not None:
        return layer.moved_elems * batch * act_bytes + (layer.fixed_elems or 0.0) * FP32
    # activations in and out, forward and backward (~3 passes); weights read twice, gradients written
    return 3.0 * 2 * layer.activation_elems * batch * act_bytes + 3.0 * layer.params * FP32


def step_bytes(layers: list[Layer], batch: int, precision: str, optimizer: str) -> float:
    """Bytes one whole training step moves: every layer, and the optimizer's update."""
    params = sum(layer.params for layer in layers)
    return (
        sum(layer_bytes(layer, batch, ACT_BYTES[precision]) for layer in layers)
        + params * FP32 * OPTIMIZER_WORDS[optimizer]
    )


def layer_gpu_seconds(
    layer: Layer, gpu: GpuSpec, batch: int, precision: str, constants: DeviceConstants = DEFAULT
) -> tuple[float, bool] | NoGpuFigures:
    """GPU seconds of one layer's forward and backward kernels at `batch`, and whether it is timed as
    compute-bound; NoGpuFigures when the GPU lacks the figures its math mode needs."""
    bandwidth = gpu.bandwidth_gbps * 1e9 * constants.bandwidth_efficiency
    ramp = constants.kernel_ramp_seconds
    kernels = max(1, layer.kernels + layer.backward_kernel_count)
    flops = layer.train_flops * batch
    moved = layer_bytes(layer, batch, ACT_BYTES[precision])
    mode = math_mode(layer.op_class, precision, gpu.arch)
    per_kernel_memory = moved / kernels / bandwidth
    if mode is None or flops <= 0:
        return kernels * (per_kernel_memory + ramp), False
    peak = gpu.peak_flops(mode)
    if peak is None:
        return NoGpuFigures(mode, gpu.name)
    rate = (
        peak
        * constants.compute_efficiency(layer.op_class, mode, gpu.arch)
        * sustained_clock_fraction(gpu, constants)
    )
    per_kernel_compute = flops / kernels / rate
    return kernels * (max(per_kernel_compute, per_kernel_memory) + ramp), True


def _layers_on(
    layers: list[Layer], gpu: GpuSpec, batch: int, precision: str, constants: DeviceConstants
) -> tuple[float, float, dict[str, float]] | NoGpuFigures:
    """The layers' time on `gpu`: (compute-bound seconds, memory-bound seconds, seconds by op class); the remark of
    why not when the GPU lacks the figures the precision needs."""
    compute = memory = 0.0
    by_op: dict[str, float] = {}
    for layer in layers:
        timed = layer_gpu_seconds(layer, gpu, batch, precision, constants)
        if isinstance(timed, NoGpuFigures):
            return timed
        seconds, compute_bound = timed
        if compute_bound:
            compute += seconds
        else:
            memory += seconds
        by_op[layer.op_class] = by_op.get(layer.op_class, 0.0) + seconds
    return compute, memory, by_op


def step_breakdown(
    layers: list[Layer],
    gpu: GpuSpec,
    batch: int,
    precision: str,
    optimizer: str,
    host_bytes_per_step: float = 0.0,
    accumulation: int = 1,
    constants: DeviceConstants = DEFAULT,
    update: bool = True,
) -> Prediction:
    """The point prediction and its parts (no interval); `step_seconds` is None when the GPU lacks
    the figures the precision needs. `update=False`: forward and backward alone (no optimizer step),
    what measurements that time only those report."""
    bandwidth = gpu.bandwidth_gbps * 1e9 * constants.bandwidth_efficiency
    timed = _layers_on(layers, gpu, batch, precision, constants)
    if isinstance(timed, NoGpuFigures):
        return Prediction(None, None, None, note=timed)
    compute, memory, by_op = timed
    params = sum(layer.params for layer in layers)
    kernels = _step_kernels(layers, optimizer, precision)
    update_bytes = params * FP32 * OPTIMIZER_WORDS[optimizer]
    if precision == "fp16":
        update_bytes += params * FP32 * 2  # unscale the gradients
    if precision in ("bf16", "fp16"):  # weight casts: read fp32, write 16 bits, every forward
        memory += (
            sum(layer.params for layer in layers if layer.op_class in COMPUTE)
            * (FP32 + 2)
            / bandwidth
        )
    if not update:
        kernels["optimizer"], update_bytes = 0, 0
    optimizer_seconds = (
        update_bytes / bandwidth + kernels["optimizer"] * constants.kernel_ramp_seconds
    ) / max(1, accumulation)
    by_op["optimizer"] = optimizer_seconds
    gpu_seconds = compute + memory + optimizer_seconds
    dispatched = kernels["model"] + kernels["optimizer"] / max(1, accumulation)
    launch = constants.step_overhead_seconds + dispatched * constants.spec_dispatch_seconds
    transfer = host_bytes_per_step / constants.pcie_bytes_per_second
    # dispatch overlaps with GPU work; a step takes the longer
    step = max(gpu_seconds, launch) + transfer
    return Prediction(
        step,
        step,
        step,
        compute_seconds=compute,
        memory_seconds=memory + optimizer_seconds,
        launch_seconds=launch,
        transfer_seconds=transfer,
        optimizer_seconds=optimizer_seconds,
        kernels=int(round(dispatched)),
        by_op=by_op,
    )


def interval_factors(
    generation: str,
    precision: str,
    intervals: dict[tuple[str, str], tuple[float, float]] | None = None,
) -> tuple[tuple[float, float], NoPublishedBand | None]:
    """(low, high) factors on the step for a generation and precision, and a note when they are not
    measured ones."""
    table = INTERVALS if intervals is None else intervals
    if precision == "bf16" and generation not in TENSOR_CORE_BF16_TF32:
        return EMULATED_INTERVAL, None
    if precision == "tf32" and generation not in TENSOR_CORE_BF16_TF32:
        precision = "fp32"  # no TF32 units before Ampere: it runs as fp32 (math_mode)
    if (generation, precision) in table:
        return table[(generation, precision)], None
    if precision == "bf16" and (generation, "fp16") in table:  # same tensor-core rate as fp16
        return table[(generation, "fp16")], None
    low, high = POOLED_INTERVAL
    return (low / UNMEASURED_WIDENING, high * UNMEASURED_WIDENING), NoPublishedBand(
        precision, generation
    )


def emulation_note(gpu: GpuSpec, precision: str) -> EmulatedPrecision | None:
    """Said of bf16 on a GPU without bf16 tensor cores (None otherwise)."""
    if precision == "bf16" and gpu.arch not in TENSOR_CORE_BF16_TF32:
        return EmulatedPrecision(gpu.name, "bf16", "fp16")
    return None


def prediction_band(
    gpu: GpuSpec,
    precision: str,
    intervals: dict[tuple[str, str], tuple[float, float]] | None = None,
) -> tuple[tuple[float, float], Remark | None]:
    """The (low, high) factors an uncalibrated prediction of `gpu` at `precision` carries, and what its
    note says: its generation's measured band; widened when no published figure backs this very GPU
    (a band of no generation is widened already; emulated bf16 has the widest band and its own note)."""
    (low, high), note = interval_factors(gpu.arch, precision, intervals)
    emulated = emulation_note(gpu, precision)
    if emulated:
        return (low, high), emulated
    if backed(gpu, precision):
        return (low, high), note
    if note is None:  # a measured band, but of another GPU of its generation
        low, high = low / UNMEASURED_WIDENING, high * UNMEASURED_WIDENING
    return (low, high), unbacked_note(gpu, precision)


def backed(gpu: GpuSpec, precision: str) -> bool:
    """Whether a published training measurement of this GPU backs predictions at `precision` (bf16 on
    Ampere and later by fp16's, the same tensor-core rate; tf32 before Ampere by fp32's). Unknown: yes."""
    if gpu.published is None:
        return True
    ampere_plus = gpu.arch in TENSOR_CORE_BF16_TF32
    same = {
        "bf16": "fp16" if ampere_plus else "bf16",
        "tf32": "tf32" if ampere_plus else "fp32",
    }.get(precision, precision)
    return precision in gpu.published or same in gpu.published


def unbacked_note(gpu: GpuSpec, precision: str) -> Unbacked:
    """What a prediction rests on when no published training measurement of this GPU at this precision does."""
    return Unbacked(precision, gpu.name, gpu.arch)


def predict_gpu(
    layers: list[Layer],
    gpu: GpuSpec,
    batch: int,
    precision: str,
    optimizer: str,
    host_bytes_per_step: float = 0.0,
    calibration: float | None = None,
    *,
    accumulation: int = 1,
    constants: DeviceConstants = DEFAULT,
    intervals: dict[tuple[str, str], tuple[float, float]] | None = None,
    update: bool = True,
) -> Prediction:
    """One optimizer step (of `accumulation` micro-batches' update, per micro-batch) of `layers` at
    `batch` on `gpu`, with its interval. `calibration` (measured / predicted on this GPU model)
    scales the step and narrows the interval to +-20%."""
    point = step_breakdown(
        layers,
        gpu,
        batch,
        precision,
        optimizer,
        host_bytes_per_step,
        accumulation,
        constants,
        update,
    )
    if point.step_seconds is None:
        return point
    step = point.step_seconds
    if calibration:
        step *= calibration
        low_f, high_f = 1 - CALIBRATED_UNCERTAINTY, 1 + CALIBRATED_UNCERTAINTY
        note: Remark | None = (
            emulation_note(gpu, precision) or interval_factors(gpu.arch, precision, intervals)[1]
        )
    else:
        (low_f, high_f), note = prediction_band(gpu, precision, intervals)
    return replace(point, step_seconds=step, low=step * low_f, high=step * high_f, note=note)
