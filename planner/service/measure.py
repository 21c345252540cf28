"""Measure on this machine: one bench (`planner bench`), and a real training run checked against
its prediction (`planner validate`)."""

from __future__ import annotations

import math
import re
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.core.estimate import StepMeasurement, estimate_training
from planner.core.script import (
    MIN_STEADY_STEPS,
    ScriptEnv,
    ScriptEstimate,
    ScriptRun,
    estimate_script,
    length_disagreement,
    never_asks_for_a_gpu,
    own_epochs,
    paired_windows,
    predicted_here,
    steady_step,
    too_slow_here,
)
from planner.errors import Cancelled, InputError, RunError, StepTooLong
from planner.units import PROCESSES, shown_path
from planner.workload.footprint import bench_bytes, footprint
from runner.bench.procfs import memory_available
from runner.local import (
    SCRIPT_CAP_EXTRA_SECONDS,
    STOPPED_AT_CAP,
    LocalTarget,
    run_script,
)
from runner.script_job import own_error
from runner.session import BenchSession

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.service.describe import Workloads
    from planner.service.workload import ScriptWorkload
    from planner.workload.footprint import Footprint
    from planner.workload.spec import WorkloadSpec
    from pricing.facts import CpuFacts
    from runner.bench.result import BenchResult

ProgressFn = Callable[[str, dict[str, Any]], None]  # (target label, event)

# The stand-in GPU's trace (runner/standin.py): steps there cost only the host's work and the tracing, so a few
# are enough (the first two hold lazy state: the one traced is the third); its cap bounds a long setup.
STANDIN_STEPS = 8
STANDIN_SECONDS = 2.0
STANDIN_CAP_SECONDS = 120.0
STEADY_MACHINE_PERCENT = (
    5.0  # the benches before and after the run agree this closely: the machine held its speed
)
STEADY_RUN_SPREAD_PERCENT = 15.0  # p10-p90 of a run's 20 windows; steady runs here spread 3-9%


@dataclass(frozen=True)
class BenchOptions:
    device: str = "auto"  # cpu | cuda | auto
    seconds: float = 10.0
    sweep: bool = False
    threads: int | None = None
    processes: int = (
        1  # > 1: data-parallel under torchrun (DistributedDataParallel), the batch split evenly
    )


def torch_cuda_available() -> bool:
    import torch  # lazy: the CLI's --help must not pay for it

    return bool(torch.cuda.is_available())


def local_devices() -> list[str]:
    return ["cpu", "cuda"] if torch_cuda_available() else ["cpu"]


# The stand-in a script is traced on again when it asked what its GPU supports: the cheapest GPU without bf16
NO_BF16_GPU = {
    "name": "Tesla T4",
    "capability": [7, 5],
    "memory_bytes": 15_828_320_256,
    "sm_count": 40,
}


def capped_too_soon(steps: int, done: Any) -> bool:
    """Stopped at the cap with too few steps to time a steady one (the warm-up and the traced step aside)."""
    return done.returncode is None and steps < MIN_STEADY_STEPS + 2


def cannot_measure_here(run: ScriptRun | None, done: Any) -> str | None:
    """Why a script written for a GPU could not be measured on this CPU, when the stand-in GPU may plan it instead:
    stopped at the cap with too few steps (a large step on a small CPU), or stopped before its first step (CUDA
    hard-coded; an exit when no GPU is there). None for a failure a GPU would not mend: after steps were taken, or slow
    steps of a script that never asked for a GPU."""
    steps = len(run.steps) if run is not None else 0
    if capped_too_soon(steps, done):
        if (
            run is not None and run.gpu_asked is False
        ):  # its slow steps would run for real on the stand-in too
            return None
        return (
            f"its first step here did not end within the {done.seconds:.0f} s cap"
            if not steps
            else f"it took {steps} step(s) here within the {done.seconds:.0f} s cap, too few to time"
        )
    if steps:
        return None
    said = (done.stderr_tail or done.stdout_tail).strip()
    if run is None or run.status == "error":
        own = own_error(run.message if run is not None else "", said).strip().splitlines()
        return f"here it stops before its first step: {own[-1] if own else 'no error given'}"
    return "here it ends without a training step"


GPU_WORDS = re.compile(r"\bcuda\b|torch\.accelerator|\.cuda\(")


def names_a_gpu(path: Path) -> bool:
    """The script's own text names CUDA (or torch.accelerator): written for a GPU, it is traced on the stand-in GPU
    before it is measured here (only the order changes: a script that never names one is measured first, and traced
    after if it asked for a GPU)."""
    try:
        return GPU_WORDS.search(path.read_text(errors="replace")) is not None
    except OSError:
        return False


def this_cpu(gpu_run: ScriptRun) -> tuple[CpuFacts | None, int]:
    """What a step here is predicted on from a stand-in trace (core.script.predicted_here, too_slow_here): this
    machine's processor facts, and the torch threads the script ran with."""
    from pricing.catalog import local_cpu_facts

    return local_cpu_facts(), max(gpu_run.threads, 1)


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
) -> dict[str, Any]:
    """The plain job the self-contained bench reads (standard library only on its side). Its memory
    estimate is what the bench will hold (a bounded pool of batches, not the dataset)."""
    if batch_size and batch_size != fp.batch_size:
        fp = footprint(spec, list(fp.layers), batch_size)
    return {
        "spec": spec.to_job(),
        "device": options.device,
        "seconds": options.seconds,
        "sweep": options.sweep,
        "threads": options.threads,
        "memory_estimate_bytes": bench_bytes(fp, spec),
        "batch_size": batch_size,
        "processes": options.processes,
        "wall_cap_seconds": None if options.sweep else options.seconds + BENCH_WALL_EXTRA_SECONDS,
    }


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
    warning = (
        f"measured at batch {measured:,}, not the spec's {spec_batch:,}: the spec's batch needs more memory than "
        f"the local bench may hold ({LOCAL_BENCH_BUDGET_BYTES / 2**30:g} GiB); the step time is scaled x{k:g}, "
        "which assumes per-sample work dominates the step"
    )
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
    extra: dict[str, Any] | None = None,
    batch_size: int | None = None,
    cancel: threading.Event | None = None,
) -> BenchResult:
    """Run the bench for `spec` on this machine in a subprocess; return its BenchResult.
    Raises InputError (the job asks what this machine cannot do), RunError (the bench failed), Cancelled (`cancel`
    was set: the bench's process group was ended first)."""
    check_device(options.device)
    check_processes(spec, options)
    job = {**make_job(spec, options, fp, batch_size), **(extra or {})}
    with tempfile.TemporaryDirectory(prefix="planner-bench-") as tmp:
        target = LocalTarget(job, Path(workdir or tmp), label=label)
        result = BenchSession([target], on_progress=on_progress, cancel=cancel).run()[label]
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


# The CPU instructions that run a 16-bit precision natively (/proc/cpuinfo flags): without them PyTorch's CPU autocast
# converts through fp32, and a bf16 step was measured 51-75x slower than fp32 on such a CPU (issue 40).
HALF_UNITS = {
    "bf16": ({"avx512_bf16", "amx_bf16", "bf16", "svebf16"}, "AVX-512 BF16 or AMX"),
    "fp16": ({"avx512_fp16", "amx_fp16", "fphp"}, "AVX-512 FP16 or AMX-FP16"),
}


def emulated_here(precision: str, flags: set[str] | None = None) -> str:
    """Why this machine would emulate `precision` ('' when it runs it natively, or cannot tell): measured in fp32."""
    from pricing.catalog import local_cpu_flags

    needed = HALF_UNITS.get(precision)
    flags = local_cpu_flags() if flags is None else flags
    if needed is None or flags is None or flags & needed[0]:
        return ""
    return (
        f"this CPU has no {precision} units ({needed[1]}): {precision} would be emulated here, many times slower "
        f"(51-75x measured on one such CPU), so its step is measured in fp32, the precision to train in here; "
        f"each CPU instance is predicted for the {precision} units it has"
    )


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
    CPU would emulate (`emulated_here`) is measured in fp32, and said first in its warnings."""
    emulated = emulated_here(spec.train.precision) if options.device == "cpu" else ""
    if emulated:
        spec = spec.model_copy(
            update={"train": spec.train.model_copy(update={"precision": "fp32"})}
        )
    batch = local_batch(spec, fp, memory_available())
    result = run_bench(
        spec,
        fp,
        options,
        on_progress=on_progress,
        batch_size=batch if batch != spec.batch_size else None,
        cancel=cancel,
    )
    if emulated and result.status == "ok":
        result.warnings = [emulated, *(result.warnings or [])]
    return scaled_to_spec(result, spec.batch_size)


def validate(
    spec: WorkloadSpec,
    fp: Footprint,
    epochs: int | None,
    options: BenchOptions,
    on_progress: ProgressFn | None = None,
    recheck: bool = True,
) -> dict[str, Any]:
    """Predict N epochs from a short bench, then really train N epochs in a fresh process and time
    it (wall clock from process start, as the estimate models it).

    With `recheck`, a second bench of the same length runs after the training. A prediction can
    only be as right as the machine is steady: when the benches before and after the run disagree
    by more than STEADY_MACHINE_PERCENT, the machine's speed changed around the run (a shared
    host's neighbours, clock boost), and an error of that size may well be the machine's.
    The run's own 20 window means show the same from inside (`actual_window_spread_percent`:
    p90 - p10 of the windows, over their median): a machine can slow down during a run and recover
    before the second bench. `machine_steady` needs both: benches within STEADY_MACHINE_PERCENT
    and windows within STEADY_RUN_SPREAD_PERCENT."""
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
        replace(options, device=result.device),
        on_progress=on_progress,
        label="train",
        extra={"mode": "train", "epochs": epochs, "wall_cap_seconds": None},
    )  # a whole run: no wall cap
    # the training process's own life, spawn to exit, as a user's `python train.py` would take;
    # the planner's polling around it is not part of the run
    actual = trained.process_seconds or (time.perf_counter() - start)
    out: dict[str, Any] = {
        "workload": spec.name,
        "device": result.device,
        "device_name": result.device_name,
        "epochs": epochs,
        "steps": steps,
        "bench_seconds": options.seconds,
        "predicted_seconds": est.seconds,
        "predicted_seconds_low": est.low,
        "predicted_seconds_high": est.high,
        "actual_seconds": actual,
        "actual_step_seconds": trained.step_seconds,
        "predicted_step_seconds": result.step_seconds,
        "predicted_one_time_seconds": est.one_time_seconds,
        "actual_one_time_seconds": actual - (trained.wall_seconds or 0.0),
        "error_percent": 100.0 * (est.seconds - actual) / actual,
        "inside_interval": est.low <= actual <= est.high,
        "actual_window_spread_percent": window_spread_percent(trained.step_seconds_windows),
        "recheck_step_seconds": None,
        "machine_drift_percent": None,
        "machine_steady": None,
    }
    if recheck:
        after = run_bench(
            spec,
            fp,
            replace(options, device=result.device),
            on_progress=on_progress,
            label="recheck",
        )
        if after.status == "ok" and after.step_seconds and result.step_seconds:
            drift = 100.0 * (after.step_seconds - result.step_seconds) / result.step_seconds
            out.update(
                recheck_step_seconds=after.step_seconds,
                machine_drift_percent=drift,
                machine_steady=unsteady_reason(drift, out["actual_window_spread_percent"]) is None,
            )
    return out


def script_path(script: str | Path) -> Path:
    """The training script to run; InputError unless it is a .py file."""
    path = Path(script)
    if path.suffix != ".py":
        raise InputError(
            f"{shown_path(str(script))}: not a Python file to run",
            hint="give the training script, e.g. train.py",
        )
    if not path.is_file():
        raise InputError(
            f"{shown_path(str(script))}: no such file", hint="check the path of the training script"
        )
    return path


def script_workdir(script: Path, workdir: str | Path | None) -> Path:
    """The folder the script runs in and that ships with it: `workdir` (--workdir, as SkyPilot's: relative paths
    in its arguments are relative to it), or the script's own folder. InputError unless it is a folder that
    holds the script."""
    if workdir is None:
        return script.resolve().parent
    folder, hint = (
        Path(workdir),
        "give the folder the script runs in (it ships whole to an instance), e.g. --workdir .",
    )
    if not str(workdir):
        raise InputError("--workdir '': is empty", hint=hint)
    if not folder.is_dir():
        raise InputError(
            f"--workdir {shown_path(str(workdir))}: "
            + ("is a file, not a folder" if folder.exists() else "no such folder"),
            hint=hint,
        )
    if folder.resolve() not in script.resolve().parents:
        raise InputError(
            f"--workdir {shown_path(str(workdir))}: the script {shown_path(str(script))} is not inside it",
            hint="give a folder that holds the script: it runs there, and ships whole to an instance",
        )
    return folder.resolve()


def check_validated_epochs(args: list[str], epochs: int | None) -> None:
    """validate compares the estimate with the run the script's own arguments train: `--epochs 5 -- --epochs 20`
    is refused before anything runs (InputError). A --total-steps is checked once the epoch is known."""
    own = own_epochs(list(args))
    if own is not None and epochs is not None and own[1] != epochs:
        raise InputError(
            f"--epochs {epochs}: the script's own arguments say {own[0]} {own[1]}, and validate compares "
            "the estimate with the run they train",
            hint=f"give --epochs {own[1]}, or the script {own[0]} {epochs}",
        )


def unsteady_reason(drift_percent: float, spread_percent: float | None) -> str | None:
    """Why the machine did not hold its speed around a validate run, or None when it did."""
    if abs(drift_percent) > STEADY_MACHINE_PERCENT:
        return (
            f"the machine's own speed moved by more than {STEADY_MACHINE_PERCENT:g}% around the run"
        )
    if spread_percent is not None and spread_percent > STEADY_RUN_SPREAD_PERCENT:
        return f"the benches agree, but the run's own step time varied by more than {STEADY_RUN_SPREAD_PERCENT:g}%"
    return None


def window_spread_percent(windows: list[float]) -> float | None:
    """(p90 - p10) / median of a run's window means, in percent; None for fewer than 5 windows."""
    if len(windows) < 5:
        return None
    s = sorted(windows)
    deciles = statistics.quantiles(s, n=10, method="inclusive")  # numpy's linear interpolation
    return 100.0 * (deciles[8] - deciles[0]) / statistics.median(s)


@dataclass(frozen=True)
class ScriptValidation:
    """A script's validate run: its measurement and the whole run estimated from it, the whole run as the user
    would run it (spawn to exit, nothing hooked), and the script measured again after it (`recheck`; None: not
    asked). When the same steps of the two measurements (paired_windows: the median ratio of their windows)
    disagree by more than STEADY_MACHINE_PERCENT, or those ratios spread by more than STEADY_RUN_SPREAD_PERCENT,
    the machine did not hold its speed around the run and an error of that size may be the machine's."""

    script: str
    args: list[str]
    measured: ScriptRun
    estimate: ScriptEstimate
    actual_seconds: float
    recheck: ScriptRun | None = None

    @property
    def error_percent(self) -> float:
        return 100.0 * (self.estimate.seconds - self.actual_seconds) / self.actual_seconds

    @property
    def interval_usable(self) -> bool:
        """Whether the estimate has an interval to be inside of (finite ends, a low end above 0)."""
        return self.estimate.low > 0 and math.isfinite(self.estimate.high)

    @property
    def inside_interval(self) -> bool:
        """The real run within the estimate's interval; never for an interval with no usable end (inside one is no news)."""
        return (
            self.interval_usable and self.estimate.low <= self.actual_seconds <= self.estimate.high
        )

    @cached_property
    def _paired(
        self,
    ) -> list[
        float
    ]:  # the same steps twice: the machine's move, not the workload's (computed once)
        return paired_windows(self.measured, self.recheck) if self.recheck is not None else []

    @property
    def machine_drift_percent(self) -> float | None:
        paired = self._paired
        return 100.0 * (statistics.median(paired) - 1) if paired else None

    @property
    def window_spread_percent(self) -> float | None:
        return window_spread_percent(self._paired) if self._paired else None

    @property
    def unsteady_reason(self) -> str | None:
        """Why the machine did not hold its speed around the run; None when it did, or was not measured again."""
        drift = self.machine_drift_percent
        return None if drift is None else unsteady_reason(drift, self.window_spread_percent)

    @property
    def machine_steady(self) -> bool | None:
        return None if self.machine_drift_percent is None else self.unsteady_reason is None

    @property
    def recheck_step_seconds(self) -> float | None:
        return steady_step(self.recheck)[0] if self.recheck is not None else None

    def to_json(self) -> dict[str, Any]:
        """`planner validate train.py --json`: the comparison (the measurements themselves are not in it)."""
        est = self.estimate
        return {
            "script": self.script,
            "args": self.args,
            "total_steps": est.total_steps,
            "epochs": est.epochs,
            "predicted_seconds": est.seconds,
            "predicted_seconds_low": est.low,
            "predicted_seconds_high": est.high,
            "actual_seconds": self.actual_seconds,
            "error_percent": self.error_percent,
            "inside_interval": self.inside_interval,
            "step_seconds": est.step_seconds,
            "setup_seconds": est.setup_seconds,
            "between_epochs_seconds": est.between_epochs_seconds,
            "after_last_step_seconds": est.after_seconds,
            "measure_seconds": self.measured.wall,
            "recheck_step_seconds": self.recheck_step_seconds,
            "machine_drift_percent": self.machine_drift_percent,
            "window_spread_percent": self.window_spread_percent,
            "machine_steady": self.machine_steady,
            "machine_unsteady_reason": self.unsteady_reason,
            "interval_usable": self.interval_usable,
            "warnings": list(est.warnings),
            "notes": list(est.notes),
        }


class Measure:
    """Measure on this machine: a spec's bench and validate run, a script measured (here, or traced on the stand-in
    GPU) and validated."""

    def __init__(self, workloads: Workloads):
        self.workloads = workloads

    def bench(
        self,
        spec: WorkloadSpec,
        options: BenchOptions,
        workdir: Path | None = None,
        on_progress: ProgressFn | None = None,
        label: str = "local",
        extra: dict[str, Any] | None = None,
        batch_size: int | None = None,
    ) -> BenchResult:
        """One bench of `spec` here, in a child process: its BenchResult.
        Raises InputError (a device or processes this machine lacks), RunError (the bench failed)."""
        return run_bench(
            spec,
            self.workloads.footprint(spec),
            options,
            workdir,
            on_progress,
            label,
            extra,
            batch_size,
        )

    def validate(
        self,
        spec: WorkloadSpec,
        epochs: int | None,
        options: BenchOptions,
        on_progress: ProgressFn | None = None,
        recheck: bool = True,
    ) -> dict[str, Any]:
        """Predict N epochs from a short bench, train them for real, compare (see `validate`).
        Raises RunError (a bench or the training failed), InputError."""
        return validate(spec, self.workloads.footprint(spec), epochs, options, on_progress, recheck)

    def bench_script(
        self,
        workload: ScriptWorkload,
        seconds: float = 10.0,
        cancel: threading.Event | None = None,
        on_progress: ProgressFn | None = None,
        label: str = "local",
    ) -> tuple[ScriptRun, ScriptEstimate]:
        """Run the user's training script here, unchanged (measure_script), and extrapolate its whole run
        (planner/core/script/estimate.py). Raises what measure_script raises, and InputError (the run's length cannot be
        known: RunLengthUnknown; too few steps)."""
        args = list(workload.args)
        run = self.measure_script(
            workload.path,
            args,
            seconds,
            workload.epochs is not None,
            cancel,
            on_progress,
            label,
            workload.workdir,
            workload.env,
        )
        return run, estimate_script(run, workload.total_steps, workload.epochs, args=args)

    def measure_script(
        self,
        script: str | Path,
        args: list[str],
        seconds: float = 10.0,
        until_epoch: bool = False,
        cancel: threading.Event | None = None,
        on_progress: ProgressFn | None = None,
        label: str = "local",
        workdir: str | Path | None = None,
        env: ScriptEnv | None = None,
        predict_only: bool = False,
    ) -> ScriptRun:
        """Run the user's training script here, unchanged (runner/script.py times its steps by PyTorch's
        own hooks): its timeline (`until_epoch`: measure on to a DataLoader epoch's end, to count its steps).
        Raises InputError (not a readable .py file), RunError (the script failed, with its own traceback; it never
        stepped; it was stopped at the cap before its first step), Cancelled (`cancel`, a threading.Event, was set:
        the script was stopped with everything it started). `on_progress` gets (`label`, each progress event).
        `workdir`: the folder it runs in (script_workdir). `env`: set in its environment (ScriptEnv.here).
        `predict_only`: traced on the stand-in GPU alone, its run here predicted from that trace (InputError for a script
        that puts nothing on a GPU: only its run here describes it)."""
        path = script_path(script)
        cwd = script_workdir(path, workdir)
        if predict_only:
            return self.predicted_only(path, args, cwd, env, cancel, on_progress, label)
        first = None  # a script written for a GPU is traced on the stand-in GPU first: it may be too slow to measure here
        if names_a_gpu(path):
            first = self.trace_on_standins(path, args, cwd, env, cancel, on_progress, label)
            if first is not None and first.cuda_used:
                cpu, cores = this_cpu(first)
                why = too_slow_here(
                    first, cpu, cores, seconds + SCRIPT_CAP_EXTRA_SECONDS, memory_available()
                )
                here = None if why is None else predicted_here(first, why, cpu, cores)
                if here is not None:
                    return here
        with tempfile.TemporaryDirectory(prefix="planner-script-") as tmp:
            done = run_script(
                path.resolve(),
                list(args),
                seconds,
                Path(tmp),
                until_epoch=until_epoch,
                cancel=cancel,
                progress=None if on_progress is None else lambda event: on_progress(label, event),
                cwd=cwd,
                extra_env=env.here if env else None,
            )
        if cancel is not None and cancel.is_set():
            raise Cancelled(
                f"cancelled: the measurement of {path.name} here was stopped, with everything it started"
            )
        run = ScriptRun.from_json(done.result) if done.result else None
        try:
            self.check_measured(path, script, cwd, run, done)
        except RunError as failure:
            why = cannot_measure_here(run, done)
            if why is None:
                raise
            # a script written for a GPU (CUDA hard-coded, or a first step longer than the cap on this CPU): planned from
            # its trace on the stand-in GPU, its CPU rows predicted from that trace; if it fails there too, the error stands
            return self.predicted_from_standin(
                path, args, cwd, env, cancel, on_progress, label, why, failure, first
            )
        assert run is not None
        if never_asks_for_a_gpu(run):
            return run  # it trains on a CPU wherever it runs: no GPU row to trace
        gpu_run = (
            first
            if first is not None
            else self.trace_on_standins(path, args, cwd, env, cancel, on_progress, label)
        )
        return replace(run, gpu_run=gpu_run)

    @staticmethod
    def check_measured(
        path: Path, script: str | Path, cwd: Path, run: ScriptRun | None, done: Any
    ) -> None:
        """RunError unless the measurement here took a training step (stopped at the cap before one, failed, or ended
        without one), with the script's own error."""
        said = (done.stderr_tail or done.stdout_tail).strip()
        if done.returncode is None and (run is None or not run.steps):
            raise RunError(
                f"{path.name} took no training step within {done.seconds:.0f} s (the cap): it was stopped, with "
                "everything it started",
                hint="does it download or load a large dataset first, or wait on a lock, a port or a GPU?",
            )
        if run is None or run.status == "error":
            own = own_error(run.message if run is not None else "", said)
            here = Path.cwd()
            # run from its own folder below this one (also when the caller resolved the default), it looked for a file
            lost = (
                cwd == path.resolve().parent
                and "No such file or directory" in own
                and here in cwd.parents
            )
            when = (
                f"after {len(run.steps):,} training steps"
                if run is not None and run.steps
                else "before its first training step"
            )
            stdin = "EOFError" in own and ("input(" in own or "EOF when reading a line" in own)
            raise RunError(
                f"{path.name} failed {when}; its own error:\n{own}",
                hint=f"it ran in its own folder, {shown_path(str(cwd))}; to run it from here, as "
                f"`python {shown_path(str(script))}` would, give --workdir ."
                if lost
                else "it read its standard input: the planner runs a script with none (no terminal, as on an "
                "instance); give it its answers as arguments or environment variables"
                if stdin
                else "",
            )
        if not run.steps:
            last = [line for line in said.splitlines() if line.strip()][-5:]
            own_words = ("; its last output:\n" + "\n".join(last)) if last else ""
            raise RunError(
                f"{path.name} finished without a training step (no optimizer step, no backward pass){own_words}",
                hint='is the training loop behind a flag or an `if __name__ == "__main__"` it did not reach, '
                "or did it stop for want of something (GPUs, a dataset) its output names?",
            )
        if capped_too_soon(len(run.steps), done):
            raise RunError(
                f"{path.name} took {len(run.steps)} training step(s) within {done.seconds:.0f} s (the cap), too "
                "few to time: it was stopped, with everything it started",
                hint="give more --seconds",
            )

    def predicted_only(
        self,
        path: Path,
        args: list[str],
        cwd: Path,
        env: ScriptEnv | None,
        cancel: Any,
        on_progress: ProgressFn | None,
        label: str,
    ) -> ScriptRun:
        """`--predict-only` for a script: its trace on the stand-in GPU, nothing run here (see measure_script)."""
        first = self.trace_on_standins(path, args, cwd, env, cancel, on_progress, label)
        if first is None or not first.cuda_used:
            did = (
                "failed on the stand-in GPU" if first is None else "put nothing on the stand-in GPU"
            )
            raise InputError(
                f"--predict-only: {path.name} {did}: only its own run here describes it",
                hint="leave --predict-only out; --seconds bounds the measurement",
            )
        cpu, cores = this_cpu(first)
        here = predicted_here(first, "--predict-only: it was not run here", cpu, cores)
        if here is None:
            raise InputError(
                f"--predict-only: no sourced facts for this processor ({cpu.name if cpu else 'unknown'}) to "
                "predict its step here from the trace",
                hint="leave --predict-only out",
            )
        return here

    def predicted_from_standin(
        self,
        path: Path,
        args: list[str],
        cwd: Path,
        env: ScriptEnv | None,
        cancel: Any,
        on_progress: ProgressFn | None,
        label: str,
        why: str,
        failure: RunError,
        traced: ScriptRun | None = None,
    ) -> ScriptRun:
        """The script's plan from its trace on the stand-in GPU when it cannot be measured here (`why`); `failure`
        (the measurement's error) is raised when the stand-in cannot trace it either. `traced`: its trace, if taken."""
        gpu_run = traced or self.trace_on_standins(path, args, cwd, env, cancel, on_progress, label)
        here = None if gpu_run is None else predicted_here(gpu_run, why, *this_cpu(gpu_run))
        if here is None:
            raise failure
        return here

    def trace_on_standins(
        self,
        path: Path,
        args: list[str],
        cwd: Path,
        env: ScriptEnv | None = None,
        cancel: threading.Event | None = None,
        on_progress: ProgressFn | None = None,
        label: str = "local",
    ) -> ScriptRun | None:
        """trace_on_standin, and, when the script asked what the GPU supports (bf16, its capability, its properties),
        again on a stand-in T4 (capability 7.5, no bf16): scripts such as nanoGPT choose fp16 and a GradScaler there,
        and the Turing and Volta rows come from that trace (`gpu_run_no_bf16` of the run returned)."""
        gpu_run = self.trace_on_standin(path, args, cwd, env, cancel, on_progress, label)
        if (
            gpu_run is None
            or gpu_run.standin is None
            or not set(gpu_run.standin.asked) & {"bf16", "capability", "properties"}
        ):
            return gpu_run
        older = self.trace_on_standin(
            path, args, cwd, env, cancel, on_progress, label, gpu=NO_BF16_GPU
        )
        return replace(gpu_run, gpu_run_no_bf16=older)

    def trace_on_standin(
        self,
        path: Path,
        args: list[str],
        cwd: Path,
        env: ScriptEnv | None = None,
        cancel: threading.Event | None = None,
        on_progress: ProgressFn | None = None,
        label: str = "local",
        gpu: dict[str, Any] | None = None,
    ) -> ScriptRun | None:
        """The script run again, unchanged, on the stand-in GPU (runner/standin.py): a GPU's step traced in seconds,
        with the precision and kernels the GPU run would use, and its own host work timed as CPU time. None when it
        failed there (its GPU rows then come from this CPU's trace, said so)."""
        if on_progress is not None:
            on_progress(label, {"event": "script", "phase": "tracing a step on the stand-in GPU"})
        with tempfile.TemporaryDirectory(prefix="planner-standin-") as tmp:
            done = run_script(
                path.resolve(),
                list(args),
                STANDIN_SECONDS,
                Path(tmp),
                min_steps=STANDIN_STEPS,
                cap_seconds=STANDIN_CAP_SECONDS,
                cancel=cancel,
                cwd=cwd,
                extra_env=env.here if env else None,
                standin=gpu or {},
                max_steps=STANDIN_STEPS,
            )
        if cancel is not None and cancel.is_set():
            raise Cancelled(f"cancelled: the trace of {path.name} on the stand-in GPU was stopped")
        if not done.result or done.result.get("status") != "ok" or not done.result.get("trace"):
            return None
        return ScriptRun.from_json(done.result)

    def validate_script(
        self,
        workload: ScriptWorkload,
        seconds: float = 10.0,
        recheck: bool = True,
        on_progress: ProgressFn | None = None,
    ) -> ScriptValidation:
        """Estimate the script's whole run (bench_script), then run it whole as the user would (spawn to
        exit, nothing hooked) and compare. With `recheck`, the script is measured again after the run, as
        a spec's validate benches again (ScriptValidation.unsteady_reason). Raises what bench_script raises, and
        RunError when the whole run fails or outlasts three times the estimate's high end (at least 10 minutes)."""
        script, args, env = workload.path, list(workload.args), workload.env
        total_steps, epochs = workload.total_steps, workload.epochs
        cwd = script_workdir(script_path(script), workload.workdir)
        workload = replace(
            workload, workdir=str(cwd)
        )  # measured, run whole and measured again there
        check_validated_epochs(args, epochs)
        run, est = self.bench_script(workload, seconds, on_progress=on_progress, label="bench")
        ran = len(run.steps)
        if (
            run.stopped_because == "finished"
            and (total_steps or epochs)
            and abs(est.total_steps - ran) > max(1.0, 0.02 * ran)
        ):
            raise InputError(
                f"validate compares the estimate with the script's own run, which finished after {ran:,} "
                f"steps while it was measured: the plan is of {est.total_steps:,}",
                hint="leave --total-steps/--epochs out (a run measured whole is its own length), or give the "
                "script the arguments of the run to validate",
            )
        if (
            differs := length_disagreement(list(args), run, est)
        ) is not None:  # --total-steps against its epochs
            raise InputError(
                f"validate compares the estimate with the script's own run, and {differs}",
                hint="give the planner the length the script's arguments train",
            )
        cap = max(
            3 * (est.high if math.isfinite(est.high) else 10 * est.seconds), 600.0
        )  # no usable interval: 10x the point
        if on_progress is not None:
            on_progress(
                "train", {"event": "script", "phase": "whole run", "estimate_seconds": est.seconds}
            )
        with tempfile.TemporaryDirectory(prefix="planner-script-") as tmp:
            whole = run_script(
                Path(script).resolve(),
                list(args),
                seconds,
                Path(tmp),
                cap_seconds=cap,
                whole=True,
                cwd=cwd,
                extra_env=env.here if env else None,
            )
        if whole.returncode != 0:
            why = (
                "was stopped at the cap"
                if whole.returncode is None
                else f"exited with {whole.returncode}"
            )
            raise RunError(
                f"{Path(script).name}'s whole run {why} after {whole.seconds:.0f} s; its own output:\n"
                f"{(whole.stderr_tail or whole.stdout_tail).strip()[-2000:]}"
            )
        after = None
        if recheck:
            after, _ = self.bench_script(
                workload, seconds, on_progress=on_progress, label="recheck"
            )
        return ScriptValidation(str(script), list(args), run, est, whole.seconds, after)
