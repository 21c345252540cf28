"""The GPU device model's constants, where each comes from, and its measured error. Design notes:
docs/reference/modules.md (planner/core/predict/constants.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

TENSOR_CORE_BF16_TF32 = (
    "ampere",
    "ada",
    "hopper",
)  # bf16 and TF32 tensor cores (compute capability >= 8.0)


@dataclass(frozen=True)
class DeviceConstants:
    # Fraction of the precision's peak that a large kernel of the op class reaches, on tensor cores
    # ("tensor": TF32/FP16/BF16) and on CUDA cores ("cuda": FP32).
    gemm_tensor: float = 0.85
    conv_tensor: float = 0.3527
    gemm_cuda: float = 0.6702
    conv_cuda: float = 0.85
    attention_scale: float = 0.7102  # batched attention GEMMs (and recurrent cells) vs a plain GEMM
    # Tensor-core efficiency of a generation relative to Ampere (older libraries do not reach
    # Hopper's peak: it needs larger tiles and wgmma kernels).
    generation_tensor: dict[str, float] = field(
        default_factory=lambda: {
            "volta": 1.0,
            "turing": 1.0,
            "ampere": 1.0,
            "ada": 1.0,
            "hopper": 0.6,
        }
    )
    # fraction of the memory bandwidth bandwidth-bound kernels reach
    bandwidth_efficiency: float = 0.5989
    # per kernel on the GPU: launch latency, ramp-up and tail wave. Fitted to the 30 full steps (2026-11-22)
    # and held there: the 15 large-transformer points cannot identify it (a free refit drifted to 16 us,
    # which would slow every small network by a third on no evidence of small networks).
    kernel_ramp_seconds: float = 4.312e-6
    # per traced op on the CPU (eager PyTorch), overlaps with GPU work
    dispatch_seconds: float = 10e-6
    # per kernel a spec's model counts, its Python included (see above)
    spec_dispatch_seconds: float = 38e-6
    # per step of a spec's bench, beside the kernels (see above)
    step_overhead_seconds: float = 0.6e-3
    pcie_bytes_per_second: float = 12e9
    # bf16 on Volta/Turing: fp32 CUDA-core rate x this x the fp32 efficiency
    bf16_emulation: float = 0.5
    # Power drawn by one SM under full load per GHz^3 of its clock: what decides the clock a
    # power-limited board sustains (planner.core.predict.gpu.sustained_clock_fraction). Fitted.
    watts_per_sm_ghz3: float = 1.057

    def compute_efficiency(self, op: str, math: str, generation: str) -> float:
        tensor = math in ("tf32", "fp16", "bf16")
        group = "conv" if op in ("conv", "recurrent") else "gemm"
        base = {
            ("gemm", True): self.gemm_tensor,
            ("conv", True): self.conv_tensor,
            ("gemm", False): self.gemm_cuda,
            ("conv", False): self.conv_cuda,
        }[(group, tensor)]
        if op in ("attention", "recurrent"):
            base *= self.attention_scale
        if tensor:
            base *= self.generation_tensor.get(generation, 1.0)
        if math == "bf16-emulated":
            base *= self.bf16_emulation
        return min(base, 1.0)


DEFAULT = DeviceConstants()

# Interval: the model's measured error, as factors (low, high) on the predicted step: the published
# value fell within [step x low, step x high] for the leave-one-out predictions of the calibration
# set, per (generation, precision). Pairs without published points use the pooled band widened by
# UNMEASURED_WIDENING, as does a GPU no published training figure backs at that precision (T4, A10G,
# L40S: their predictions rest on their sheets, power limits and their generation's evidence); bf16 on Volta/Turing (emulated) uses the widest band.
# From `python benchmarks/published.py` (leave-one-out residuals of the 45 published points,
# 2026-11-24): each pair's band holds its own residuals and at least the pooled 10th-90th percentile
# band, with a 10% margin. bf16 on Ampere and later uses the fp16 band (same tensor-core rate).
INTERVALS: dict[tuple[str, str], tuple[float, float]] = {
    ("ada", "fp32"): (0.74, 1.32),
    ("ampere", "fp16"): (0.7, 1.54),
    ("ampere", "fp32"): (0.74, 1.32),
    ("ampere", "tf32"): (0.74, 1.32),
    ("hopper", "fp16"): (0.66, 1.64),
    ("hopper", "fp32"): (0.74, 1.32),
    ("hopper", "tf32"): (0.73, 1.32),
    ("volta", "fp16"): (0.65, 1.32),
    ("volta", "fp32"): (0.74, 1.32),
}
POOLED_INTERVAL = (0.65, 1.64)
UNMEASURED_WIDENING = 1.25
EMULATED_INTERVAL = (0.5, 3.0)
CALIBRATED_UNCERTAINTY = 0.2
