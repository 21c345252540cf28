"""The GPU device model's constants, where each comes from, and its measured error.

Fitted (benchmarks/published.py --fit) to the 30 published single-GPU training step times in
shared/data/gpu-published (ResNet-50 v1.5, BERT-large SQuAD, ResNet-9; V100, A10 standing for the
A10G, A100, H100; FP32, TF32, AMP/FP16), by minimising the squared log error of predicted vs
published step time with every workload described by introspection (runner/bench/introspect.py)
of the example modules in examples/custom/. The fit has 8 free numbers for 30 points, each held under a physical ceiling; its honest
error is the leave-one-out (and leave-one-GPU-out) error printed by `make bench-published`.

Fixed, not fitted (sources):
- dispatch_seconds: eager PyTorch spends ~5-20 us of CPU per operator (Python, dispatcher, autograd,
  launch); 10 us sits in the middle of that range (PyTorch performance-tuning guide; the old
  model's 15 us was the same guess). It only matters for launch-bound steps.
- pcie_bytes_per_second: pinned host-to-device copies on PCIe 3/4 x16 reach ~12 GB/s.
- optimizer words: torch.optim's default (foreach) Adam reads and writes parameters, gradients and
  both moments over several passes (~16 fp32 words per parameter); SGD with momentum ~7.
- bf16_emulation: Volta and Turing have no bf16 tensor cores; PyTorch runs bf16 there anyway,
  converting to fp32 inside cuBLAS kernels (pytorch/pytorch PR #148322: "BF16 operations are
  software-emulated ... computations in fp32 ... slow, optimized kernels (like cublas) are
  missing"; cuDNN has no bf16 convolution engines below compute capability 8.0,
  huggingface/diffusers PR #14129). Modelled as the fp32 CUDA-core rate at half the fp32
  efficiency; no published measurement exists to fit it, so its interval is the widest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

GENERATIONS = ("volta", "turing", "ampere", "ada", "hopper")
TENSOR_CORE_BF16_TF32 = ("ampere", "ada", "hopper")  # bf16 and TF32 tensor cores (compute capability >= 8.0)


@dataclass(frozen=True)
class DeviceConstants:
    # Fraction of the precision's peak that a large kernel of the op class reaches, on tensor cores
    # ("tensor": TF32/FP16/BF16) and on CUDA cores ("cuda": FP32).
    gemm_tensor: float = 0.85
    conv_tensor: float = 0.3461
    gemm_cuda: float = 0.75
    conv_cuda: float = 0.85
    attention_scale: float = 0.6229  # batched attention GEMMs (and recurrent cells) vs a plain GEMM
    # Tensor-core efficiency of a generation relative to Ampere (older libraries do not reach
    # Hopper's peak: it needs larger tiles and wgmma kernels).
    generation_tensor: dict[str, float] = field(default_factory=lambda: {
        "volta": 1.0, "turing": 1.0, "ampere": 1.0, "ada": 1.0, "hopper": 0.4445})
    bandwidth_efficiency: float = 0.6958  # fraction of the memory bandwidth bandwidth-bound kernels reach
    kernel_ramp_seconds: float = 4.312e-6  # per kernel on the GPU: launch latency, ramp-up and tail wave
    dispatch_seconds: float = 10e-6  # per kernel on the CPU (eager PyTorch), overlaps with GPU work
    pcie_bytes_per_second: float = 12e9
    bf16_emulation: float = 0.5  # bf16 on Volta/Turing: fp32 CUDA-core rate x this x the fp32 efficiency

    def compute_efficiency(self, op: str, math: str, generation: str) -> float:
        tensor = math in ("tf32", "fp16", "bf16")
        group = "conv" if op in ("conv", "recurrent") else "gemm"
        base = {("gemm", True): self.gemm_tensor, ("conv", True): self.conv_tensor,
                ("gemm", False): self.gemm_cuda, ("conv", False): self.conv_cuda}[(group, tensor)]
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
# UNMEASURED_WIDENING; bf16 on Volta/Turing (emulated) uses the widest band.
# From `python benchmarks/published.py` (leave-one-out residuals of the 30 published points,
# 2026-11): each pair's band holds its own residuals and at least the pooled 10th-90th percentile
# band, with a 10% margin. bf16 on Ampere and later uses the fp16 band (same tensor-core rate).
INTERVALS: dict[tuple[str, str], tuple[float, float]] = {
    ("ampere", "fp16"): (0.66, 1.58),
    ("ampere", "tf32"): (0.69, 1.4),
    ("hopper", "fp16"): (0.69, 1.72),
    ("hopper", "tf32"): (0.69, 1.4),
    ("volta", "fp16"): (0.69, 1.4),
    ("volta", "fp32"): (0.69, 1.4),
}
POOLED_INTERVAL = (0.66, 1.72)
UNMEASURED_WIDENING = 1.25
EMULATED_INTERVAL = (0.5, 3.0)
CALIBRATED_UNCERTAINTY = 0.2
