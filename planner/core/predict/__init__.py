"""Pure: predict a training step on hardware that was not measured (values in, values out: no
torch, no files, no clock).

- `gpu`: the GPU device model — per op class and GPU generation, a fraction of the precision's
  peak (TF32 where PyTorch uses it), a per-kernel ramp, bandwidth-bound elementwise work and
  optimizer, CPU-side dispatch per kernel, host-to-device copies; interval from the model's own
  cross-validated error on published measurements.
- `constants`: the fitted constants, their sources, and the interval table.
- `cpu`: CPU instances from their processor's facts relative to this machine's measurement.
- `fabric`: a gradient all-reduce on an instance's GPU interconnect or across instances (NCCL's model).
- `parallel`: a data-parallel (DDP) step on N GPUs: the per-GPU step, bucketed all-reduce, overlap.
"""

from planner.core.predict.cpu import (
    CpuFacts,
    cpu_speed_ratio,
    parallel_fraction,
    physical_cores,
    predict_cpu,
    predict_cpu_unmeasured,
)
from planner.core.predict.fabric import Fabric, Interconnect, allreduce_seconds, fabric_for
from planner.core.predict.gpu import (
    GpuSpec,
    Prediction,
    gpu_spec_from_row,
    kernels_per_step,
    math_mode,
    predict_gpu,
    step_breakdown,
)
from planner.core.predict.parallel import ParallelPrediction, predict_data_parallel, scaling_note

__all__ = [
    "CpuFacts",
    "Fabric",
    "GpuSpec",
    "Interconnect",
    "ParallelPrediction",
    "Prediction",
    "allreduce_seconds",
    "cpu_speed_ratio",
    "fabric_for",
    "gpu_spec_from_row",
    "kernels_per_step",
    "math_mode",
    "parallel_fraction",
    "physical_cores",
    "predict_cpu",
    "predict_cpu_unmeasured",
    "predict_data_parallel",
    "predict_gpu",
    "scaling_note",
    "step_breakdown",
]
