"""A user's training script as a bench job of kind "script", run under runner/script.py. Design
notes: docs/reference/modules.md (runner/script_job.py)."""

from __future__ import annotations

import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from runner.bench.harness import interruption
from runner.bench.procfs import descendants
from runner.bench.result import BenchResult

WARMUP_SHARE, MIN_WARMUP_STEPS = 0.1, 2  # as planner/core/script/estimate.py drops them


def kill_tree(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL a child's whole process group (it was started with start_new_session) and every process below
    it that left the group, then reap it."""
    below = descendants(proc.pid) if proc.poll() is None else []
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    kill_tree(below)
    proc.wait()


def _rest_of(proc: subprocess.Popen) -> tuple[str, str]:
    """What is left of the child's output once it is gone: read for a moment, then given up (a process that
    left its group may still hold the pipes; it is not waited for)."""
    try:
        return proc.communicate(timeout=2)
    except subprocess.TimeoutExpired:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        return "", ""


def launcher_arguments(
    out: str,
    seconds: float,
    min_steps: int,
    script: str,
    args: list[str],
    cap: float,
    whole: bool = False,
    until_epoch: bool = False,
    standin: dict[str, Any] | None = None,
    max_steps: int | None = None,
) -> list[str]:
    """runner.script's command line (after `-m runner.script`), here and on an instance alike (`standin`: traced on
    the stand-in GPU it describes, here only)."""
    return [
        "--out",
        out,
        "--seconds",
        str(seconds),
        "--min-steps",
        str(min_steps),
        *(["--whole"] if whole else []),
        *(["--until-epoch", "--latest", str(max(cap - 15, seconds))] if until_epoch else []),
        *(["--standin", json.dumps(standin)] if standin is not None else []),
        *(["--max-steps", str(max_steps)] if max_steps is not None else []),
        script,
        "--",
        *args,
    ]


class ProgressWatch:
    """The launcher's progress file (`out`.progress) as progress events: each new one is passed on; until
    the first arrives, a "setup" event each second (the script imports, loads and builds before its first
    step). Called at each poll of run_group."""

    def __init__(self, out: str, progress: Callable[[dict[str, Any]], None] | None):
        self.path, self.progress = out + ".progress", progress
        self.start, self.seen, self.said = time.monotonic(), 0.0, -1

    def __call__(self) -> None:
        if self.progress is None:
            return
        try:
            mtime = os.stat(self.path).st_mtime
        except OSError:
            elapsed = int(time.monotonic() - self.start)
            if elapsed > self.said:  # not stepping yet
                self.said = elapsed
                self.progress({"event": "script", "phase": "setup", "seconds": float(elapsed)})
            return
        if mtime == self.seen:
            return
        try:
            with open(self.path) as f:
                event = json.load(f)
        except (OSError, ValueError):
            return  # being replaced: the next poll reads it
        self.seen = mtime
        self.progress(event)


def run_group(
    command: list[str],
    cwd: str,
    env: dict[str, str],
    cap: float,
    cancel: Any = None,
    on_tick: Callable[[], None] | None = None,
) -> tuple[str, str, int | None]:
    """`command` in its own process group, no stdin, in `cwd`; at `cap` seconds, when `cancel` (a
    threading.Event) is set, or when this process is interrupted, it is killed with everything it started
    (DataLoader workers, a simulator), and at its end too. `on_tick` is called at each poll (4 a second).
    (stdout, stderr, exit code; None: stopped)."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + cap
    try:
        while True:
            try:
                stdout, stderr = proc.communicate(
                    timeout=max(min(0.25, deadline - time.monotonic()), 0.01)
                )
                code: int | None = proc.returncode
                break
            except subprocess.TimeoutExpired:
                if on_tick is not None:
                    on_tick()
                # it ended; what it started still holds its output: ended too
                if proc.poll() is not None:
                    code = proc.returncode
                    kill_group(proc)
                    stdout, stderr = _rest_of(proc)
                    break
                if time.monotonic() >= deadline or (cancel is not None and cancel.is_set()):
                    kill_group(proc)
                    stdout, stderr = _rest_of(proc)
                    code = None
                    break
    finally:
        kill_group(proc)
    return stdout, stderr, code


EXITED_WITH = "the script exited with"  # the launcher's message for sys.exit(CODE), which own_error recognises


def own_error(message: str, said: str) -> str:
    """The script's own error: its traceback, or, when it ended by sys.exit(CODE), what it wrote before (argparse's
    usage and complaint, its own log line) and the code."""
    message, said = message.strip(), said.strip()
    if message.startswith(EXITED_WITH) and said:
        return f"{said}\n({message})"
    return message or said


def script_result(
    data: dict[str, Any] | None,
    said: str,
    returncode: int | None,
    cap_seconds: float,
    want_device: str = "auto",
    setup_seconds: float = 0.0,
) -> BenchResult:
    """The launcher's timeline (`data`, None when it wrote none) as a bench result: the mean steady step and
    its interval for the progress line and the journal's checks; the whole timeline in `script`."""
    failed = BenchResult(status="error", device="cuda" if want_device == "cuda" else "cpu")
    # the whole run would fail there too
    if data is not None and data.get("status") == "error" and data.get("steps"):
        failed.message = (
            f"the script failed after {len(data['steps']):,} training steps; its own error:\n"
            + own_error(str(data.get("message") or ""), said)
        )
        return failed
    if data is None or data.get("status") == "error":
        failed.message = own_error(str((data or {}).get("message") or ""), said) or (
            f"the script took no training step within {cap_seconds:.0f} s (the cap): stopped, with everything it started"
            if returncode is None
            else f"{EXITED_WITH} {returncode} before its first training step"
        )
        return failed
    steps = data.get("steps") or []
    if len(steps) < 2:
        failed.message = (
            "the script finished without a training step (no optimizer step, no backward pass)"
        )
        return failed
    warmup = max(MIN_WARMUP_STEPS, int(len(steps) * WARMUP_SHARE))
    durations = [b - a for a, b in zip(steps[max(warmup, 1) - 1 :], steps[max(warmup, 1) :])] or [
        steps[-1] - steps[-2]
    ]
    mean = statistics.fmean(durations)
    half = (
        1.96 * statistics.stdev(durations) / math.sqrt(len(durations))
        if len(durations) > 1
        else math.inf
    )
    device = "cuda" if data.get("cuda_used") else "cpu"
    warnings: list[Any] = []
    if want_device == "cuda" and device == "cpu":
        warnings.append({"kind": "never_used_gpu"})
    warnings += list(data.get("busy_warnings") or [])
    return BenchResult(
        status="ok",
        device=device,
        device_name=str(data.get("device_name") or ""),
        workload=str(data.get("script") or ""),
        torch_version=str(data.get("torch_version") or ""),
        threads=int(data.get("threads") or 0),
        steps_measured=len(durations),
        step_seconds=mean,
        step_seconds_ci_low=max(mean - half, min(durations)) if math.isfinite(half) else mean,
        step_seconds_ci_high=mean + half if math.isfinite(half) else None,
        setup_seconds=setup_seconds + max(steps[0] - mean, 0.0),
        process_start_seconds=0.0,
        stopped_because=str(data.get("stopped_because") or ""),
        warnings=warnings,
        machine_busy=bool(data.get("busy_warnings")),
        wall_seconds=float(data.get("wall") or 0.0),
        script={**data, "requirements_seconds": setup_seconds},
    )


def run_job(
    job: dict[str, Any], workdir: str, progress: Callable[[dict[str, Any]], None] | None = None
) -> BenchResult:
    """Run the job's script (in its folder, no stdin, in a process group killed at the end and at the cap);
    `progress` gets its progress events (runner.bench prints them as JSON lines, as a spec's)."""
    folder = os.path.abspath(job.get("folder") or ".")
    own = {
        str(k): str(v) for k, v in (job.get("env") or {}).items()
    }  # the script's envs (never its secrets)
    env = {
        **os.environ,
        **own,
        "PYTHONPATH": os.pathsep.join(
            p for p in (os.getcwd(), own.get("PYTHONPATH", os.environ.get("PYTHONPATH"))) if p
        ),
    }
    setup = 0.0
    if job.get("requirements"):
        if progress is not None:
            progress({"event": "script", "phase": f"installing {job['requirements']}"})
        start = time.time()
        pip = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "-r", job["requirements"]],
            cwd=folder,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=1800,
            env=env,
        )
        setup = time.time() - start
        if pip.returncode != 0:
            return BenchResult(
                status="error",
                device="cpu",
                message=f"pip install -r {job['requirements']} failed:\n"
                f"{(pip.stderr or pip.stdout)[-2000:]}",
            )
    if job.get("device") == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""  # a CPU target: the script cannot pick a GPU
    seconds, cap = float(job.get("seconds", 10.0)), float(job.get("cap_seconds", 310.0))
    out = os.path.join(os.path.abspath(workdir), "script-result.json")
    env["PLANNER_SPAWN_TIME"] = repr(time.time())
    command = [
        sys.executable,
        "-m",
        "runner.script",
        *launcher_arguments(
            out,
            seconds,
            int(job.get("min_steps", 20)),
            os.path.join(folder, job["script"]),
            list(job.get("args", [])),
            cap,
            bool(job.get("whole")),
            bool(job.get("until_epoch")),
        ),
    ]
    stdout, stderr, code = run_group(
        command, folder, env, cap, cancel=_Notice(), on_tick=ProgressWatch(out, progress)
    )
    data = None
    if os.path.isfile(out):
        with open(out) as f:
            data = json.load(f)
        data["script"] = job["script"]
    notice = interruption()
    if notice is not None and code is None and data is not None and data.get("status") == "ok":
        # killed: its last interim result, the steps until the notice
        data["stopped_because"] = "interrupted"
    result = script_result(
        data, (stderr or stdout)[-4000:], code, cap, str(job.get("device", "auto")), setup
    )
    if notice is not None:
        result.interruption = notice
        if result.status == "ok":
            result.warnings.insert(
                0,
                {
                    "kind": "interrupted",
                    "notice": notice,
                    "steps": result.steps_measured,
                    "timed": True,
                },
            )
        else:
            result.message = f"interrupted ({notice}) before the script had steps enough to time"
    return result


# of the notice's two minutes: the launcher stops the script itself at its next step
NOTICE_GRACE_SECONDS = 5.0


class _Notice:
    """An interruption notice (runner.bench.harness.interruption) as run_group's `cancel`. The launcher stops the script
    at the end of a step and writes every step; a step still under way NOTICE_GRACE_SECONDS after the notice is killed,
    with everything it started, and the launcher's interim result kept."""

    def __init__(self) -> None:
        self.seen: float | None = None

    def is_set(self) -> bool:
        if self.seen is None:
            self.seen = time.monotonic() if interruption() is not None else None
            return False
        return time.monotonic() - self.seen >= NOTICE_GRACE_SECONDS
