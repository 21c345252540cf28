"""A user's script traced on the stand-in GPU (runner/standin.py): its GPU step, with the precision and kernels a GPU
run would use, in seconds on this machine; again on a stand-in T4 when it asked what its GPU supports; and this
machine's step predicted from the trace when the script cannot be measured here (or --predict-only)."""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.core.script import ScriptEnv, ScriptRun, predicted_here
from planner.core.script.timeline import StandinGpu
from planner.errors import Cancelled, InputError, RunError
from planner.report.text import error_line
from planner.service.script_checks import this_cpu
from runner.local import run_script
from runner.script_job import own_error

if TYPE_CHECKING:
    from planner.service.bench import ProgressFn

# The stand-in GPU's trace (runner/standin.py): steps there cost only the host's work and the tracing, so a few
# are enough (the first two hold lazy state: the one traced is the third); its cap bounds a long setup.
STANDIN_STEPS = 8


STANDIN_SECONDS = 2.0


STANDIN_CAP_SECONDS = 120.0


# The stand-in a script is traced on again when it asked what its GPU supports: the cheapest GPU without bf16
NO_BF16_GPU = StandinGpu("Tesla T4", (7, 5), 15_828_320_256, 40)


@dataclass(frozen=True)
class Traced:
    """A script's run on the stand-in GPU: `run` (None: no step was traced there) and, when it failed there, its own
    `error` (the traceback, as `python train.py` prints it)."""

    run: ScriptRun | None
    error: str = ""


def predicted_only(
    path: Path,
    args: list[str],
    cwd: Path,
    env: ScriptEnv | None,
    cancel: Any,
    on_progress: ProgressFn | None,
    label: str,
) -> ScriptRun:
    """`--predict-only` for a script: its trace on the stand-in GPU, nothing run here (see measure_script)."""
    traced = trace_on_standins(path, args, cwd, env, cancel, on_progress, label)
    first = traced.run
    if first is None or not first.cuda_used:
        did = (
            "put nothing on the stand-in GPU"
            if first is not None
            else f"failed on the stand-in GPU: {error_line(traced.error) or 'no error given'}"
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
    path: Path,
    args: list[str],
    cwd: Path,
    env: ScriptEnv | None,
    cancel: Any,
    on_progress: ProgressFn | None,
    label: str,
    cannot: tuple[str, bool],
    failure: RunError,
    traced: Traced | None = None,
) -> ScriptRun:
    """The script's plan from its trace on the stand-in GPU when it cannot be measured here (`cannot`: why, and
    whether it stops on a CPU as written); `failure` (the measurement's error) is raised when the stand-in cannot
    trace it either, with the stand-in's own error when it failed there too. `traced`: its trace, if taken."""
    traced = traced or trace_on_standins(path, args, cwd, env, cancel, on_progress, label)
    gpu_run = traced.run
    why, stops = cannot
    here = (
        None if gpu_run is None else predicted_here(gpu_run, why, *this_cpu(gpu_run), stops=stops)
    )
    if here is None:
        said = error_line(traced.error)
        # another error there than here (the same one, said twice, says nothing more)
        if said and error_line(traced.error, 10_000, raised=False) not in failure.message:
            failure.message += f"\non the stand-in GPU it failed too: {said}"
        raise failure
    return here


def trace_on_standins(
    path: Path,
    args: list[str],
    cwd: Path,
    env: ScriptEnv | None = None,
    cancel: threading.Event | None = None,
    on_progress: ProgressFn | None = None,
    label: str = "local",
) -> Traced:
    """trace_on_standin, and, when the script asked what the GPU supports (bf16, its capability, its properties),
    again on a stand-in T4 (capability 7.5, no bf16): scripts such as nanoGPT choose fp16 and a GradScaler there,
    and the Turing and Volta rows come from that trace (`gpu_run_no_bf16` of the run returned)."""
    traced = trace_on_standin(path, args, cwd, env, cancel, on_progress, label)
    gpu_run = traced.run
    if (
        gpu_run is None
        or gpu_run.standin is None
        or not set(gpu_run.standin.asked) & {"bf16", "capability", "properties"}
    ):
        return traced
    older = trace_on_standin(path, args, cwd, env, cancel, on_progress, label, gpu=NO_BF16_GPU)
    return Traced(replace(gpu_run, gpu_run_no_bf16=older.run))


def trace_on_standin(
    path: Path,
    args: list[str],
    cwd: Path,
    env: ScriptEnv | None = None,
    cancel: threading.Event | None = None,
    on_progress: ProgressFn | None = None,
    label: str = "local",
    gpu: StandinGpu | None = None,
) -> Traced:
    """The script run again, unchanged, on the stand-in GPU (runner/standin.py): a GPU's step traced in seconds,
    with the precision and kernels the GPU run would use, and its own host work timed as CPU time. Its run is None
    when it traced no step there (its GPU rows then come from this CPU's trace, said so, with its error)."""
    if on_progress is not None:
        from planner.core.progress import ScriptProgress

        on_progress(label, ScriptProgress(phase="tracing a step on the stand-in GPU"))
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
            standin=gpu.to_json() if gpu else {},
            max_steps=STANDIN_STEPS,
        )
    if cancel is not None and cancel.is_set():
        raise Cancelled(f"cancelled: the trace of {path.name} on the stand-in GPU was stopped")
    if done.result and done.result.get("status") == "ok":
        # it ran: a step traced, or none (it ended before the traced step): nothing failed there
        return Traced(ScriptRun.from_json(done.result) if done.result.get("trace") else None)
    said = (done.stderr_tail or done.stdout_tail).strip()
    message = str(done.result.get("message") or "") if done.result else ""
    return Traced(None, own_error(message, said) or "it stopped without a word")
