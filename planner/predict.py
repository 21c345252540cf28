"""Pure: predict a training step on hardware that was not measured.

GPU (roofline + launch overhead). For each layer of the spec (planner/footprint.py), per step:

    compute  = 3 x forward FLOPs x batch / (peak FLOP/s for the precision x COMPUTE_EFFICIENCY)
    memory   = bytes moved / (memory bandwidth x BANDWIDTH_EFFICIENCY)
               bytes: activations in and out, forward and backward (~3 passes), weights read twice,
               gradients written once
    layer    = max(compute, memory)
    step     = sum(layers) + optimizer update (memory-bound: 7 fp32 words per parameter for Adam)
             + kernels per step x LAUNCH_SECONDS (eager PyTorch: Python + dispatcher + launch)
             + host-located data: the batch's bytes over PCIe

Small networks are launch-bound: a 2-20-5-1 MLP launches ~50 kernels a step whatever the batch, so
its GPU step cannot fall below ~50 x 15 us, which is why CPUs win on them. Peak figures come from
pricing/data/gpu_specs.csv (dense tensor-core TFLOPS for bf16/fp16, FP32 otherwise: PyTorch does not
use TF32 for matmuls by default). A GPU without published compute figures (A10G) is not predicted.

CPU instances: the local measurement scaled by cores with Amdahl's law. The parallel fraction grows
with the work per step (tiny steps do not parallelize); per-core speed is taken equal to this
machine's, which is why the interval is wide.

The constants are documented guesses until calibrated against measurements (`calibration` maps a
device name to measured / predicted, e.g. from runs on rented GPUs); uncalibrated predictions carry
a +-50% (GPU) or +-40% (CPU) interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.footprint import ACT_BYTES, FP32, OPTIMIZER_STATES, Layer

LAUNCH_SECONDS = 15e-6  # per kernel, eager PyTorch on a current CPU host: 10-20 us is typical
COMPUTE_EFFICIENCY = 0.5
BANDWIDTH_EFFICIENCY = 0.7
PCIE_BYTES_PER_SECOND = 12e9  # pinned host-to-device copies on PCIe 3/4 x16
GPU_UNCERTAINTY = 0.5
CPU_UNCERTAINTY = 0.4
CALIBRATED_UNCERTAINTY = 0.2
PARALLEL_HALF_FLOPS = 5e7  # work per step at which half of it parallelizes (Amdahl heuristic)


@dataclass(frozen=True)
class GpuSpec:
    name: str
    memory_gib: float
    bandwidth_gbps: float
    fp32_tflops: float | None
    tensor_tflops: dict[str, float | None]  # by precision: bf16, fp16

    def peak_flops(self, precision: str) -> float | None:
        tflops = self.tensor_tflops.get(precision) if precision in ("bf16", "fp16") else self.fp32_tflops
        return None if tflops is None or (isinstance(tflops, float) and math.isnan(tflops)) else tflops * 1e12


@dataclass(frozen=True)
class Prediction:
    step_seconds: float | None
    low: float | None
    high: float | None
    note: str = ""
    compute_seconds: float = 0.0
    memory_seconds: float = 0.0
    launch_seconds: float = 0.0
    transfer_seconds: float = 0.0


def kernels_per_step(layers: list[Layer], optimizer: str) -> int:
    forward = sum(layer.kernels for layer in layers) + 3  # + loss
    with_params = sum(1 for layer in layers if layer.params)
    optimizer_kernels = 4 * with_params if optimizer in ("adam", "adamw") else 2 * with_params
    return 3 * forward + optimizer_kernels  # backward ~2 kernels per forward kernel


def predict_gpu(layers: list[Layer], gpu: GpuSpec, batch: int, precision: str, optimizer: str,
                host_bytes_per_step: float = 0.0, calibration: float | None = None,
                slowest: GpuSpec | None = None) -> Prediction:
    """Roofline + launch prediction. A GPU without published compute figures (A10G) gets a bounded
    interval when `slowest` (a GPU with figures that it certainly outperforms) is given: from
    "compute is free" (bandwidth and launches only) to "compute as slow as `slowest`"."""
    peak = gpu.peak_flops(precision)
    if peak is None:
        floor = slowest.peak_flops(precision) if slowest is not None else None
        if floor is None or slowest is None or slowest.name == gpu.name:
            return Prediction(None, None, None, note=f"no published {precision} compute figures for {gpu.name}: benchmark it")
        fast = _roofline(layers, math.inf, gpu, batch, precision, optimizer, host_bytes_per_step)
        slow = _roofline(layers, floor, gpu, batch, precision, optimizer, host_bytes_per_step)
        mid = (fast.step_seconds + slow.step_seconds) / 2
        return Prediction(mid, fast.step_seconds * (1 - GPU_UNCERTAINTY), slow.step_seconds * (1 + GPU_UNCERTAINTY),
                          note=f"no published compute figures for {gpu.name}: bounded by bandwidth alone and by "
                               f"{slowest.name}-class compute", launch_seconds=fast.launch_seconds,
                          transfer_seconds=fast.transfer_seconds)
    prediction = _roofline(layers, peak, gpu, batch, precision, optimizer, host_bytes_per_step)
    step, rel = prediction.step_seconds, GPU_UNCERTAINTY
    if calibration:
        step, rel = step * calibration, CALIBRATED_UNCERTAINTY
    return Prediction(step, step * (1 - rel), step * (1 + rel), compute_seconds=prediction.compute_seconds,
                      memory_seconds=prediction.memory_seconds, launch_seconds=prediction.launch_seconds,
                      transfer_seconds=prediction.transfer_seconds)


def _roofline(layers: list[Layer], peak: float, gpu: GpuSpec, batch: int, precision: str, optimizer: str,
              host_bytes_per_step: float) -> Prediction:
    bandwidth = gpu.bandwidth_gbps * 1e9 * BANDWIDTH_EFFICIENCY
    act = ACT_BYTES[precision]
    compute = memory = total = 0.0
    for layer in layers:
        c = 3.0 * layer.forward_flops * batch / (peak * COMPUTE_EFFICIENCY)
        moved = 3.0 * 2 * layer.activation_elems * batch * act + 3.0 * layer.params * FP32
        m = moved / bandwidth
        compute, memory, total = compute + c, memory + m, total + max(c, m)
    params = sum(layer.params for layer in layers)
    words = 3 + 2 * OPTIMIZER_STATES[optimizer]  # read param+grad(+states), write param(+states)
    optimizer_seconds = params * FP32 * words / bandwidth
    launch = kernels_per_step(layers, optimizer) * LAUNCH_SECONDS
    transfer = host_bytes_per_step / PCIE_BYTES_PER_SECOND
    # Launches overlap with GPU work; a step takes at least as long as either.
    step = max(total + optimizer_seconds, launch) + transfer
    return Prediction(step, step, step, compute_seconds=compute, memory_seconds=memory,
                      launch_seconds=launch, transfer_seconds=transfer)


def parallel_fraction(train_flops_per_step: float) -> float:
    return train_flops_per_step / (train_flops_per_step + PARALLEL_HALF_FLOPS)


def physical_cores(vcpus: int, arch: str, family: str) -> int:
    """Graviton (arm64) and AMD c7a have one core per vCPU; other x86 instances two vCPUs per core."""
    if arch == "arm64" or family.startswith("c7a"):
        return vcpus
    return max(1, vcpus // 2)


def predict_cpu(local_step_seconds: float, local_threads: int, cores: int, train_flops_per_step: float,
                calibration: float | None = None) -> Prediction:
    """Scale this machine's measured step to `cores` cores with Amdahl's law; torch uses one thread
    per physical core."""
    p = parallel_fraction(train_flops_per_step)
    serial = local_step_seconds * (1 - p)
    parallel = local_step_seconds * p * local_threads
    step = serial + parallel / max(1, cores)
    rel = CPU_UNCERTAINTY
    if calibration:
        step, rel = step * calibration, CALIBRATED_UNCERTAINTY
    return Prediction(step, step * (1 - rel), step * (1 + rel))
