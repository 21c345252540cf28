"""The Measure part: on this machine, a spec's bench (`planner bench`; bench.py runs it) and a real training run
checked against its prediction (`planner validate`); a user's script measured here, or traced on the stand-in GPU
when it is written for one (script_checks.py judges what it left)."""

from __future__ import annotations

import functools
import math
import tempfile
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from planner.core.remarks import BenchedPerSteps
from planner.core.script import (
    PER_STEPS,
    ScriptEnv,
    ScriptEstimate,
    ScriptRun,
    estimate_or_per_steps,
    estimate_script,
    length_disagreement,
    never_asks_for_a_gpu,
    predicted_here,
    too_slow_here,
)
from planner.errors import Cancelled, InputError, RunError
from planner.report.remarks import word
from runner.bench.procfs import memory_available
from runner.local import (
    SCRIPT_CAP_EXTRA_SECONDS,
    ScriptProcess,
    run_script,
)
from runner.script_job import own_error

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.service.describe import Workloads
    from planner.service.workload import ScriptWorkload
    from planner.workload.spec import WorkloadSpec
    from runner.bench.result import BenchResult

from planner.service.bench import (
    BenchOptions,
    ProgressFn,
    SpecValidation,
    run_bench,
    runner_progress,
    validate,
)
from planner.service.script_checks import (
    ScriptValidation,
    cannot_measure_here,
    capped_too_soon,
    check_validated_epochs,
    names_a_gpu,
    refuse_validate_without_length,
    script_path,
    script_workdir,
    this_cpu,
)
from planner.service.script_jobs import failure_hint
from planner.service.standin_trace import (
    predicted_from_standin,
    predicted_only,
    trace_on_standins,
)


def same_threads(run: ScriptRun, extra: dict[str, str] | None) -> dict[str, str] | None:
    """The whole run of `validate` with the torch threads its estimate was measured with, where the launcher fitted
    them to the CPUs free (a trial: measured with 1 on a busy machine, run whole with 2 as the CPUs freed: -54%, an
    error of the comparison, not of the estimate); the user's own thread settings are left as they are."""
    if run.threads_fitted is None or not run.threads:
        return extra
    return {**(extra or {}), "OMP_NUM_THREADS": str(run.threads)}


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
            batch_size=batch_size,
        )

    def validate(
        self,
        spec: WorkloadSpec,
        epochs: int | None,
        options: BenchOptions,
        on_progress: ProgressFn | None = None,
        recheck: bool = True,
    ) -> SpecValidation:
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
        per_steps: bool = False,
    ) -> tuple[ScriptRun, ScriptEstimate]:
        """Run the user's training script here, unchanged (measure_script), and extrapolate its whole run
        (planner/core/script/estimate.py); `per_steps` (`planner bench`): with no length given and none the
        measurement can know, the whole run said for PER_STEPS steps, and why. Raises what measure_script raises,
        and InputError (the run's length cannot be known: RunLengthUnknown; too few steps)."""
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
        if not per_steps:  # validate: the run's own length, or RunLengthUnknown
            return run, estimate_script(run, workload.total_steps, workload.epochs, args=args)
        est = estimate_or_per_steps(run, workload.total_steps, workload.epochs, args)
        # the step table stands, its whole run said per PER_STEPS steps (as estimate plans it)
        if est.per_steps:
            est = replace(est, warnings=[BenchedPerSteps(PER_STEPS), *est.warnings])
        return run, est

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
            return predicted_only(path, args, cwd, env, cancel, on_progress, label)
        # a script written for a GPU is traced on the stand-in GPU first: it may be too slow to measure here
        first = None
        if names_a_gpu(path):
            first = trace_on_standins(path, args, cwd, env, cancel, on_progress, label)
            here = _too_slow_here(first.run, seconds)
            if here is not None:
                return here
        done = _run_here(path, args, seconds, until_epoch, cancel, on_progress, label, cwd, env)
        run = ScriptRun.from_json(done.result) if done.result else None
        try:
            self.check_measured(path, script, cwd, run, done)
        except RunError as failure:
            cannot = cannot_measure_here(run, done)
            if cannot is None:
                raise
            # a script written for a GPU (CUDA hard-coded, or a first step longer than the cap on this CPU): planned from
            # its trace on the stand-in GPU, its CPU rows predicted from that trace; if it fails there too, the error stands
            return predicted_from_standin(
                path, args, cwd, env, cancel, on_progress, label, cannot, failure, first
            )
        assert run is not None
        if never_asks_for_a_gpu(run):
            return run  # it trains on a CPU wherever it runs: no GPU row to trace
        traced = first or trace_on_standins(path, args, cwd, env, cancel, on_progress, label)
        return replace(run, gpu_run=traced.run, standin_error=traced.error)

    @staticmethod
    def check_measured(
        path: Path, script: str | Path, cwd: Path, run: ScriptRun | None, done: ScriptProcess
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
            when = (
                f"after {len(run.steps):,} training steps"
                if run is not None and run.steps
                else "before its first training step"
            )
            raise RunError(
                f"{path.name} failed {when}; its own error:\n{own}",
                hint=failure_hint(own, path, script, cwd, bool(run is not None and run.steps)),
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
        # measured, run whole and measured again there
        workload = replace(workload, workdir=str(cwd))
        check_validated_epochs(args, epochs)
        refuse_validate_without_length(workload)
        run, est = self.bench_script(workload, seconds, on_progress=on_progress, label="bench")
        _refuse_unvalidatable(Path(script).name, run, est, list(args), bool(total_steps or epochs))
        # no usable interval: 10x the point
        cap = max(3 * (est.high if math.isfinite(est.high) else 10 * est.seconds), 600.0)
        if on_progress is not None:
            from planner.core.progress import ScriptProgress

            on_progress("train", ScriptProgress(phase="whole run", estimate_seconds=est.seconds))
        env_here = same_threads(run, env.here if env else None)
        whole_seconds = _run_whole(Path(script), list(args), seconds, cap, cwd, env_here)
        after = None
        if recheck:
            after, _ = self.bench_script(
                workload, seconds, on_progress=on_progress, label="recheck"
            )
        return ScriptValidation(
            str(script), list(args), run, est, whole_seconds, after, total_steps is not None
        )


def _refuse_unvalidatable(
    name: str, run: ScriptRun, est: ScriptEstimate, args: list[str], length_given: bool
) -> None:
    """InputError when the script's whole run here is not what its estimate is of: its step here predicted, the run
    measured whole at another length, a --total-steps against its own epochs."""
    # not measured here: its whole run here is what validate would compare with
    if run.predicted_here:
        raise InputError(
            f"{name} cannot be validated on this machine: {run.predicted_here} (its step here is "
            "predicted from its trace on a stand-in GPU, and validate runs the script whole here)",
            hint="validate it where it runs (a machine with a GPU: planner validate there), or on this CPU "
            "once its device lines allow one",
        )
    ran = len(run.steps)
    if (
        run.stopped_because == "finished"
        and length_given
        and abs(est.total_steps - ran) > max(1.0, 0.02 * ran)
    ):
        raise InputError(
            f"validate compares the estimate with the script's own run, which finished after {ran:,} "
            f"steps while it was measured: the plan is of {est.total_steps:,}",
            hint="leave --total-steps/--epochs out (a run measured whole is its own length), or give the "
            "script the arguments of the run to validate",
        )
    # --total-steps against its epochs
    if (differs := length_disagreement(args, run, est)) is not None:
        raise InputError(
            f"validate compares the estimate with the script's own run, and {word(differs)}",
            hint="give the planner the length the script's arguments train",
        )


def _run_whole(
    script: Path, args: list[str], seconds: float, cap: float, cwd: Path, env: dict[str, str] | None
) -> float:
    """The script run whole as the user would run it (spawn to exit, nothing hooked): its seconds. RunError when
    it fails or is stopped at `cap`."""
    with tempfile.TemporaryDirectory(prefix="planner-script-") as tmp:
        whole = run_script(
            script.resolve(),
            args,
            seconds,
            Path(tmp),
            cap_seconds=cap,
            whole=True,
            cwd=cwd,
            extra_env=env,
        )
    if whole.returncode != 0:
        why = (
            "was stopped at the cap"
            if whole.returncode is None
            else f"exited with {whole.returncode}"
        )
        raise RunError(
            f"{script.name}'s whole run {why} after {whole.seconds:.0f} s; its own output:\n"
            f"{(whole.stderr_tail or whole.stdout_tail).strip()[-2000:]}"
        )
    return whole.seconds


def _too_slow_here(first: ScriptRun | None, seconds: float) -> ScriptRun | None:
    """The script's run here predicted from its trace on the stand-in GPU (`first`), when a step of it would not
    fit the cap on this CPU; None when it can be measured here."""
    if first is None or not first.cuda_used:
        return None
    cpu, cores = this_cpu(first)
    slow = too_slow_here(first, cpu, cores, seconds + SCRIPT_CAP_EXTRA_SECONDS, memory_available())
    return None if slow is None else predicted_here(first, word(slow), cpu, cores)


def _run_here(
    path: Path,
    args: list[str],
    seconds: float,
    until_epoch: bool,
    cancel: threading.Event | None,
    on_progress: ProgressFn | None,
    label: str,
    cwd: Path,
    env: ScriptEnv | None,
) -> ScriptProcess:
    """The script run here under the launcher for `seconds` (its steps timed). Cancelled when `cancel` was set."""
    events = runner_progress(on_progress)  # the runner's JSON read into typed events
    with tempfile.TemporaryDirectory(prefix="planner-script-") as tmp:
        done = run_script(
            path.resolve(),
            list(args),
            seconds,
            Path(tmp),
            until_epoch=until_epoch,
            cancel=cancel,
            progress=None if events is None else functools.partial(events, label),
            cwd=cwd,
            extra_env=env.here if env else None,
        )
    if cancel is not None and cancel.is_set():
        raise Cancelled(
            f"cancelled: the measurement of {path.name} here was stopped, with everything it started"
        )
    return done
