"""Pure: predict a training step on hardware that was not measured (values in, values out: no
torch, no files, no clock). Design notes: docs/reference/modules.md
(planner/core/predict/__init__.py)."""

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
