"""Pure: a user's script on a GPU not measured, from one step of it as PyTorch dispatched it here.
Design notes: docs/reference/modules.md (planner/core/predict/trace.py)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.core.predict.constants import DEFAULT, DeviceConstants
from planner.core.predict.gpu import Prediction, layer_gpu_seconds, prediction_band
from planner.core.remarks import NoGpuFigures
from planner.workload.footprint import FP32, Layer
from pricing.facts import GpuSpec

if TYPE_CHECKING:
    from planner.core.script import StepTrace

# A value read back from the GPU: the host waits for the queue to drain, then a small device-to-host
# copy's round trip over PCIe, ~10 us (NVIDIA developer blog, "How to Optimize Data Transfers in CUDA
# C/C++", 2012: small transfers are latency-bound at ~10 us).
SYNC_SECONDS = 10e-6
COPY_LATENCY_SECONDS = 10e-6  # each host-to-device copy call, the same small-transfer latency


def host_seconds(trace: StepTrace, step_seconds: float) -> float:
    """The script's own host work in one (untraced) step here: the step less the time inside the device's
    ops and the eager overhead of each (views too: they pass the dispatcher). A DataLoader's collate in
    the main process stays in it: its ops run on the host CPU whatever the device."""
    eager = (trace.kernels + trace.views) * trace.op_overhead_seconds
    return max(step_seconds - (trace.op_seconds - trace.host_ops.seconds) - eager, 0.0)


DTYPE_PRECISION = {
    "float32": "fp32",
    "bfloat16": "bf16",
    "float16": "fp16",
}  # torch's dtype names -> the model's


def class_parts(trace: StepTrace, name: str) -> list[tuple[str, float]]:
    """An op class's work by the precision its FLOPs ran in, as shares: the stand-in GPU traced them per dtype
    (autocast, .half(), TF32 for fp32 matmuls when the script allowed it); a CPU trace has the step's one precision."""
    by_dtype = {
        DTYPE_PRECISION.get(d, "fp32"): f
        for d, f in trace.class_dtypes.get(name, {}).items()
        if f > 0
    }
    total = sum(by_dtype.values())
    if not total:
        return [(trace.precision, 1.0)]
    tf32 = trace.matmul_tf32 and name in ("gemm", "attention")
    return [("tf32" if p == "fp32" and tf32 else p, f / total) for p, f in by_dtype.items()]


def _ops_on(
    trace: StepTrace, gpu: GpuSpec, constants: DeviceConstants
) -> tuple[float, float, dict[str, float]] | NoGpuFigures:
    """The traced ops' time on `gpu`, each op class by the precision its FLOPs ran in: (seconds, of which
    compute-bound, seconds by op class); the remark of why not when the device model cannot time one."""
    gpu_seconds = compute = 0.0
    by_op: dict[str, float] = {}
    for name, work in trace.device_classes.items():
        if not work.ops:
            continue
        for part, share in class_parts(trace, name):
            flops = work.flops * share if trace.class_dtypes.get(name) else float(work.flops)
            layer = Layer(
                name,
                params=0,
                forward_flops=flops,
                activation_elems=0.0,
                kernels=max(1, round(work.ops * share)),
                op=name,
                backward_flops=0.0,
                backward_kernels=0,
                moved_elems=0.0,
                fixed_elems=work.bytes * share / FP32,
            )
            timed = layer_gpu_seconds(layer, gpu, 1, part, constants)
            if not isinstance(timed, tuple):
                return timed
            seconds, compute_bound = timed
            gpu_seconds += seconds
            compute += seconds if compute_bound else 0.0
            by_op[name] = by_op.get(name, 0.0) + seconds
    return gpu_seconds, compute, by_op


def predict_trace_gpu(
    trace: StepTrace,
    step_seconds: float,
    relative_bench: tuple[float, float],
    gpu: GpuSpec,
    scalar_ratio: float = 1.0,
    constants: DeviceConstants = DEFAULT,
    host_here: float | None = None,
) -> Prediction:
    """One step of the traced script on `gpu` (see the module docstring). `step_seconds`: the steady
    step measured here; `relative_bench`: its interval's relative half-widths (below, above);
    `scalar_ratio`: the instance CPU's per-core speed over this machine's; `host_here`: the script's own host
    work per step measured here (the stand-in GPU's CPU time outside torch), instead of the step less its ops."""
    precision = trace.precision
    timed = _ops_on(trace, gpu, constants)
    if isinstance(timed, NoGpuFigures):
        return Prediction(None, None, None, note=timed)
    gpu_seconds, compute, by_op = timed
    host = (host_seconds(trace, step_seconds) if host_here is None else host_here) / max(
        scalar_ratio, 1e-3
    )
    dispatch = trace.kernels * constants.dispatch_seconds
    copies = (
        trace.to_device.bytes / constants.pcie_bytes_per_second
        + trace.to_device.calls * COPY_LATENCY_SECONDS
    )
    reads = trace.to_host.calls
    if reads:
        step = host + max(dispatch, gpu_seconds) + reads * SYNC_SECONDS + copies
    else:
        step = max(host + dispatch, gpu_seconds) + copies
    (low_f, high_f), note = prediction_band(gpu, precision)
    share = host / step if step > 0 else 0.0  # the measured part carries the bench's interval
    below, above = relative_bench
    low = step * max(1 - math.hypot(1 - low_f, share * below), 0.05)
    high = step * (1 + math.hypot(high_f - 1, share * above)) if math.isfinite(above) else math.inf
    return Prediction(
        step,
        low,
        high,
        note=note,
        compute_seconds=compute,
        memory_seconds=gpu_seconds - compute,
        launch_seconds=host + dispatch,
        transfer_seconds=copies + reads * SYNC_SECONDS,
        kernels=trace.kernels,
        by_op=by_op,
    )
