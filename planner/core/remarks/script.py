"""The remarks of a script: its length, its measurement, what its GPU rows rest on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from planner.core.remarks.base import Remark

# --- a script's length ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchedPerSteps(Remark):
    """A script benched without its run's length: its whole run is said for `per_steps` steps."""

    kind: ClassVar[str] = "benched_per_steps"
    per_steps: int


@dataclass(frozen=True)
class LengthNotGiven(Remark):
    """A script planned without its run's length: planned for `per_steps` steps; `crossovers` ((steps, before, after):
    the target picked below and above that length; "local" here, "none" nothing) or none from `shortest` to `longest`
    steps."""

    kind: ClassVar[str] = "length_not_given"
    per_steps: int
    crossovers: tuple[tuple[int, str, str], ...]
    shortest: int
    longest: int


@dataclass(frozen=True)
class WhatIfLength(Remark):
    """A run re-planned for another length than its own: (steps, epochs) of each, one of them None."""

    kind: ClassVar[str] = "what_if_length"
    planned: tuple[int | None, int | None]
    own: tuple[int | None, int | None]


@dataclass(frozen=True)
class LengthDisagrees(Remark):
    """The plan's epochs (`epochs`, `steps`) are not those the script's own arguments (`flag` `own`) train."""

    kind: ClassVar[str] = "length_disagrees"
    epochs: float
    steps: int
    flag: str
    own: int


@dataclass(frozen=True)
class FinishedInBudget(Remark):
    """The script finished within the budget: the estimate is of the run measured."""

    kind: ClassVar[str] = "finished_in_budget"


@dataclass(frozen=True)
class FinishedShort(Remark):
    """The script finished by itself after `ran` steps (`epochs`, 0: none seen) while the plan is of `planned`."""

    kind: ClassVar[str] = "finished_short"
    ran: int
    epochs: int
    planned: int


@dataclass(frozen=True)
class EpochFromLoader(Remark):
    """No whole epoch was seen: `steps_per_epoch` is the DataLoader's length (`batches`) / `per_step` batches a step."""

    kind: ClassVar[str] = "epoch_from_loader"
    steps_per_epoch: float
    batches: int
    per_step: float


# --- a script's measurement -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepUnsettled(Remark):
    """The step time had not settled (`finished`: when the script finished; else at 3x the budget): its last third
    `drift` off its first, its windows `spread` about their mean (None: still moving); `alike`: its steps are alike
    (the machine or a long warm-up), else unlike (an agent's episodes as it learns)."""

    kind: ClassVar[str] = "step_unsettled"
    finished: bool
    drift: float | None
    spread: float | None
    alike: bool


@dataclass(frozen=True)
class NoDataLoader(Remark):
    """The script iterated no DataLoader: its run is setup + steps (`finished`: it finished while measured)."""

    kind: ClassVar[str] = "no_data_loader"
    finished: bool


@dataclass(frozen=True)
class NoEpochBoundary(Remark):
    """No epoch boundary was seen: the time between epochs is not in the estimate."""

    kind: ClassVar[str] = "no_epoch_boundary"


@dataclass(frozen=True)
class BusyWhileMeasured(Remark):
    """The machine was busy while `what` was measured: other processes used `other_cpus` of its `cpus`; torch's
    `threads` had `free` CPUs (`crowded`: more threads than free CPUs). `steal_percent`: the hypervisor's share instead
    (a shared host), when that is what was high."""

    kind: ClassVar[str] = "busy_while_measured"
    what: str
    other_cpus: float | None = None
    cpus: int = 0
    threads: int = 0
    free: float = 0.0
    crowded: bool = False
    steal_percent: float | None = None
    again: bool = False  # say: measure again when it is quiet


@dataclass(frozen=True)
class PredictedHere(Remark):
    """The script cannot be measured on this CPU (`reason`): its step here and every CPU row are predicted from its
    stand-in trace, +-`uncertainty`. `stops`: as written it does not run on a CPU at all (it stopped before its
    first step here: CUDA hard-coded), so the CPU rows assume its device lines are changed to allow one."""

    kind: ClassVar[str] = "predicted_here"
    reason: str
    uncertainty: float
    stops: bool = False


@dataclass(frozen=True)
class AfterLastStep(Remark):
    """What the script does after its last step: `measured` (it ran `seconds` more), or not seen and planned as one
    more between-epoch pass of `seconds`."""

    kind: ClassVar[str] = "after_last_step"
    seconds: float
    measured: bool


@dataclass(frozen=True)
class NoUsableInterval(Remark):
    """The `steps` measured do not pin the step time down (known to +-`above`, None: not at all)."""

    kind: ClassVar[str] = "no_usable_interval"
    steps: int
    above: float | None


@dataclass(frozen=True)
class StepBoundary(Remark):
    """How a script's steps were found: `optimizer` steps (else backward passes), `optimizers` of them stepping per
    step, and a closure's median `closure_passes` (None: no closure)."""

    kind: ClassVar[str] = "step_boundary"
    optimizer: bool
    optimizers: int
    closure_passes: float | None


@dataclass(frozen=True)
class ThreadsFitted(Remark):
    """Measured with `threads` torch threads: `free` of the machine's `cpus` were free as it started (`bench`: the
    spec's bench, which --threads also sets; else a script's)."""

    kind: ClassVar[str] = "threads_fitted"
    threads: int
    free: float
    cpus: int
    bench: bool = False


@dataclass(frozen=True)
class ScriptEnvGiven(Remark):
    """What a script gets in its environment (names only): `envs` set everywhere, `secrets` set here only."""

    kind: ClassVar[str] = "script_env"
    envs: tuple[str, ...]
    secrets: tuple[str, ...]


# --- a script's GPU rows --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoGpuRows(Remark):
    """GPU rows are not predicted: `why` is "never_asks" (the script never asks for a GPU), "nothing_on_gpu" (nothing
    it made went to the stand-in) or "no_step" (too few steps to trace)."""

    kind: ClassVar[str] = "no_gpu_rows"
    why: str


@dataclass(frozen=True)
class StandinWorkDiffers(Remark):
    """The step traced on the stand-in did `ratio` x the FLOPs of a mean step measured here: what depends on a value
    read back (zeros there) ran otherwise."""

    kind: ClassVar[str] = "standin_work_differs"
    ratio: float


@dataclass(frozen=True)
class StandinFailed(Remark):
    """The script failed on the stand-in GPU (`error`: its own traceback): its GPU rows come from its step on this
    CPU, in the precision it ran in here."""

    kind: ClassVar[str] = "standin_failed"
    error: str


@dataclass(frozen=True)
class StandinTrace(Remark):
    """The GPU rows rest on the script traced on a stand-in GPU (`gpu`): a step's `kernels` (`flops`, `precision`,
    `tf32`: fp32 matmuls on TF32), `host_seconds` of the script's own host work, `copies` to the device, `reads` back."""

    kind: ClassVar[str] = "standin_trace"
    gpu: str
    kernels: int
    flops: float
    precision: str
    tf32: bool
    host_seconds: float
    copies: int
    reads: int


@dataclass(frozen=True)
class StandinMemory(Remark):
    """`peak_bytes` at the step's peak on the stand-in GPU, checked against each GPU's."""

    kind: ClassVar[str] = "standin_memory"
    peak_bytes: float


@dataclass(frozen=True)
class CompiledEager(Remark):
    """torch.compile was traced eager on the stand-in GPU: what it fuses is not modelled."""

    kind: ClassVar[str] = "compiled_eager"


@dataclass(frozen=True)
class ReadBackZeros(Remark):
    """Values read back on the stand-in GPU read as zeros: at each (site, times)."""

    kind: ClassVar[str] = "read_back_zeros"
    sites: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class UncountedOps(Remark):
    """`share` of the step's compute ops have no FLOP formula (`ops`) and are timed by their bytes only."""

    kind: ClassVar[str] = "uncounted_ops"
    share: float
    ops: tuple[str, ...]


@dataclass(frozen=True)
class GpuAsked(Remark):
    """The script asked the GPU's `asked` (bf16, capability, ...); the stand-in answered as `gpu`. `retraced` (the
    precision of a second trace on an older stand-in without bf16, `older`), or "" when none was made."""

    kind: ClassVar[str] = "gpu_asked"
    asked: tuple[str, ...]
    gpu: str
    older: str = ""
    retraced: str = ""


@dataclass(frozen=True)
class TracedStep(Remark):
    """The GPU rows rest on a mean step's `kernels` (`flops`, `precision`) on the device model, its Python
    (`python_share` of a step here) on the instance's CPU, `copies` to the device and `reads` back."""

    kind: ClassVar[str] = "traced_step"
    kernels: int
    flops: float
    precision: str
    python_share: float
    copies: int
    reads: int


@dataclass(frozen=True)
class ScriptMemory(Remark):
    """`device_bytes` a GPU would hold (optimizer state, activations, inputs), checked against each GPU's; None: no
    torch.optim optimizer held its state, so memory is not checked."""

    kind: ClassVar[str] = "script_memory"
    device_bytes: float | None


@dataclass(frozen=True)
class TooSlowHere(Remark):
    """Not run here: its step would take ~`step_seconds` here (its trace predicts), too long to time `steps` steps
    within the `cap_seconds` cap."""

    kind: ClassVar[str] = "too_slow_here"
    step_seconds: float
    steps: int
    cap_seconds: float


@dataclass(frozen=True)
class TooBigHere(Remark):
    """Not run here: its step holds `peak_bytes` at its peak on the stand-in GPU, more than the `free_bytes` free."""

    kind: ClassVar[str] = "too_big_here"
    peak_bytes: float
    free_bytes: float
