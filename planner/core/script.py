"""Pure: a user's training script as the launcher saw it (runner/script.py: the end of every step,
every DataLoader epoch) -> its parts and the whole run, with an honest interval.

    whole run = setup + steps x step time + epochs x time between epochs + exit

- setup: spawn to the start of the first step (interpreter, imports, data, model), i.e. the first
  step's end less one steady step, plus what the warm-up steps after it took beyond steady ones
  (allocator, caches, oneDNN primitives: a step of the first epoch ran ~40% slower here);
- step time: the mean of the steady steps (the first WARMUP_SHARE dropped, and every step that
  spans an epoch boundary: it holds the evaluation, the checkpoint), its 95% interval (normal
  approximation) and the run-to-run noise of a machine, in quadrature (planner/core/estimate.py);
  when the steady steps' windows (20 of them) move more than that interval allows (an RL agent's
  episodes lengthen and shorten as it learns; a machine changes speed), the steps not measured may
  run at any of their levels: the interval is the windows' own standard deviation instead (the launcher
  measured on to 3x its budget while they moved more than runner/script.py's STEADY_WINDOWS, and a plan from a measurement
  that never settled says so: an agent whose later episodes are longer runs longer than planned);
- between epochs: what a step spanning an epoch's end takes beyond the median steady step (the evaluation
  pass, a checkpoint, the next epoch's first batch), the median over the boundaries seen; without a
  boundary it is not known, and the estimate says so instead of pretending it is nothing;
- steps: `--total-steps`, or `--epochs` x the optimizer steps of one whole training epoch seen (a
  DataLoader iterated to its end with steps in it; an evaluation loader has none; accumulation shows as
  fewer steps than batches); with no whole epoch seen, a training DataLoader still under way gives them
  as its length / the batches per step seen so far (an epoch longer than the measurement); when neither
  can be known, InputError saying why (no DataLoader at all, or one without a length).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace
from typing import Any

from planner.core.candidates import (
    LOCAL,
    Candidate,
    Hardware,
    Target,
    does_not_fit_note,
    fits,
    widened,
)
from planner.core.decide import ErrorBasis, Said
from planner.core.estimate import (
    PROCESS_EXIT_SECONDS,
    RUN_TO_RUN_NOISE,
    StepMeasurement,
    estimate_training,
    relative_half_widths,
)
from planner.core.formats import human_bytes, rough_duration
from planner.core.kinds import Device
from planner.core.predict.cpu import (
    UNMEASURED_UNCERTAINTY,
    CpuFacts,
    cpu_speed_ratio,
    physical_cores,
    predict_cpu,
    predict_cpu_unmeasured,
)
from planner.core.predict.trace import DTYPE_PRECISION, host_seconds, predict_trace_gpu
from planner.core.task import TaskOrigin, secret_env
from planner.errors import InputError
from pricing.facts import InstanceFacts

WARMUP_SHARE = 0.1  # of the steps measured, at least MIN_WARMUP_STEPS: allocator, caches, lazy init
MIN_WARMUP_STEPS = 2
MIN_STEADY_STEPS = 5
ALIKE_SPREAD = 1.5  # steps whose middle half is within this ratio do alike work (see steps_alike)
HOST_CLASS = (
    "data"  # the launcher's class of ops run while a DataLoader fetches a batch in the main process
)


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
    traced_op_overhead_seconds: float = (
        0.0  # the same under the trace (what tracing adds to every op)
    )
    saved_bytes: int = 0  # the activations autograd saved for the backward pass (each storage once)
    state_bytes: int = (
        0  # the optimizers' parameters, gradients and state (0: not recorded, or no torch.optim)
    )
    class_dtypes: dict[str, dict[str, int]] = field(
        default_factory=dict
    )  # FLOPs per op class and dtype (the stand-in's)
    uncounted_ops: dict[str, int] = field(
        default_factory=dict
    )  # compute ops with no FLOP formula -> how many
    peak_bytes: int = 0  # on the stand-in GPU: the most its storages held during the step (weights to activations)
    matmul_tf32: bool = (
        False  # fp32 matmuls ran on TF32 tensor cores (set_float32_matmul_precision, allow_tf32)
    )

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
class StandinSeen:
    """What the stand-in GPU was and saw (runner/standin.py StandIn.summary)."""

    gpu: dict[str, Any]
    used: bool = False  # the script put tensors on it
    compiled: int = 0  # torch.compile calls: traced eager
    syncs: int = 0  # values read back and synchronisations, over the whole run traced
    read_sites: dict[str, int] = field(
        default_factory=dict
    )  # the script's lines that read values back -> how many
    asked: list[str] = field(
        default_factory=list
    )  # what it asked of the GPU whose answer differs by GPU
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
    closure_steps: int = (
        0  # optimizer steps given a closure (LBFGS), each one step however many passes it ran
    )
    closure_passes: float | None = None  # the median forward and backward passes of one such step
    message: str = ""
    imports_done: float | None = None
    wall: float = 0.0
    cuda_used: bool = False
    device_name: str = ""  # the GPU's name when the script used one, else the CPU's
    steady: bool = True  # False: the step time had not settled (drift, moving windows) when it stopped (at 3x its budget)
    drift: float | None = (
        None  # runner/script.py's settle figures when it last decided (None: it never had to)
    )
    windows_spread: float | None = None
    threads: int = 0
    trace: StepTrace | None = None
    loaders_started: int | None = (
        None  # DataLoader iterations begun (None: a journal from before it was counted)
    )
    under_way: list[LoaderUnderWay] = field(default_factory=list)
    busy_warnings: list[str] = field(
        default_factory=list
    )  # other processes or the hypervisor took the CPUs meanwhile
    gpu_asked: bool | None = (
        None  # it asked PyTorch for a GPU (False: never, so it never uses one; None: not known)
    )
    other_cpus: float | None = (
        None  # CPUs' worth of time other processes used while the steps were measured
    )
    standin: StandinSeen | None = (
        None  # a run on the stand-in GPU (runner/standin.py): what it was and saw
    )
    host_cpu: list[float] = field(
        default_factory=list
    )  # on the stand-in: the script's own CPU seconds of each step
    gpu_run: ScriptRun | None = (
        None  # the same script traced on the stand-in GPU: its GPU rows come from it
    )
    gpu_run_no_bf16: ScriptRun | None = (
        None  # on gpu_run: traced again as a T4 (it asked about bf16): Turing/Volta rows
    )
    predicted_here: str = ""  # why it could not be measured on this CPU: its steps here are predicted (predicted_here())
    threads_fitted: dict[str, float] | None = (
        None  # the launcher set torch's threads to the CPUs free: threads, free_cpus, cpus
    )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScriptRun:
        """The launcher's result file, read by the dataclasses' own types (pydantic, as the plan document is)."""
        from pydantic import TypeAdapter

        return TypeAdapter(cls).validate_python(data)


PER_STEPS = 1_000  # without the run's length, the plan is of this many steps
LENGTHS = tuple(
    m * 10**k for k in range(2, 9) for m in (1, 2, 5)
)  # the lengths the answer is checked at, then bisected


@dataclass(frozen=True)
class Crossover:
    """The run length (steps) from which the headline's pick is `after`, `before` below it."""

    steps: int
    before: str
    after: str


LENGTH_NOT_GIVEN = "the run's length was not given"  # length_free_warning's opening words: the report finds it by them


def length_free_warning(crossovers: list[Crossover]) -> str:
    """What a plan without the run's length says: that it is of PER_STEPS steps, and where the answer changes."""

    def shown(target: str) -> str:
        return (
            "train here"
            if target == "local"
            else "nothing"
            if target == "none"
            else f"rent {target.removeprefix('aws:')}"
        )

    if crossovers:
        changes = "; ".join(
            f"{shown(c.before)} below ~{c.steps:,} steps, {shown(c.after)} above"
            for c in crossovers
        )
        where = f"the answer changes with the length: {changes}"
    else:
        where = (
            f"the answer is the same at every length from {LENGTHS[0]:,} to {LENGTHS[-1]:,} steps"
        )
    return (
        f"{LENGTH_NOT_GIVEN}: planned for {PER_STEPS:,} steps (each row's time and cost per "
        f"{PER_STEPS:,}); {where}; give --total-steps N for your run's (or --epochs N, counted in a DataLoader's "
        "epochs)"
    )


class RunLengthUnknown(InputError):
    """The whole run's length cannot be known from the measurement (no --total-steps, and --epochs without a
    DataLoader epoch to count steps in, or neither): the measurement stands, and a length given later plans it."""


@dataclass(frozen=True)
class ScriptLength:
    """How long the whole run is, as the user gives it: optimizer steps, or DataLoader epochs (None: not given)."""

    total_steps: int | None = None
    epochs: int | None = None


@dataclass(frozen=True)
class ScriptEnv:
    """What a script gets in its environment beyond the planner's own (a SkyPilot task's `envs` and `secrets`,
    `--env`, `--secret`): `envs` are set wherever it runs, journaled and sent with it to an instance; `secrets` are
    set here only — never journaled, never uploaded. An env whose name looks like a secret (an API key, a token, a
    password, a cloud's credentials: planner.core.task.secret_env) is a secret, wherever it was given."""

    envs: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls, envs: dict[str, str] | None = None, secrets: dict[str, str] | None = None
    ) -> ScriptEnv:
        both = sorted(set(envs or {}) & set(secrets or {}))
        if both:  # which would the script get, here and on an instance?
            raise InputError(
                f"{', '.join(both)}: given both as an env and as a secret",
                hint="give each name once: --env/envs (set everywhere) or --secret/secrets (set here only)",
            )
        envs, hidden = dict(envs or {}), set(secret_env(envs or {}))
        return cls(
            {k: v for k, v in envs.items() if k not in hidden},
            {**{k: v for k, v in envs.items() if k in hidden}, **(secrets or {})},
        )

    @property
    def here(self) -> dict[str, str]:
        """The environment it gets on this machine."""
        return {**self.envs, **self.secrets}

    def __bool__(self) -> bool:
        return bool(self.envs or self.secrets)

    def said(self) -> list[str]:
        """One line saying what it gets (names only: a value may be a secret's), none when it gets nothing."""
        if not self:
            return []
        parts = ([f"{', '.join(self.envs)} set here and on instances"] if self.envs else []) + (
            [
                f"{', '.join(self.secrets)} set here only (a secret is never journaled or uploaded: on an instance the "
                "script runs without it)"
            ]
            if self.secrets
            else []
        )
        return ["the script's environment: " + "; ".join(parts)]

    def leaked_in(self, args: list[str]) -> str | None:
        """The name of a secret whose value is in the script's arguments (a shell's `-- --token $HF_TOKEN`), which
        the planner prints, journals and sends to instances; None when none is."""
        return next(
            (k for k, v in self.secrets.items() if len(v) >= 4 and any(v in a for a in args)), None
        )


@dataclass(frozen=True)
class ScriptJob:
    """What a run of a script measures (the journal's script.json): the script as the user named it and
    where it is, its own arguments, the whole run's length as given, the seconds of steps measured, the
    folder it runs in when it is not the script's own."""

    script: str
    path: str
    args: list[str] = field(default_factory=list)
    total_steps: int | None = None
    epochs: int | None = None
    seconds: float = 10.0
    workdir: str | None = (
        None  # the folder it ran in and shipped (--workdir); None: the script's own
    )
    env: dict[str, str] = field(
        default_factory=dict
    )  # ScriptEnv.envs it ran with (its secrets are not journaled)
    secret_names: list[str] = field(
        default_factory=list
    )  # the names of the secrets it ran with here
    task: TaskOrigin | None = (
        None  # the SkyPilot task that named it (None: the script itself was given)
    )

    @property
    def length(self) -> ScriptLength:
        return ScriptLength(self.total_steps, self.epochs)

    def with_length(self, length: ScriptLength | None) -> ScriptJob:
        """The job planned for another length (None: its own)."""
        return (
            self
            if length is None
            else replace(self, total_steps=length.total_steps, epochs=length.epochs)
        )

    @classmethod
    def from_json(cls, data: Any) -> ScriptJob:
        from pydantic import TypeAdapter

        return TypeAdapter(cls).validate_python(data)


@dataclass(frozen=True)
class ScriptEstimate:
    setup_seconds: float
    step_seconds: float
    step_low: float
    step_high: float
    steps_measured: int
    warmup_steps: int
    steps_per_epoch: (
        float | None
    )  # optimizer steps in one whole epoch seen; None: no whole epoch seen
    between_epochs_seconds: float | None  # None: no epoch boundary seen
    total_steps: int
    epochs: float  # the epochs the whole run has (total_steps / steps_per_epoch when known)
    seconds: float
    low: float
    high: float
    warnings: list[str] = field(default_factory=list)  # what makes the estimate less certain
    notes: list[str] = field(default_factory=list)  # how it was made
    after_seconds: float | None = (
        None  # what ran after the last step, measured (the run finished while measured)
    )

    @property
    def said(self) -> Said:
        return Said(self.warnings, self.notes)


def _durations(run: ScriptRun) -> tuple[list[float], list[float], int, list[float]]:
    """(steady step durations, durations of steps that span an epoch's end, warm-up steps dropped, the
    durations of the warm-up steps after the first that span no epoch's end and were not traced)."""
    ends = run.steps
    spans = {i for e in run.epochs for i in range(1, len(ends)) if ends[i - 1] <= e.end < ends[i]}
    traced = (
        set()
        if run.trace is None
        else {  # ran slower under the dispatch mode: not a timing
            i
            for i in range(1, len(ends))
            if ends[i] > run.trace.start and ends[i - 1] < run.trace.start + run.trace.wall
        }
    )
    warmup = max(MIN_WARMUP_STEPS, int(len(ends) * WARMUP_SHARE))
    steady = [
        ends[i] - ends[i - 1] for i in range(max(1, warmup), len(ends)) if i not in spans | traced
    ]
    warming = [
        ends[i] - ends[i - 1] for i in range(1, min(warmup, len(ends))) if i not in spans | traced
    ]
    return steady, [ends[i] - ends[i - 1] for i in sorted(spans - traced)], warmup, warming


def steps_alike(run: ScriptRun) -> bool:
    """Whether the script's steady steps do alike work: their middle half within 1.5x (a convnet's batches, even
    on a noisy machine: ~1.1-1.3x; an RL agent's episodes while it learns: ~1.7-1.9x, measured on
    examples/scripts/reinforce.py). On a machine other processes kept busy, times spread whatever the work: steps a
    DataLoader fed (a batch each, or the same few) are then alike by their work (a trial: a fixed-work convnet's traced
    step was said as 17 to 69 kernels from one busy run to the next, scaled by its spread times)."""
    steady = _durations(run)[0]
    if len(steady) < 4:
        return False
    q1, _, q3 = statistics.quantiles(steady, n=4)
    if q1 > 0 and q3 / q1 <= ALIKE_SPREAD:
        return True
    fed = any(e.batches > 0 for e in run.under_way) or any(e.batches > 0 for e in run.epochs)
    return bool(run.busy_warnings) and fed


@dataclass(frozen=True)
class StandinStep:
    """A step of the script as the stand-in GPU traced it: its ops (the GPU's work) and the script's own host work
    measured here (median CPU seconds of the steps past the first two, and that median's relative half-widths)."""

    trace: StepTrace
    host_seconds: float
    relative: tuple[float, float]
    seen: StandinSeen


def standin_step(run: ScriptRun) -> StandinStep | None:
    """The stand-in GPU's step of this script (None: it was not traced there, or no step was traced)."""
    return traced_step(run.gpu_run)


def traced_step(gpu: ScriptRun | None) -> StandinStep | None:
    """The step of a run on the stand-in GPU (None: no step was traced there)."""
    if gpu is None or gpu.trace is None or gpu.standin is None or not gpu.standin.used:
        return None
    host = sorted(gpu.host_cpu[2:] or gpu.host_cpu)
    if not host:
        return None
    median = host[len(host) // 2]
    # the middle half of the steps' host time about their median: its spread, the band the host's share carries
    low, high = host[len(host) // 4], host[min(len(host) - 1, (3 * len(host)) // 4)]
    relative = (
        (median - low) / median if median > 0 else 0.0,
        (high - median) / median if median > 0 else 0.0,
    )
    trace = replace(gpu.trace, matmul_tf32=gpu.standin.matmul_tf32)
    return StandinStep(trace, median, (max(relative[0], 0.05), max(relative[1], 0.05)), gpu.standin)


def step_here_from_trace(
    gpu_run: ScriptRun, cpu: CpuFacts | None, cores: int
) -> tuple[float, float] | None:
    """A step of the script on this CPU as its trace on the stand-in GPU predicts it, and the low end of that
    prediction: its own host work the stand-in measured here plus the traced work (FLOPs and bytes) at this
    processor's rates in fp32. None without a traced step or this CPU's facts."""
    on = traced_step(gpu_run)
    if on is None or cpu is None:
        return None
    t = on.trace
    work = predict_cpu_unmeasured(
        float(t.flops), t.kernels, cores, cpu, "fp32", moved_bytes=float(t.bytes)
    )
    if work.step_seconds is None or work.low is None:
        return None
    return on.host_seconds + work.step_seconds, on.host_seconds + work.low


def too_slow_here(
    gpu_run: ScriptRun,
    cpu: CpuFacts | None,
    cores: int,
    cap_seconds: float,
    memory_bytes: int | None,
) -> str | None:
    """Why measuring the script on this CPU is not worth starting, from its trace on the stand-in GPU: even the low end
    of its predicted step here leaves too few steps to time within the cap, or its step's peak memory (as the stand-in
    GPU counted it) is more than this machine has free. None when it is worth measuring."""
    guess = step_here_from_trace(gpu_run, cpu, cores)
    on = traced_step(gpu_run)
    need = (
        MIN_STEADY_STEPS + 2
    )  # the measurement's warm-up, traced and steady steps (capped_too_soon)
    if guess is not None and guess[1] * need > cap_seconds:
        return (
            f"its step would take ~{rough_duration(guess[0])} here, as its trace predicts: too long to time {need} steps "
            f"within the {cap_seconds:.0f} s cap, so it was not run here"
        )
    if on is not None and memory_bytes and on.trace.peak_bytes > memory_bytes:
        return (
            f"its step holds {human_bytes(on.trace.peak_bytes)} at its peak on the stand-in GPU, more than the "
            f"{human_bytes(memory_bytes)} free here, so it was not run here"
        )
    return None


def predicted_here(
    gpu_run: ScriptRun, why: str, cpu: CpuFacts | None, cores: int
) -> ScriptRun | None:
    """The script's run on this CPU as its trace on the stand-in GPU predicts it, for a script that cannot be measured
    here (`why`: CUDA hard-coded, its first step past the cap). A step here is the script's own host work the stand-in
    measured on this CPU plus the traced work (FLOPs and bytes) at this processor's rates in fp32
    (predict_cpu_unmeasured: a script that cannot run on a CPU as written runs there in fp32 once it can); the
    stand-in's timeline re-timed to it, its setup, epochs and DataLoaders kept where it saw them, with enough steps
    to plan from. None without a traced step or this CPU's facts."""
    on = traced_step(gpu_run)
    guess = step_here_from_trace(gpu_run, cpu, cores)
    if on is None or cpu is None or guess is None or not gpu_run.steps:
        return None
    t = on.trace
    step = guess[0]
    ends = gpu_run.steps
    gaps = sorted(b - a for a, b in zip(ends, ends[1:]))
    start = max(
        ends[0] - (gaps[len(gaps) // 2] if gaps else 0.0), 0.0
    )  # the first step began about a step earlier
    new = [start + (k + 1) * step for k in range(max(len(ends), 4 * MIN_STEADY_STEPS))]

    def retimed(x: float) -> float:
        """A moment of the stand-in's run on the new timeline: shifted with the step it falls in."""
        k = next((i for i, e in enumerate(ends) if x <= e), len(ends) - 1)
        return x - ends[k] + new[k]

    cpu_trace = replace(t, flops_by_dtype={"float32": t.flops}, class_dtypes={}, matmul_tf32=False)
    return replace(
        gpu_run,
        steps=new,
        stopped_because="budget",
        steady=True,
        drift=None,
        windows_spread=None,
        epochs=[Epoch(retimed(e.start), retimed(e.end), e.batches) for e in gpu_run.epochs],
        under_way=[replace(u, start=retimed(u.start)) for u in gpu_run.under_way],
        wall=new[-1],
        cuda_used=False,
        device_name=cpu.name,
        trace=cpu_trace,
        standin=None,
        host_cpu=[],
        busy_warnings=[],
        gpu_run=gpu_run,
        predicted_here=why,
        gpu_asked=True,
    )  # it put its work on the GPU (a `.cuda()` asks no question): GPU rows are its own


def gpu_precision(run: ScriptRun) -> str:
    """The precision the script's step runs in on a GPU: the stand-in GPU's trace, else this CPU's."""
    on = standin_step(run)
    return on.trace.precision if on is not None else run.trace.precision if run.trace else "fp32"


def mean_trace(run: ScriptRun, est: ScriptEstimate) -> StepTrace | None:
    """The traced step as a mean one (StepTrace.scaled_to), None when no step was traced."""
    return run.trace.scaled_to(est.step_seconds, alike=steps_alike(run)) if run.trace else None


def _windows(durations: list[float], size: int) -> list[float]:
    """The mean of each `size` consecutive steps, in step order."""
    return [
        statistics.fmean(durations[i : i + size]) for i in range(0, len(durations) - size + 1, size)
    ]


def paired_windows(first: ScriptRun, second: ScriptRun, windows: int = 20) -> list[float]:
    """Two measurements of the same script, window by window (the same steps, at least 5 a window, up to
    `windows`): the second's mean step over the first's. A seeded script runs the same steps both times,
    so these ratios move with the machine, not with the workload (an RL agent's episodes grow as it learns:
    its own windows spread whatever the machine does)."""
    one, two = _durations(first)[0], _durations(second)[0]
    size = max(5, min(len(one), len(two)) // windows)
    return [b / a for a, b in zip(_windows(one, size), _windows(two, size)) if a > 0]


def _steps_per_epoch_from_length(run: ScriptRun) -> tuple[float, int, float] | None:
    """(steps per epoch, the loader's length, batches per step) of the training DataLoader under way when the
    measurement stopped: the one with the most steps in it (at least 3), of a known length."""
    best: tuple[int, LoaderUnderWay] | None = None
    for e in run.under_way:
        n = sum(1 for t in run.steps if t > e.start)
        if e.length > 0 and e.batches > 0 and n >= 3 and (best is None or n > best[0]):
            best = (n, e)
    if best is None:
        return None
    n, e = best
    per_step = max(round(e.batches / n), 1)  # accumulation: whole batches per optimizer step
    return float(math.ceil(e.length / per_step)), e.length, float(per_step)


def _why_no_epoch(run: ScriptRun) -> str:
    """Why --epochs cannot be counted in steps, from what the launcher saw."""
    if run.loaders_started == 0:
        return (
            f"the script iterated no DataLoader in the {len(run.steps):,} steps measured, so --epochs (DataLoader "
            "epochs) cannot be counted in steps"
        )
    if run.under_way and all(e.length == 0 for e in run.under_way):
        return "its DataLoader has no length (an iterable dataset), so --epochs cannot be counted in steps"
    return "no whole DataLoader epoch was seen, so --epochs cannot be counted in steps"


def steady_step(run: ScriptRun) -> tuple[float, float]:
    """The mean steady step (no warm-up, no traced step, no step spanning an epoch's end) and its relative
    half-width: the step a plan of the script uses, and the one its progress line says. InputError when too few
    steps were steady."""
    steady, _, warmup, _ = _durations(run)
    return _steady_step(run, steady, warmup)


def _steady_step(run: ScriptRun, steady: list[float], warmup: int) -> tuple[float, float]:
    """steady_step over the steady durations _durations found (estimate_script has them already)."""
    if len(steady) < MIN_STEADY_STEPS:
        raise InputError(
            f"the script took {len(run.steps)} step(s) before it stopped ({run.stopped_because}): too few "
            f"to time a steady step (at least {MIN_STEADY_STEPS + warmup + 1})",
            hint="give more --seconds, or a run with more steps",
        )
    mean = statistics.fmean(steady)
    half = 1.96 * statistics.stdev(steady) / math.sqrt(len(steady)) / mean
    windows = _windows(steady, max(5, len(steady) // 20))
    moving = statistics.stdev(windows) / mean if len(windows) >= 5 else 0.0
    if (
        moving > half
    ):  # not i.i.d. steps: the levels the windows moved between are what the rest may run at
        half = moving
    return mean, half


def estimate_script(
    run: ScriptRun,
    total_steps: int | None = None,
    epochs: int | None = None,
    noise: float = RUN_TO_RUN_NOISE,
    args: list[str] | None = None,
) -> ScriptEstimate:
    """The whole run of the script from its measured part (see the module docstring). `args`: the script's own; when
    the length is not known and they hold an --epochs its DataLoader could count, the error suggests it (never assumed:
    a script's flag may mean something else)."""
    steady, spanning, warmup, warming = _durations(run)
    mean, half = _steady_step(run, steady, warmup)
    if (
        run.predicted_here
    ):  # its steps here are a prediction from the stand-in's trace, not a measurement
        half = UNMEASURED_UNCERTAINTY
    # a training epoch is a DataLoader iterated to its end with steps in it (an evaluation loader has none)
    per_epoch = [n for e in run.epochs if (n := sum(1 for t in run.steps if e.start < t <= e.end))]
    steps_per_epoch = float(statistics.median(per_epoch)) if per_epoch else None
    from_length = None if steps_per_epoch is not None else _steps_per_epoch_from_length(run)
    if from_length is not None:
        steps_per_epoch = from_length[0]
    between = (
        max(statistics.median(spanning) - statistics.median(steady), 0.0) if spanning else None
    )  # robust to a slow step
    notes: list[str] = []
    warnings: list[str] = []
    training_epochs = len(per_epoch)
    asked = total_steps is not None or epochs is not None  # the user said how long the run is
    if not asked and run.stopped_because == "finished":  # measured whole: the run itself
        total_steps, epochs = len(run.steps), training_epochs or None
        notes.append(
            "the script finished within the budget: the estimate is of the run measured (give --total-steps "
            "or --epochs for a longer one)"
        )
    if total_steps is None:
        if epochs is None or steps_per_epoch is None:
            seen = (
                f"--epochs N (an epoch of {steps_per_epoch:,.0f} steps was seen)"
                if steps_per_epoch
                else "--epochs N with a DataLoader epoch in the measurement"
            )
            own = own_epochs(args or []) if epochs is None and steps_per_epoch else None
            raise RunLengthUnknown(
                "the whole run's length is not known: "
                + (
                    _why_no_epoch(run) if epochs is not None else f"give --total-steps N, or {seen}"
                ),
                hint="give --total-steps N (the optimizer steps of the whole run)"
                + (" or --epochs N" if steps_per_epoch and epochs is None else "")
                + (
                    f"; its own arguments say {own[0]} {own[1]}: --epochs {own[1]} if that is "
                    "the whole run"
                    if own
                    else ""
                ),
            )
        total_steps = int(round(epochs * steps_per_epoch))
        if from_length is not None:
            notes.append(
                f"no whole epoch was seen: {steps_per_epoch:,.0f} steps per epoch is the training DataLoader's "
                f"length ({from_length[1]:,} batches) / the {from_length[2]:g} batch(es) per step seen"
            )
    ran = len(run.steps)
    if (
        asked
        and run.stopped_because == "finished"
        and abs(total_steps - ran) > max(1.0, 0.02 * ran)
    ):
        warnings.append(
            f"the script finished by itself after {ran:,} steps"
            + (f" ({training_epochs} epochs)" if training_epochs else "")
            + f" while it was measured, and the plan is of {total_steps:,}: the run its arguments (after --) "
            "train is the one measured; a plan of another length is a what-if — give the script the arguments "
            "of the run you will train"
        )
    n_epochs = (
        float(epochs)
        if epochs is not None
        else (total_steps / steps_per_epoch if steps_per_epoch else 0.0)
    )
    if not run.steady:
        when = (
            "when the script finished"
            if run.stopped_because == "finished"
            else "at 3x the budget, measured on for it"
        )
        what = (
            f"its last third {run.drift:.0%} off its first, its windows spread {run.windows_spread:.0%} about their mean"
            if run.drift is not None
            and run.windows_spread is not None  # the launcher's own figures
            else "still moving as it stopped"
        )
        if not steps_alike(
            run
        ):  # the workload's own steps differ and move: an agent's episodes as it learns
            if total_steps > ran:
                warnings.append(
                    f"the step time had not settled {when} — {what} — and the steps are unlike each other (an RL "
                    "agent's episodes as it learns, batches of unlike work): the steps not measured are planned at "
                    "the mean of those measured, within the interval their windows span; later, longer steps (an "
                    "agent learning to keep its episodes going) would make the run longer"
                )
        else:  # alike steps that moved: the machine, or a warm-up longer than the measurement
            warnings.append(
                f"the step time had not settled {when} — {what}: a busy machine or a long warm-up; the interval "
                "may be too narrow — measure again when the machine is quieter, or give more --seconds"
            )
    if (
        between is None and run.loaders_started == 0
    ):  # no epochs to be between: work outside steps is inside a step's time
        notes.append(
            "the script iterated no DataLoader: its run is setup + steps (what it does between two steps, such "
            "as an evaluation every so many, is in the step time measured"
            + (
                ""
                if run.stopped_because == "finished"
                else "; what it does after its last step was not seen"
            )
            + ")"
        )
    elif between is None:
        warnings.append(
            "no epoch boundary was seen: the time between epochs (evaluation, checkpoints) is not in the estimate"
        )
    warnings[:0] = [f"{w}; measure again when it is quiet" for w in run.busy_warnings]
    if run.predicted_here:
        warnings.insert(
            0,
            f"the script cannot be measured on this CPU ({run.predicted_here}): its step here, and every CPU "
            "row, is predicted from its trace on the stand-in GPU (its FLOPs at this processor's rates in fp32, "
            f"its own host work measured), +-{UNMEASURED_UNCERTAINTY:.0%}",
        )
    setup = max(run.steps[0] - mean, 0.0) + sum(max(d - mean, 0.0) for d in warming)
    # the time between epochs is one-time work too: one pass after each epoch, the last one the work after the last
    # step (a final evaluation) — unless the run finished while measured, when that work was timed: its last step to
    # its end (a test pass, a checkpoint), in place of the last epoch's pass
    after = (
        run.wall - run.steps[-1]
        if run.stopped_because == "finished" and run.wall > run.steps[-1]
        else None
    )
    passes = (between or 0.0) * (max(n_epochs - 1, 0.0) if after is not None else n_epochs)
    if after is not None and after >= max(0.05, 0.02 * run.wall):
        notes.append(
            f"after its last step the script ran {after:.3g} s more (a final evaluation, a test, a checkpoint): "
            "measured, in the estimate"
        )
    elif after is None and between is not None:
        notes.append(
            f"what the script does after its last step (a final evaluation, a test, a checkpoint) was not seen: "
            f"planned as one more between-epoch pass ({between:.3g} s)"
        )
    # the spec's extrapolation (planner/core/estimate.py): setup runs from the spawn (no separate process start); exit
    # as a bench's parent would measure it
    step = StepMeasurement(
        mean,
        mean * max(1 - half, 0.05),
        mean * (1 + half),
        setup + passes + (after or 0.0),
        process_start_seconds=0.0,
        exit_seconds=PROCESS_EXIT_SECONDS,
        steps_measured=len(steady),
    )
    whole = estimate_training(step, total_steps, noise=noise)
    if whole.note:
        warnings.append(whole.note)
    return ScriptEstimate(
        setup,
        mean,
        step.step_seconds_ci_low,
        step.step_seconds_ci_high,
        len(steady),
        warmup,
        steps_per_epoch,
        between,
        total_steps,
        n_epochs,
        whole.seconds,
        whole.low,
        whole.high,
        warnings,
        notes,
        after,
    )


# ----------------------------------------------------------------------------- every instance, from the script


def _local_step(est: ScriptEstimate, one_time: float) -> StepMeasurement:
    return StepMeasurement(
        est.step_seconds,
        est.step_low,
        est.step_high,
        one_time,
        process_start_seconds=0.0,
        exit_seconds=PROCESS_EXIT_SECONDS,
        steps_measured=est.steps_measured,
    )


def _one_time(est: ScriptEstimate, ratio: float = 1.0) -> float:
    """Setup, and the time between epochs and after the last step scaled as the step is (an evaluation pass is the
    same kind of work): as estimate_script counts them."""
    after = est.after_seconds
    passes = max(est.epochs - 1, 0.0) if after is not None else est.epochs
    return (
        est.setup_seconds + ((est.between_epochs_seconds or 0.0) * passes + (after or 0.0)) * ratio
    )


def measured_script_candidate(
    target: Target,
    run: ScriptRun,
    est: ScriptEstimate,
    price_per_hour: float,
    options: Any,
    requirements_seconds: float = 0.0,
) -> Candidate:
    """A rented instance's row from the script measured there (its steps timed on its own device; the
    requirements installed at boot are one-time cost)."""
    device: Device = "cuda" if run.cuda_used else "cpu"
    step = replace(_local_step(est, requirements_seconds + _one_time(est)), exit_seconds=None)
    below, above = relative_half_widths(step)
    label = target.label(device)
    note = "" if run.cuda_used else "measured on its CPU: the script did not use a GPU there"
    return Candidate(
        target=target.name,
        instance_type=target.instance_type,
        device=device,
        source="measured",
        price_per_hour=price_per_hour,
        billing="ec2",
        device_name=run.device_name,
        region=options.region,
        purchase=options.purchase,
        gpus_used=1 if run.cuda_used else None,
        step=step,
        note=note,
        basis=ErrorBasis(
            model=f"measured:{label}", bench=label, bench_below=below, bench_above=above
        ),
    )


NO_GPU_ASKED = (
    "the script never asks for a GPU (no torch.cuda.is_available() or device_count()): on a GPU instance "
    "it would train on the instance's CPU, at a GPU's price"
)


NOTHING_ON_THE_GPU = (
    "the script put nothing on the GPU when one was there (traced on the stand-in GPU, it asked "
    "PyTorch for one, or PyTorch's optimizers and DataLoader asked for it, and kept its tensors on the "
    "CPU): on a GPU instance it would train on the instance's CPU, at a GPU's price"
)


def never_asks_for_a_gpu(run: ScriptRun) -> bool:
    """The script ran on a CPU and never asked PyTorch whether a GPU is there: its device is its own code's or
    arguments' choice, the same on an instance, so a GPU would sit idle."""
    return run.gpu_asked is False and not run.cuda_used


def uses_no_gpu(run: ScriptRun) -> bool:
    """A GPU would sit idle under the script: it never asks for one, or, run on the stand-in GPU, it put nothing on
    it (a device pinned to the CPU: Adam, AdamW, RMSprop and a pinned DataLoader ask torch.cuda themselves)."""
    seen = run.gpu_run.standin if run.gpu_run is not None else None
    return never_asks_for_a_gpu(run) or (not run.cuda_used and seen is not None and not seen.used)


def script_candidates(
    run: ScriptRun,
    est: ScriptEstimate,
    instances: list[InstanceFacts],
    purchase: str,
    hardware: Hardware,
    local_price_per_hour: float = 0.0,
) -> list[Candidate]:
    """This machine's row, measured, and every priced instance predicted from it: a CPU instance scales the
    measured step by processor (planner/core/predict/cpu.py, the traced FLOPs as the work), a GPU instance
    runs the traced ops through the device model and the script's Python on its CPU
    (planner/core/predict/trace.py). One GPU per instance: the script decides how many it uses."""
    device: Device = "cuda" if run.cuda_used else "cpu"
    local = _local_step(est, _one_time(est))
    below, above = relative_half_widths(local)
    label = LOCAL.label(device)
    out = [
        Candidate(
            target=LOCAL.name,
            device=device,
            source="predicted" if run.predicted_here else "measured",
            price_per_hour=local_price_per_hour,
            billing="local",
            device_name=_local_device_name(run, device),
            step=local,
            note=f"not measured: {run.predicted_here}" if run.predicted_here else "",
            caveat="measured while the machine was busy (see the warnings)"
            if run.busy_warnings
            else "",
            basis=ErrorBasis(
                model=f"measured:{label}", bench=label, bench_below=below, bench_above=above
            ),
        )
    ]
    trace = mean_trace(run, est)
    precision = trace.precision if trace else "fp32"
    on_standin = standin_step(
        run
    )  # the GPU rows' step, as a GPU runs it (None: from this CPU's trace)
    on_no_bf16 = (
        traced_step(run.gpu_run.gpu_run_no_bf16) if run.gpu_run is not None else None
    )  # Turing, Volta rows
    for facts in instances:
        price = facts.price(purchase)
        if price is None:
            continue
        common: dict[str, Any] = dict(
            target=f"aws:{facts.instance_type}",
            instance_type=facts.instance_type,
            source="predicted",
            price_per_hour=float(price),
            billing="ec2",
            region=facts.region,
            purchase=purchase,
        )
        cpu = hardware.cpus.get(facts.family)
        if not facts.gpu_count:
            cores = physical_cores(facts.vcpus, facts.arch, facts.instance_type)
            pred = predict_cpu(
                est.step_seconds,
                max(run.threads, 1),
                cores,
                float(trace.flops if trace else 0),
                (hardware.calibration or {}).get(f"cpu:{facts.family}"),
                local=hardware.local_cpu,
                target=cpu,
                precision=precision,
            )
            low, high = widened(pred, local)
            base = {**common, "device": "cpu", "device_name": f"{facts.vcpus} vCPU {facts.arch}"}
            basis = ErrorBasis(model="cpu-model", bench=label, bench_below=below, bench_above=above)
        elif uses_no_gpu(run):
            continue  # no GPU row, no paid GPU benchmark: the plan's warnings say why
        else:
            gpu = hardware.gpus.get(facts.gpu_name)
            base = {**common, "device": "cuda", "device_name": facts.gpu_name, "gpus_used": 1}
            here_on = (
                on_no_bf16
                if gpu is not None and gpu.arch in ("turing", "volta") and on_no_bf16
                else on_standin
            )
            gpu_trace = here_on.trace if here_on is not None else trace
            if gpu is None or gpu_trace is None:
                why = (
                    f"no spec for GPU {facts.gpu_name}"
                    if gpu is None
                    else "not predicted: no step of the script was traced"
                )
                out.append(Candidate(**base, note=why))
                continue
            scalar = (
                cpu_speed_ratio(hardware.local_cpu, cpu, precision if here_on is None else "fp32")[
                    0
                ]
                if hardware.local_cpu and cpu
                else 1.0
            )
            # on the stand-in, the host's work measured as CPU time here, the ops as the GPU would run them
            # the host's work from the first trace for every row (one measurement: the rows stay comparable)
            relative, host_here = (
                (on_standin.relative, on_standin.host_seconds)
                if on_standin
                else ((below, above), None)
            )
            pred = predict_trace_gpu(
                gpu_trace, est.step_seconds, relative, gpu, scalar, host_here=host_here
            )
            low, high = pred.low, pred.high
            memory, need = float(facts.gpu_memory_gib or 0.0) * 2**30, gpu_trace.device_bytes
            if need is not None and memory and not fits(need, memory):
                base.update(fits=False, note=does_not_fit_note(need, memory))
            # the bench's share is inside the band already; the same GPU behind the same CPU family: one estimate
            basis = ErrorBasis(
                model=f"gpu-model:{gpu.arch}:{gpu_trace.precision}",
                estimate=f"trace:{gpu.name}:{facts.family}",
            )
            if facts.gpu_count > 1:
                base["note"] = "; ".join(
                    x
                    for x in (
                        base.get("note", ""),
                        f"1 of its {facts.gpu_count} GPUs used (the script "
                        "picks its device); priced for the whole instance",
                    )
                    if x
                )
        if pred.step_seconds is None or low is None or high is None:
            out.append(Candidate(**{**base, "note": pred.note or base.get("note", "")}))
            continue
        step = StepMeasurement(
            pred.step_seconds, low, high, _one_time(est, pred.step_seconds / est.step_seconds)
        )
        note = "; ".join(x for x in (base.pop("note", ""), pred.note) if x)
        out.append(Candidate(**base, step=step, note=note, basis=basis))
    return out


def _local_device_name(run: ScriptRun, device: Device) -> str:
    """This machine's row's device as the launcher saw it: the CPU's model and the threads PyTorch used; the GPU's name."""
    if device != "cpu":
        return run.device_name
    return (
        f"{run.device_name}, {run.threads} threads" if run.device_name else f"{run.threads} threads"
    )


def python_share(run: ScriptRun, est: ScriptEstimate) -> float | None:
    """The share of a mean step spent in the script's own Python (outside PyTorch's ops and their eager
    overhead), from the traced step scaled to the mean one; None without a trace."""
    trace = mean_trace(run, est)
    if trace is None or est.step_seconds <= 0:
        return None
    return host_seconds(trace, est.step_seconds) / est.step_seconds


def standin_said(on: StandinStep, older: StandinStep | None = None) -> Said:
    """What the GPU rows rest on when the stand-in GPU traced the step: the precision it saw, what stood in, what
    no formula counts, the memory it held."""
    t, seen = on.trace, on.seen
    precision = ", ".join(seen.autocast) + " autocast" if seen.autocast else t.precision
    notes = [
        f"GPU rows: the script traced on a stand-in GPU ({seen.gpu.get('name', 'a GPU')}; no arithmetic run): a step's "
        f"{t.kernels:,} kernels ({t.flops / 1e9:.3g} G FLOPs, {precision}"
        + (", fp32 matmuls on TF32" if t.matmul_tf32 else "")
        + ") on the device model, the script's own host work "
        f"({on.host_seconds * 1e3:.3g} ms of CPU a step here) on the instance's CPU, "
        f"{_count(t.to_device.calls, 'copy', 'copies')} to the device and {_count(t.to_host.calls, 'value', 'values')} "
        "read back (a sync each)",
        f"GPU memory: {human_bytes(t.peak_bytes)} at the step's peak on the stand-in (weights, gradients, optimizer state, "
        "activations, inputs), checked against each GPU's; the allocator's cache is not counted",
    ]
    warnings = []
    if seen.compiled:
        warnings.append(
            "torch.compile was traced eager on the stand-in GPU: what it fuses is not modelled (the GPU rows "
            "are of the eager step; compiled, elementwise-heavy steps run faster)"
        )
    if seen.read_sites:
        sites = ", ".join(f"{site} ({n:,}x)" for site, n in seen.read_sites.items())
        notes.append(
            f"values read back on the stand-in GPU read as zeros (a loss printed, a metric): at {sites}; "
            "control flow that depends on one ran as if it were zero"
        )
    if t.uncounted_ops:
        ops = ", ".join(sorted(t.uncounted_ops))
        warnings.append(
            f"{t.uncounted_share:.0%} of the step's compute ops have no FLOP formula and are timed by their "
            f"bytes only: {ops}"
        )
    if older is not None:
        notes.append(
            f"the script asked the GPU's {', '.join(seen.asked)}: traced again on a stand-in "
            f"{older.seen.gpu.get('name')} (no bf16), where it ran in {older.trace.precision}: the Turing and "
            "Volta rows (T4, V100) come from that trace"
        )
    elif seen.asked and any(q in seen.asked for q in ("bf16", "capability", "properties")):
        notes.append(
            f"the script asked the GPU's {', '.join(seen.asked)}: the stand-in answered as "
            f"{seen.gpu.get('name')}; on an older GPU (T4, V100: no bf16) it may choose another precision"
        )
    return Said(warnings, notes)


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


EPOCH_FLAGS = (
    "--epochs",
    "--num-epochs",
    "--num_epochs",
    "--n-epochs",
    "--n_epochs",
    "--max-epochs",
    "--max_epochs",
)


def own_epochs(args: list[str]) -> tuple[str, int] | None:
    """The epochs the script's own arguments give it (`--epochs 20`, `--num_epochs=20`, the last one given, as
    argparse takes it): (the flag, its number); None when they name none, or not as a whole number. Only these
    spellings: a script's `--steps` may count environment steps or batches, not the optimizer steps planned."""
    found = None
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in EPOCH_FLAGS:
            value = value if eq else (args[i + 1] if i + 1 < len(args) else "")
            found = (flag, int(value)) if value.isdigit() else None
    return found


def length_disagreement(args: list[str], run: ScriptRun, est: ScriptEstimate) -> str | None:
    """A warning when the run planned is not the one the script's own arguments train: `planner estimate
    train.py --epochs 5 -- --epochs 20` plans 5 epochs of a script told to run 20 (a what-if the user may
    mean, or a slip). None when they agree (within an epoch's step), when the arguments name no epochs, when
    the epochs planned are not known, or when the script finished while measured (estimate_script says so)."""
    own = own_epochs(args)
    if own is None or not est.steps_per_epoch or run.stopped_because == "finished":
        return None
    flag, epochs = own
    if abs(est.epochs - epochs) * est.steps_per_epoch < 1:
        return None
    return (
        f"the plan is of {est.epochs:,.4g} epochs ({est.total_steps:,} steps) and the script's own arguments say "
        f"{flag} {epochs:,}: the plan is not of the run they train; give the planner --epochs {epochs} (or the "
        f"script {flag} {est.epochs:,.4g}) to plan the run you will start"
    )


def script_said(run: ScriptRun, est: ScriptEstimate, predicted: bool = True) -> Said:
    """What a plan of the script says: the estimate's own warnings and notes, how the steps were found and
    (`predicted`: it has predicted rows) what its GPU rows rest on, or why there are none (a warning)."""
    said = est.said + Said(
        notes=[
            f"steps found by {'torch.optim optimizer steps' if run.boundary == 'optimizer' else 'backward passes (no torch.optim)'}"
            + (
                f" ({run.optimizers} optimizers: one step when each has stepped)"
                if run.optimizers > 1
                else ""
            )
            + (
                f"; a step given a closure (as LBFGS takes) is one step of the {run.closure_passes:g} forward and backward "
                "passes its closure ran (median)"
                if run.closure_steps and run.closure_passes is not None
                else ""
            )
        ]
    )
    if (fitted := run.threads_fitted) is not None and int(fitted["threads"]) < int(fitted["cpus"]):
        said += Said(
            notes=[
                f"measured with {run.threads} torch thread{'' if run.threads == 1 else 's'}: "
                f"{fitted['free_cpus']:g} of this machine's "
                f"{int(fitted['cpus'])} CPUs were free as it started (more threads than free CPUs wait on the "
                "busy ones); OMP_NUM_THREADS sets them"
            ]
        )
    if not predicted:
        return said
    t = mean_trace(run, est)
    if never_asks_for_a_gpu(run):
        return said + Said(
            [
                f"GPU rows are not predicted (GPU instances are left out of the plan): {NO_GPU_ASKED}; "
                "pick the device from torch.cuda.is_available() to plan GPUs"
            ]
        )
    if uses_no_gpu(run):
        return said + Said(
            [
                f"GPU rows are not predicted (GPU instances are left out of the plan): {NOTHING_ON_THE_GPU}; "
                "move the model and its batches to the GPU (`.to(device)`) to plan GPUs"
            ]
        )
    if (on := standin_step(run)) is not None:
        older = run.gpu_run.gpu_run_no_bf16 if run.gpu_run is not None else None
        return said + standin_said(on, traced_step(older))
    if t is None:
        return said + Said(["no step was traced (too few steps): GPU instances are not predicted"])
    said += Said(
        notes=[
            f"GPU rows: a mean step's {t.kernels:,} kernels ({t.flops / 1e9:.3g} G FLOPs, {t.precision}) on "
            f"the device model, its Python ({python_share(run, est) or 0.0:.0%} of a step here) on the "
            f"instance's CPU, {_count(t.to_device.calls, 'copy', 'copies')} to the device and "
            f"{_count(t.to_host.calls, 'value', 'values')} read back (a sync each)"
        ]
    )
    if t.device_bytes is None:
        return said + Said(
            [
                "GPU memory is not checked for a script: no torch.optim optimizer held its state "
                "(a benchmark tells)"
            ]
        )
    return said + Said(
        notes=[
            f"GPU memory: ~{human_bytes(t.device_bytes)} a GPU would hold (the optimizers' weights, "
            "gradients and state, the activations saved for backward, the inputs sent), checked against "
            "each GPU's; the allocator's cache and what the script keeps outside its optimizers are not "
            "counted"
        ]
    )
