"""What a plan says beside its rows, as facts: each remark is a kind with its numbers; planner.report.remarks words it.

A remark is a frozen dataclass with a `kind` (its name in JSON) and the numbers and names its words need; nothing here
writes a sentence. `Said` gathers a measurement's or a decision's remarks as `warnings` (caveats) and `notes` (how the
plan was made). `remark_json` / `remark_from_json` are the JSON edge: `{"kind": ..., **fields}`; a document written
before remarks were facts (schema <= 5: plain strings) or by a newer planner (a kind not known here) is read as `Worded`,
its words kept. Each kind is defined below, by what it is about.
Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

KINDS: dict[str, type[Remark]] = {}  # kind -> class, filled as each kind is defined


@dataclass(frozen=True)
class Remark:
    """A fact the plan says beside its rows. Subclasses set `kind` and hold the numbers and names the words need."""

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind:
            KINDS[cls.kind] = cls


@dataclass(frozen=True)
class Worded(Remark):
    """A remark whose words came with it: read from a document written before remarks were facts (schema <= 5), or
    of a kind this planner does not know."""

    kind: ClassVar[str] = "worded"
    text: str


@dataclass(frozen=True)
class Said:
    """What a plan says beside its rows, kept apart so a caveat is not buried among facts: `warnings`
    (a busy machine, a drifting step, time the estimate leaves out, an emulated precision) and `notes`
    (how it was made: the step boundary found, what the GPU rows rest on, a modelled dataset)."""

    warnings: list[Remark] = field(default_factory=list)
    notes: list[Remark] = field(default_factory=list)

    def __add__(self, other: Said) -> Said:
        return Said([*self.warnings, *other.warnings], [*self.notes, *other.notes])


def remark_json(remark: Remark) -> dict[str, Any]:
    """The remark as JSON data: its kind, then its fields (a remark within one as its own JSON)."""
    return {
        "kind": remark.kind,
        **{
            f.name: remark_json(v) if isinstance(v := getattr(remark, f.name), Remark) else v
            for f in fields(remark)
        },
    }


def remark_from_json(data: Any) -> Remark:
    """A remark as any version wrote it: a string (schema <= 5) or {"kind", fields...}; an unknown kind, or fields
    that do not fit it, is kept as its words (`text`, which the JSON carries beside the fields)."""
    if isinstance(data, Remark):
        return data
    if not isinstance(data, dict):
        return Worded(str(data))
    cls = KINDS.get(str(data.get("kind")))
    if cls is None or cls is Worded:
        return Worded(str(data.get("text", "")))
    names = {f.name for f in fields(cls)}
    try:
        return cls(**{k: _frozen(v) for k, v in data.items() if k in names})
    except TypeError:  # a field missing: a newer planner's shape of the kind
        return Worded(str(data.get("text", "")))


def _frozen(value: Any) -> Any:
    """JSON lists back as the tuples the remarks hold, a remark within one as its remark."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict) and "kind" in value:
        return remark_from_json(value)
    return value


@dataclass(frozen=True)
class AtTarget(Remark):
    """What a measurement on `target` ("local", "aws:g5.xlarge") said."""

    kind: ClassVar[str] = "at_target"
    target: str
    remark: Remark


@dataclass(frozen=True)
class DataModelled(Remark):
    """The step was measured on a pool of `pool_samples` (`pool_bytes`) cycled; the whole dataset (`dataset_bytes`)
    is modelled, its materialising (~`seconds`) in the one-time cost."""

    kind: ClassVar[str] = "data_modelled"
    pool_samples: int
    pool_bytes: float
    dataset_bytes: float
    seconds: float


# --- the decision and the plan ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeadlineMissed(Remark):
    """No option of a place (`here`: this machine; else the rented ones) finishes within the deadline with its whole
    interval: its fastest is named instead."""

    kind: ClassVar[str] = "deadline_missed"
    deadline_seconds: float
    here: bool


@dataclass(frozen=True)
class NothingPriced(Remark):
    """The price data has no instance of the kind asked for (`gpu`: True GPU, False CPU, None any) in `region` ("all":
    any) for `purchase`."""

    kind: ClassVar[str] = "nothing_priced"
    region: str
    purchase: str
    gpu: bool | None


@dataclass(frozen=True)
class AutoBenchmarkedNone(Remark):
    """`--targets auto` chose instances and benchmarked none of them: `problem` (no AWS credentials here) said why."""

    kind: ClassVar[str] = "auto_benchmarked_none"
    chosen: tuple[str, ...]
    problem: str


@dataclass(frozen=True)
class NotMeasuredHere(Remark):
    """This machine's bench stopped (`reason`: the error it raised, worded where it was raised): every row is predicted
    from the work alone."""

    kind: ClassVar[str] = "not_measured_here"
    reason: str


@dataclass(frozen=True)
class EmulatedPrecision(Remark):
    """A GPU model (`gpu`: "T4") runs the workload's `precision` emulated (bf16 without bf16 tensor cores); `instead`
    is the precision it has units for."""

    kind: ClassVar[str] = "emulated_precision"
    gpu: str
    precision: str
    instead: str


# --- a script's length ----------------------------------------------------------------------------------------------


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
    stand-in trace, +-`uncertainty`."""

    kind: ClassVar[str] = "predicted_here"
    reason: str
    uncertainty: float


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


# --- a SkyPilot task --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskPartUnused(Remark):
    """What of a SkyPilot task (`source`) the planner does not use: `part` is "run" (commands beside the python
    command, `items`), "setup" (lines not run, `items`), "resources" (`items`: the pick as written, which does not
    narrow the plan), "cloud" (`items`: the cloud asked for), "num_nodes" (`items`: the count) or "file_mounts"."""

    kind: ClassVar[str] = "task_part_unused"
    source: str
    part: str
    items: tuple[str, ...] = ()


# --- a spec's measurement here ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScaledFromBatch(Remark):
    """Measured at batch `measured`, not the spec's `batch`: the spec's needs more than the local bench may hold
    (`budget_bytes`); the step time is scaled x`factor`."""

    kind: ClassVar[str] = "scaled_from_batch"
    measured: int
    batch: int
    budget_bytes: float
    factor: float


@dataclass(frozen=True)
class EmulatedHere(Remark):
    """This CPU has no `precision` units (`units`: the flags that would give them): measured in fp32."""

    kind: ClassVar[str] = "emulated_here"
    precision: str
    units: str


# --- a bench's measurement (the runner writes these as {"kind", ...}: runner/bench) -------------------------------------


@dataclass(frozen=True)
class StepsVary(Remark):
    """Step times vary a lot: coefficient of variation `cv`."""

    kind: ClassVar[str] = "steps_vary"
    cv: float


@dataclass(frozen=True)
class MeanAboveMedian(Remark):
    """The mean is `skew` above the median: occasional slow steps."""

    kind: ClassVar[str] = "mean_above_median"
    skew: float


@dataclass(frozen=True)
class Interrupted(Remark):
    """A spot notice (`notice`) cut the measurement short: its `steps` (`timed`: a script's) are the measurement."""

    kind: ClassVar[str] = "interrupted"
    notice: str
    steps: int
    timed: bool = False


@dataclass(frozen=True)
class OnlyWarmup(Remark):
    """One step took `seconds`: nothing but the warm-up fitted in the bench's `cap`; its last step is the measurement."""

    kind: ClassVar[str] = "only_warmup"
    seconds: float
    cap: float


@dataclass(frozen=True)
class OneStep(Remark):
    """One step measured: its interval (+-`half`) is the machine's own noise, measured now (`cv`)."""

    kind: ClassVar[str] = "one_step"
    half: float
    cv: float


@dataclass(frozen=True)
class WarmupUnsettled(Remark):
    """The step time never settled during the warm-up (`steps`, `seconds`)."""

    kind: ClassVar[str] = "warmup_unsettled"
    steps: int
    seconds: float


@dataclass(frozen=True)
class SlowSteps(Remark):
    """Only `steps` measured within the bench's `cap` (at least `wanted` wanted)."""

    kind: ClassVar[str] = "slow_steps"
    steps: int
    cap: float
    wanted: int


@dataclass(frozen=True)
class IntervalWide(Remark):
    """The time budget ran out after `steps` with the mean known to +-`relative` (None: no interval), `target` wanted."""

    kind: ClassVar[str] = "interval_wide"
    relative: float | None
    target: float
    steps: int


@dataclass(frozen=True)
class AllreduceMoved(Remark):
    """The all-reduce share was measured at a step of `synced_seconds`, the bench at `bench_seconds`."""

    kind: ClassVar[str] = "allreduce_moved"
    synced_seconds: float
    bench_seconds: float


@dataclass(frozen=True)
class NeverUsedGpu(Remark):
    """The script never used the GPU on a GPU instance: a measurement of its CPU."""

    kind: ClassVar[str] = "never_used_gpu"
