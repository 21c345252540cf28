"""The GPU device model's constants, where each comes from, and its measured error.

Fitted (benchmarks/published.py --fit) to the 45 published single-GPU training times in
shared/data/gpu-published: 30 full steps (ResNet-50 v1.5, BERT-large SQuAD, ResNet-9; V100, A10,
A100, H100; FP32, TF32, AMP/FP16) and 15 forward + backward passes of large transformers in plain
FP32 (BERT-large, GPT-2 large, OPT-1.3B, a 2.7B GPT; L4, V100, A100, H100), compared with the
model's forward + backward (no update). Each point is predicted on the part it was measured on
(pricing/data/gpu_parts.csv: an A10 for the A10G, the 80 GB PCIe A100, ...), with its own power
limit and clocks; workloads are described as a user's would be (introspection of examples/custom/,
the built-in transformer for the second set). The fit minimises the squared log error; 8 free
numbers for 45 points (the kernel ramp is held, see below), each held under a physical ceiling; its honest error is the leave-one-out
(and leave-one-GPU-out) error printed by `make bench-published`.

Fixed, not fitted (sources):
- dispatch_seconds: eager PyTorch spends ~5-20 us of CPU per operator (Python, dispatcher, autograd,
  launch); 10 us sits in the middle of that range (PyTorch performance-tuning guide; the old
  model's 15 us was the same guess). It only matters for launch-bound steps.
- spec_dispatch_seconds, step_overhead_seconds: a spec's step as the planner's bench runs it in eager PyTorch,
  launch-bound (a small network), on a real GPU: small-cnn 1.87 ms for the 33 kernels the model counts,
  tiny-transformer 10.5 ms for 256, on an H200 whose CPU launches an eager op in 7.5 us from Python
  (`make bench-device`, benchmarks/results/device-h200-2026-11-28.csv): a line through them, 38 us a counted
  kernel (the module Python, autograd and the several real ops a counted kernel stands for) and 0.6 ms a step
  (zero_grad, the loss, the step's synchronisation). With dispatch_seconds alone those steps came out 3-4x too
  fast: every small network's GPU row was too good. The published points are GPU-bound: unchanged.
  A script's trace counts its real ops and measures its Python: it keeps dispatch_seconds.
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
