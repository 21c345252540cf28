"""A spec's bench here: its options, the job and its batch within this machine's memory, the child process that
runs it, the device's precision emulated or not, and validate (the estimate against the run itself)."""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.core.estimate import StepMeasurement, estimate_training
from planner.core.remarks import EmulatedHere, ScaledFromBatch, remark_json
from planner.errors import InputError, RunError, StepTooLong
from planner.units import PROCESSES
from planner.workload.footprint import bench_bytes, footprint
from runner.bench.procfs import memory_available
from runner.local import (
    STOPPED_AT_CAP,
    LocalTarget,
)
from runner.session import BenchSession

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.core.progress import Progress
    from planner.service.bench_job import BenchJob, Device
    from planner.workload.footprint import Footprint
    from planner.workload.spec import WorkloadSpec
    from runner.bench.result import BenchResult

from planner.service.script_checks import unsteady_reason, window_spread_percent

ProgressFn = Callable[[str, "Progress"], None]  # (target label, event)


def runner_progress(on_progress: ProgressFn | None) -> Callable[[str, dict[str, Any]], None] | None:
    """`on_progress` as the runner calls it: each event as the runner wrote it (JSON), read into a typed one (the
    one place it is read: pydantic is imported when a measurement reports, not when the service loads)."""
    if on_progress is None:
        return None
    from planner.core.progress import progress_of

    return lambda label, event: on_progress(label, progress_of(event))


@dataclass(frozen=True)
class BenchOptions:
    device: Device = "auto"
    seconds: float = 10.0
    sweep: bool = False
    threads: int | None = None
    # > 1: data-parallel under torchrun (DistributedDataParallel), the batch split evenly
    processes: int = 1


def torch_cuda_available() -> bool:
    import torch  # lazy: the CLI's --help must not pay for it

    return bool(torch.cuda.is_available())


def local_devices() -> list[Device]:
    return ["cpu", "cuda"] if torch_cuda_available() else ["cpu"]


def measured_device(result: BenchResult) -> Device:
    """The device a bench ran on (`auto` resolved), to run the next one there."""
    return "cuda" if result.device == "cuda" else "cpu"


def check_device(device: str) -> None:
    if device == "cuda" and not torch_cuda_available():
        raise InputError(
            "--device cuda: torch sees no CUDA GPU on this machine",
            hint="use --device cpu (or auto), or run on a machine with an NVIDIA GPU and a CUDA build of torch",
        )


def check_processes(spec: WorkloadSpec, options: BenchOptions) -> None:
    """Data-parallel benches split the batch evenly and measure one batch size."""
    n = options.processes
    if not PROCESSES.holds(n):
        raise InputError(f"--processes: must be {PROCESSES.describe()}, got {n!r}")
    if n > 1 and spec.batch_size % n:
        raise InputError(
            f"--processes {n}: batch {spec.batch_size:,} does not split evenly over {n} processes",
            hint="choose a number of processes that divides train.batch_size",
        )
    if n > 1 and options.sweep:
        raise InputError("--sweep measures one process: drop --sweep or --processes")


# A local bench's wall-clock bound beyond its budget: the harness's own cap past the budget (30 s, between steps) and
# the bench process's start-up (torch, the dataset's pool, the model); one step longer than that ends it from outside.
BENCH_WALL_EXTRA_SECONDS = 90.0


LOCAL_BENCH_BUDGET_BYTES = 2 * 2**30  # a local bench holds at most this (or 90% of what is free)


def make_job(
    spec: WorkloadSpec, options: BenchOptions, fp: Footprint, batch_size: int | None = None
) -> BenchJob:
    """The job of a bench of `spec` with `options` (at `batch_size`, when smaller than the spec's)."""
    from planner.service.bench_job import BenchJob

    if batch_size and batch_size != fp.batch_size:
        fp = footprint(spec, list(fp.layers), batch_size)
    return BenchJob(
        spec=spec.to_job(),
        device=options.device,
        seconds=options.seconds,
        sweep=options.sweep,
        threads=options.threads,
        memory_estimate_bytes=bench_bytes(fp, spec),
        batch_size=batch_size,
        processes=options.processes,
        wall_cap_seconds=None if options.sweep else options.seconds + BENCH_WALL_EXTRA_SECONDS,
    )


def local_batch(spec: WorkloadSpec, fp: Footprint, available_bytes: int | None) -> int:
    """The batch a local bench measures at: the spec's, or the largest power-of-two fraction of it
    whose bench fits LOCAL_BENCH_BUDGET_BYTES (and 90% of what is free here). The step time is then
    scaled to the spec's batch (`scaled_to_spec`)."""
    budget = (
        min(LOCAL_BENCH_BUDGET_BYTES, 0.9 * available_bytes)
        if available_bytes
        else LOCAL_BENCH_BUDGET_BYTES
    )
    batch = spec.batch_size
    while batch > 1 and bench_bytes(footprint(spec, list(fp.layers), batch), spec) > budget:
        batch = max(1, batch // 2)
    return batch


def scaled_to_spec(result: BenchResult, spec_batch: int) -> BenchResult:
    """A bench result measured at a smaller batch, with its step times scaled linearly to the
    spec's batch (per-sample work is what a step of a large batch is made of), and a warning."""
    from dataclasses import replace

    measured = result.batch_size
    if result.status != "ok" or not measured or measured == spec_batch:
        return result
    k = spec_batch / measured
    warning = remark_json(ScaledFromBatch(measured, spec_batch, LOCAL_BENCH_BUDGET_BYTES, k))
    fields = (
        "step_seconds",
        "step_seconds_ci_low",
        "step_seconds_ci_high",
        "step_seconds_median",
        "step_seconds_p10",
        "step_seconds_p90",
        "step_seconds_min",
    )
    return replace(
        result,
        batch_size=spec_batch,
        warnings=[warning, *result.warnings],
        measured_batch_size=measured,
        **{f: getattr(result, f) * k for f in fields if getattr(result, f) is not None},
    )


def run_bench(
    spec: WorkloadSpec,
    fp: Footprint,
    options: BenchOptions,
    workdir: Path | None = None,
    on_progress: ProgressFn | None = None,
    label: str = "local",
    train_epochs: int | None = None,
    batch_size: int | None = None,
    cancel: threading.Event | None = None,
) -> BenchResult:
    """Run the bench for `spec` on this machine in a subprocess; return its BenchResult.
    Raises InputError (the job asks what this machine cannot do), RunError (the bench failed), Cancelled (`cancel`
    was set: the bench's process group was ended first). `train_epochs`: train that many epochs whole, with no
    wall cap (validate), instead of measuring `options.seconds`."""
    check_device(options.device)
    check_processes(spec, options)
    job = make_job(spec, options, sized_here(spec, fp, options.device), batch_size)
    if train_epochs is not None:
        job = job.model_copy(
            update={"mode": "train", "epochs": train_epochs, "wall_cap_seconds": None}
        )
    with tempfile.TemporaryDirectory(prefix="planner-bench-") as tmp:
        target = LocalTarget(job.runner_job(), Path(workdir or tmp), label=label)
        result = BenchSession(
            [target], on_progress=runner_progress(on_progress), cancel=cancel
        ).run()[label]
    if result.status == "invalid":
        raise InputError(result.message)
    if result.status == "error":
        if result.message.startswith(STOPPED_AT_CAP):
            raise StepTooLong(
                f"the bench on {label}: {result.message.splitlines()[0]}",
                hint="give more --seconds, or plan from the work alone: --predict-only",
            )
        raise RunError(f"the bench on {label} failed: {result.message}")
    return result


def emulated_here(precision: str, flags: set[str] | None = None) -> EmulatedHere | None:
    """Why this machine would emulate `precision` (None when it runs it natively, or cannot tell): the bench here
    trains in fp32 instead (runner.bench.procfs.emulated_precision, the rule on every CPU)."""
    from runner.bench.procfs import emulated_precision

    found = emulated_precision(precision, flags)
    return EmulatedHere(found["precision"], found["units"]) if found else None


def emulated_on(spec: WorkloadSpec, device: str) -> EmulatedHere | None:
    """Why this machine's bench on `device` trains `spec` in fp32 (a CPU without units for its 16-bit precision: the
    bench's own rule, runner.bench.procfs.emulated_precision), or None (a GPU, `auto` with CUDA here, or units)."""
    if device == "cuda":
        return None
    emulated = emulated_here(spec.train.precision)
    if emulated is None or (device == "auto" and torch_cuda_available()):
        return None
    return emulated


def trained_here(spec: WorkloadSpec, device: str) -> WorkloadSpec:
    """The spec as this machine's bench on `device` trains it: fp32 where `emulated_on` says so; else the spec."""
    if emulated_on(spec, device) is None:
        return spec
    return spec.model_copy(update={"train": spec.train.model_copy(update={"precision": "fp32"})})


def sized_here(spec: WorkloadSpec, fp: Footprint, device: str) -> Footprint:
    """The footprint the bench here is sized by: the precision it trains (4-byte activations where this CPU trains a
    16-bit spec in fp32), so the memory check and the local batch hold for what runs."""
    here = trained_here(spec, device)
    return fp if here is spec else footprint(here)


def measure_here(
    spec: WorkloadSpec,
    fp: Footprint,
    options: BenchOptions,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> BenchResult:
    """This machine's measurement of `spec` for a plan: at the spec's batch when the bench fits
    LOCAL_BENCH_BUDGET_BYTES here, else at a smaller batch scaled to the spec's (said in its
    warnings). A workload too big for even that is a `does_not_fit` result, not an error. A 16-bit precision this
    CPU would emulate is measured in fp32 by the bench itself (and sized so), and said in its warnings."""
    batch = local_batch(spec, sized_here(spec, fp, options.device), memory_available())
    result = run_bench(
        spec,
        fp,
        options,
        on_progress=on_progress,
        batch_size=batch if batch != spec.batch_size else None,
        cancel=cancel,
    )
    return scaled_to_spec(result, spec.batch_size)


@dataclass(frozen=True)
class SpecValidation:
    """`planner validate SPEC`: N epochs predicted from a short bench against the run itself, and whether the
    machine held its speed around it (`--json`: these fields, in seconds and percent)."""

    workload: str
    device: str
    device_name: str
    precision: str  # as trained: fp32 where this CPU lacks the spec's 16-bit units
    epochs: int
    steps: int
    bench_seconds: float
    predicted_seconds: float
    predicted_seconds_low: float
    predicted_seconds_high: float
    actual_seconds: float
    actual_step_seconds: float | None
    predicted_step_seconds: float | None
    predicted_one_time_seconds: float
    actual_one_time_seconds: float
    error_percent: float
    inside_interval: bool
    actual_window_spread_percent: float | None
    recheck_step_seconds: float | None = None  # the bench again after the run (None: no recheck)
    machine_drift_percent: float | None = None  # its step against the first bench's
    machine_steady: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def validate(
    spec: WorkloadSpec,
    fp: Footprint,
    epochs: int | None,
    options: BenchOptions,
    on_progress: ProgressFn | None = None,
    recheck: bool = True,
) -> SpecValidation:
    """Predict N epochs from a short bench, then really train N epochs in a fresh process and time it (wall clock
    from process start, as the estimate models it). With `recheck`, the bench again after the run: whether the
    machine was steady around it (`_rechecked`). Raises RunError when the bench cannot measure the workload."""
    epochs = epochs or spec.train.epochs
    result = run_bench(spec, fp, options, on_progress=on_progress, label="bench")
    if result.status != "ok":
        raise RunError(f"the bench could not measure the workload: {result.message}")
    steps = spec.steps_per_epoch * epochs
    est = estimate_training(StepMeasurement.from_result(result), steps)
    start = time.perf_counter()
    trained = run_bench(
        spec,
        fp,
        replace(options, device=measured_device(result)),
        on_progress=on_progress,
        label="train",
        train_epochs=epochs,
    )  # a whole run: no wall cap
    # the training process's own life, spawn to exit, as a user's `python train.py` would take;
    # the planner's polling around it is not part of the run
    actual = trained.process_seconds or (time.perf_counter() - start)
    spread = window_spread_percent(trained.step_seconds_windows)
    out = SpecValidation(
        workload=spec.name,
        device=result.device,
        device_name=result.device_name,
        precision=trained.precision,
        epochs=epochs,
        steps=steps,
        bench_seconds=options.seconds,
        predicted_seconds=est.seconds,
        predicted_seconds_low=est.low,
        predicted_seconds_high=est.high,
        actual_seconds=actual,
        actual_step_seconds=trained.step_seconds,
        predicted_step_seconds=result.step_seconds,
        predicted_one_time_seconds=est.one_time_seconds,
        actual_one_time_seconds=actual - (trained.wall_seconds or 0.0),
        error_percent=100.0 * (est.seconds - actual) / actual,
        inside_interval=est.low <= actual <= est.high,
        actual_window_spread_percent=spread,
    )
    if recheck:
        out = _rechecked(
            out, spec, fp, replace(options, device=measured_device(result)), on_progress
        )
    return out


def _rechecked(
    out: SpecValidation,
    spec: WorkloadSpec,
    fp: Footprint,
    options: BenchOptions,
    on_progress: ProgressFn | None,
) -> SpecValidation:
    """`out` with a second bench of the same length, run after the training. A prediction can only be as right as
    the machine is steady: when the benches before and after the run disagree by more than STEADY_MACHINE_PERCENT,
    the machine's speed changed around the run (a shared host's neighbours, clock boost), and an error of that
    size may well be the machine's. The run's own window means show the same from inside
    (`actual_window_spread_percent`): a machine can slow down during a run and recover before the second bench.
    `machine_steady` needs both."""
    after = run_bench(spec, fp, options, on_progress=on_progress, label="recheck")
    before = out.predicted_step_seconds
    if after.status != "ok" or not after.step_seconds or not before:
        return out
    drift = 100.0 * (after.step_seconds - before) / before
    return replace(
        out,
        recheck_step_seconds=after.step_seconds,
        machine_drift_percent=drift,
        machine_steady=unsteady_reason(drift, out.actual_window_spread_percent) is None,
    )
