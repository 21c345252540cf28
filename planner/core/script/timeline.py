"""What the launcher saw of a script's run (runner/script.py): its steps, epochs, DataLoaders, the traced step's work."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from planner.core.predict.trace import DTYPE_PRECISION
from planner.core.remarks import Remark, remark_from_json

WARMUP_SHARE = 0.1  # of the steps measured, at least MIN_WARMUP_STEPS: allocator, caches, lazy init


MIN_WARMUP_STEPS = 2


MIN_STEADY_STEPS = 5


ALIKE_SPREAD = 1.5  # steps whose middle half is within this ratio do alike work (see steps_alike)


# the launcher's class of ops run while a DataLoader fetches a batch in the main process
HOST_CLASS = "data"


@dataclass(frozen=True)
class Epoch:
    start: float
    end: float
    batches: int


@dataclass(frozen=True)
class LoaderUnderWay:
    """A DataLoader still being iterated when the measurement stopped: its batches so far and its length
    (0: an iterable dataset without one)."""

    start: float
    batches: int
    length: int


@dataclass(frozen=True)
class OpClassWork:
    """What one class of ops (gemm, conv, attention, recurrent, elementwise, copy, sync; data: a DataLoader's
    collate in the main process) did in the traced step."""

    ops: int
    flops: int
    bytes: int
    seconds: float  # inside the ops, on this machine


@dataclass(frozen=True)
class Moved:
    """Calls that would cross PCIe were the script's device a GPU, and the bytes they carry."""

    calls: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class StepTrace:
    """One steady step as PyTorch dispatched it (TorchDispatchMode over the whole interval between two
    step boundaries: forward passes outside the step too, an RL agent's action choices)."""

    start: float
    wall: float  # the traced step's wall time (slowed by the tracing: not a timing)
    op_seconds: float  # of it, inside PyTorch ops
    classes: dict[str, OpClassWork]
    uncounted: int = 0  # ops whose FLOPs PyTorch's formulas do not cover
    views: int = 0  # ops that only view a tensor: no kernel, nothing moved
    flops_by_dtype: dict[str, int] = field(default_factory=dict)
    to_device: Moved = Moved()  # .to(device), .cuda(), torch.tensor(..., device=)
    to_host: Moved = Moved()  # .item(), .cpu(), .tolist(): on a GPU, each a synchronisation
    op_overhead_seconds: float = 0.0  # one tiny eager op's cost outside its kernel on this CPU
    # the same under the trace (what tracing adds to every op)
    traced_op_overhead_seconds: float = 0.0
    saved_bytes: int = 0  # the activations autograd saved for the backward pass (each storage once)
    # the optimizers' parameters, gradients and state (0: not recorded, or no torch.optim)
    state_bytes: int = 0
    # FLOPs per op class and dtype (the stand-in's)
    class_dtypes: dict[str, dict[str, int]] = field(default_factory=dict)
    # compute ops with no FLOP formula -> how many
    uncounted_ops: dict[str, int] = field(default_factory=dict)
    peak_bytes: int = 0  # on the stand-in GPU: the most its storages held during the step (weights to activations)
    # fp32 matmuls ran on TF32 tensor cores (set_float32_matmul_precision, allow_tf32)
    matmul_tf32: bool = False

    def scaled_to(self, step_seconds: float, alike: bool = False) -> StepTrace:
        """The traced step as a mean step of `step_seconds` would run it: its wall without what tracing added to
        each op, and every time scaled by the mean step over that wall. Its work (ops, FLOPs, bytes, copies) is
        scaled the same way when steps differ (an RL episode traced may be longer or shorter than the mean one);
        when they are `alike` (a convnet's), the traced step's work is the mean step's, and what the time ratio
        holds besides is tracing's cost that the per-op correction missed, or the machine's noise."""
        added = (self.kernels + self.views) * max(
            self.traced_op_overhead_seconds - self.op_overhead_seconds, 0.0
        )
        wall = max(
            self.wall - added,
            self.op_seconds + (self.kernels + self.views) * self.op_overhead_seconds,
            1e-9,
        )
        k = step_seconds / wall
        work = 1.0 if alike else k

        def n(x: int) -> int:
            return int(round(x * work))

        return replace(
            self,
            wall=step_seconds,
            op_seconds=self.op_seconds * k,
            traced_op_overhead_seconds=self.op_overhead_seconds,
            classes={
                c: OpClassWork(n(w.ops), n(w.flops), n(w.bytes), w.seconds * k)
                for c, w in self.classes.items()
            },
            views=n(self.views),
            uncounted=n(self.uncounted),
            saved_bytes=n(self.saved_bytes),
            flops_by_dtype={d: n(f) for d, f in self.flops_by_dtype.items()},
            to_device=Moved(n(self.to_device.calls), n(self.to_device.bytes)),
            to_host=Moved(n(self.to_host.calls), n(self.to_host.bytes)),
        )

    @property
    def device_classes(self) -> dict[str, OpClassWork]:
        """The op classes that run on the script's device ("data": a DataLoader's collate in the main
        process, host work on any instance)."""
        return {c: w for c, w in self.classes.items() if c != HOST_CLASS}

    @property
    def kernels(self) -> int:
        return sum(c.ops for c in self.device_classes.values())

    @property
    def host_ops(self) -> OpClassWork:
        return self.classes.get(HOST_CLASS, OpClassWork(0, 0, 0, 0.0))

    @property
    def precision(self) -> str:
        """The step's math precision: the dtype most of its FLOPs ran in (fp32 when none were counted)."""
        counted = {
            DTYPE_PRECISION[d]: n for d, n in self.flops_by_dtype.items() if d in DTYPE_PRECISION
        }
        most = max(counted, key=lambda d: counted[d]) if counted else "fp32"
        return "tf32" if most == "fp32" and self.matmul_tf32 else most

    @property
    def flops(self) -> int:
        return sum(c.flops for c in self.device_classes.values())

    @property
    def bytes(self) -> int:
        return sum(c.bytes for c in self.device_classes.values())

    @property
    def device_bytes(self) -> int | None:
        """What a GPU would hold for the step: the optimizers' state, the activations saved for backward and
        the step's inputs sent to the device; None when the state was not recorded (no torch.optim, or a
        journal from before it was)."""
        if self.peak_bytes:  # the stand-in GPU's own count: every storage alive at the step's peak
            return self.peak_bytes
        return (
            self.state_bytes + self.saved_bytes + self.to_device.bytes if self.state_bytes else None
        )

    @property
    def uncounted_share(self) -> float:
        """The share of the step's compute ops (gemm, conv, attention, recurrent) whose FLOPs no formula counts."""
        compute = sum(
            w.ops
            for c, w in self.device_classes.items()
            if c in ("gemm", "conv", "attention", "recurrent")
        )
        return sum(self.uncounted_ops.values()) / compute if compute else 0.0

    @property
    def python_share(self) -> float:
        """The share of the step outside PyTorch ops: Python (an environment, data preparation)."""
        return max(self.wall - self.op_seconds, 0.0) / self.wall if self.wall > 0 else 0.0


@dataclass(frozen=True)
class StandinGpu:
    """The GPU a stand-in answers as (runner/standin.py DEFAULT_GPU, or the GPU a script is traced on again)."""

    name: str = "a GPU"
    capability: tuple[int, int] = (8, 0)
    memory_bytes: int = 0
    sm_count: int = 0

    def to_json(self) -> dict[str, object]:
        """As the launcher's --standin takes it."""
        return {**asdict(self), "capability": list(self.capability)}


@dataclass(frozen=True)
class StandinSeen:
    """What the stand-in GPU was and saw (runner/standin.py StandIn.summary)."""

    gpu: StandinGpu
    used: bool = False  # the script put tensors on it
    compiled: int = 0  # torch.compile calls: traced eager
    syncs: int = 0  # values read back and synchronisations, over the whole run traced
    # the script's lines that read values back -> how many
    read_sites: dict[str, int] = field(default_factory=dict)
    # what it asked of the GPU whose answer differs by GPU
    asked: list[str] = field(default_factory=list)
    autocast: list[str] = field(default_factory=list)  # autocast dtypes entered on cuda
    matmul_tf32: bool = False
    cudnn_tf32: bool = True
    peak_bytes: int = 0


@dataclass(frozen=True)
class ScriptRun:
    """The launcher's result (seconds since the spawn)."""

    status: str  # ok | error (the script failed before its first step)
    stopped_because: str  # budget | max_steps | finished | error | cap (stopped at the planner's cap: its last interim result) | interrupted (a spot notice)
    boundary: str  # optimizer | backward | none
    steps: list[float]
    epochs: list[Epoch] = field(default_factory=list)
    optimizers: int = 0
    # optimizer steps given a closure (LBFGS), each one step however many passes it ran
    closure_steps: int = 0
    closure_passes: float | None = None  # the median forward and backward passes of one such step
    message: str = ""
    imports_done: float | None = None
    wall: float = 0.0
    cuda_used: bool = False
    device_name: str = ""  # the GPU's name when the script used one, else the CPU's
    steady: bool = True  # False: the step time had not settled (drift, moving windows) when it stopped (at 3x its budget)
    # runner/script.py's settle figures when it last decided (None: it never had to)
    drift: float | None = None
    windows_spread: float | None = None
    threads: int = 0
    trace: StepTrace | None = None
    # DataLoader iterations begun (None: a journal from before it was counted)
    loaders_started: int | None = None
    under_way: list[LoaderUnderWay] = field(default_factory=list)
    # other processes or the hypervisor took the CPUs meanwhile (BusyWhileMeasured)
    busy_warnings: list[Remark] = field(default_factory=list)
    # it asked PyTorch for a GPU (False: never, so it never uses one; None: not known)
    gpu_asked: bool | None = None
    # CPUs' worth of time other processes used while the steps were measured
    other_cpus: float | None = None
    # a run on the stand-in GPU (runner/standin.py): what it was and saw
    standin: StandinSeen | None = None
    # on the stand-in: the script's own CPU seconds of each step
    host_cpu: list[float] = field(default_factory=list)
    # the same script traced on the stand-in GPU: its GPU rows come from it
    gpu_run: ScriptRun | None = None
    # on gpu_run: traced again as a T4 (it asked about bf16): Turing/Volta rows
    gpu_run_no_bf16: ScriptRun | None = None
    # the script failed on the stand-in GPU: its own error (its GPU rows then come from this CPU's trace)
    standin_error: str = ""
    predicted_here: str = ""  # why it could not be measured on this CPU: its steps here are predicted (predicted_here())
    stops_here: bool = False  # predicted here because it stops on a CPU as written (CUDA hard-coded), not for its pace
    # the launcher set torch's threads to the CPUs free: threads, free_cpus, cpus
    threads_fitted: dict[str, float] | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScriptRun:
        """The launcher's result file, read by the dataclasses' own types (pydantic, as the plan document is)."""
        from pydantic import TypeAdapter

        busy = [remark_from_json(w) for w in data.get("busy_warnings") or []]
        return TypeAdapter(cls).validate_python({**data, "busy_warnings": busy})
