"""LocalTarget: run the bench in a subprocess on this machine. Design notes:
docs/reference/modules.md (runner/local.py)."""

from __future__ import annotations

import datetime as dt
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.bench.procfs import memory_available  # noqa: F401 - this machine's free memory, for the planner
from runner.bench.result import BenchResult
from runner.lifeline import PARENT_ENV
from runner.script_job import ProgressWatch, kill_group, launcher_arguments, run_group
from runner.target import TargetStatus

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
DESCRIBE_TIMEOUT_SECONDS = 120.0
# address space of the describing child: torch itself needs ~1 GiB
DESCRIBE_MEMORY_BYTES = 6 * 2**30


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a child that runs `runner.bench`: this package importable, unbuffered,
    and this process named as the parent it dies with (runner/lifeline.py); `extra`: a script's own
    (a SkyPilot task's envs), which cannot undo those three."""
    env = {**os.environ, **(extra or {})}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    env[PARENT_ENV] = str(os.getpid())
    return env


def child_command(module: str, *args: str) -> list[str]:
    """`python -m MODULE ARGS...` in a child that dies with this process."""
    return [sys.executable, "-m", "runner.lifeline", module, *args]


class DescribeError(Exception):
    """The model could not be described; the message names model.factory and says why."""


def describe_model(
    model: dict[str, Any],
    timeout: float = DESCRIBE_TIMEOUT_SECONDS,
    memory_bytes: int = DESCRIBE_MEMORY_BYTES,
) -> list[dict[str, Any]]:
    """Describe a model (runner.bench.introspect rows) in a child process with a time and memory
    limit: the user's factory never runs inside the planner."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="planner-describe-") as tmp:
        path = Path(tmp) / "model.json"
        path.write_text(json.dumps(model))
        # the child limits its own memory first thing (a preexec_fn is unsafe in a threaded planner: the TUI)
        env = {**child_env(), "PLANNER_MEMORY_LIMIT_BYTES": str(memory_bytes)}
        proc = subprocess.Popen(
            child_command("runner.bench.describe", str(path)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            raise DescribeError(
                f"model.factory: describing the model did not finish within {timeout:g} s "
                "(does the factory or the forward pass hang?)"
            ) from None
    for line in reversed(out.splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and "error" in data:
            raise DescribeError(str(data["error"]))
        if isinstance(data, dict) and isinstance(data.get("rows"), list):
            return data["rows"]
    code = proc.returncode
    why = (
        f"was killed by signal {signal.Signals(-code).name}"
        if code < 0 and -code in signal.valid_signals()
        else f"exited with code {code}"
    )
    tail = " | ".join(err.strip().splitlines()[-3:])
    raise DescribeError(
        f"model.factory: the process describing the model {why} before it finished"
        + (f" ({tail})" if tail else "")
        + "; run the factory by itself to see why"
    )


STOPPED_AT_CAP = (
    "stopped at the bench's wall-clock cap"  # a local bench ended from outside (LocalTarget.expire)
)
# beyond the budget: imports, data and model setup before the first step
SCRIPT_CAP_EXTRA_SECONDS = 300.0


@dataclass(frozen=True)
class ScriptProcess:
    """How a measured script's process ended: the launcher's result (None: it wrote none) and the ends of
    the script's own output."""

    result: dict[str, Any] | None
    returncode: int | None  # None: stopped at the cap
    stdout_tail: str
    stderr_tail: str
    seconds: float


def run_script(
    script: Path,
    args: list[str],
    seconds: float,
    workdir: Path,
    min_steps: int = 20,
    cap_seconds: float | None = None,
    whole: bool = False,
    until_epoch: bool = False,
    cancel: Any = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    cwd: Path | None = None,
    extra_env: dict[str, str] | None = None,
    standin: dict[str, Any] | None = None,
    max_steps: int | None = None,
) -> ScriptProcess:
    """Run `script ARGS` unchanged under runner.script (its steps timed by PyTorch's own hooks) in a
    child that dies with the planner, in the script's folder, with no stdin; stopped at the cap
    (`seconds` + SCRIPT_CAP_EXTRA_SECONDS) with everything it started (its process group). `whole`:
    nothing hooked, run to its end (timed spawn to exit, as `python train.py` would take). `until_epoch`:
    past the budget, keep measuring until a whole training epoch and the step after it were seen (`--epochs`
    counts steps from it), at most until shortly before the cap. `cancel` (a threading.Event): stopped when set.
    `progress` gets the measurement's progress events (runner.script_job.ProgressWatch). `cwd`: the folder it
    runs in (`--workdir`; default the script's own). `extra_env`: set in the script's environment (its task's envs and
    secrets). `standin`: the script's GPU is the stand-in (runner/standin.py) this describes, its step traced, not timed;
    `max_steps`: stop after so many steps."""
    out = workdir / ("standin-result.json" if standin is not None else "script-result.json")
    cap = cap_seconds if cap_seconds is not None else seconds + SCRIPT_CAP_EXTRA_SECONDS
    env = {**child_env(extra_env), "PLANNER_SPAWN_TIME": repr(time.time())}
    start = time.perf_counter()
    stdout, stderr, code = run_group(
        child_command(
            "runner.script",
            *launcher_arguments(
                str(out),
                seconds,
                min_steps,
                str(script),
                args,
                cap,
                whole,
                until_epoch,
                standin,
                max_steps,
            ),
        ),
        str(cwd or script.parent),
        env,
        cap,
        cancel,
        on_tick=ProgressWatch(str(out), progress),
    )
    result = json.loads(out.read_text()) if out.is_file() else None
    return ScriptProcess(result, code, stdout[-4000:], stderr[-4000:], time.perf_counter() - start)


class LocalTarget:
    exclusive = True  # one local bench at a time: they share this machine's cores
    poll_seconds = 0.1

    def __init__(self, job: dict[str, Any], workdir: Path, label: str = "local"):
        self.job, self.workdir, self.label = job, Path(workdir), label
        self.job_path = self.workdir / f"{label}.job.json"
        self.result_path = self.workdir / f"{label}.result.json"
        self.log_path = self.workdir / f"{label}.log"
        self.proc: subprocess.Popen[str] | None = None
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._log_lines: list[str] = []
        self.last_event: dict[str, Any] = {}
        self.terminated = False
        self.abandoned: str | None = None  # why the session stopped waiting, if it did
        # perf_counter marks for the process's own wall time: spawn, the bench's last line, stdout EOF (= exit)
        self._spawned_at: float | None = None
        self._done_at: float | None = None
        self._eof_at: float | None = None
        self._spawned_utc: dt.datetime | None = None

    @property
    def wall_cap(self) -> float | None:
        """Seconds of wall time the bench process may take (the job's `wall_cap_seconds`: its budget, the harness's
        cap past it, and its start-up); None: no bound (a training run, a sweep). The harness bounds its own
        measuring, but only between steps: one step longer than that is bounded here, from outside (issue 40)."""
        cap = self.job.get("wall_cap_seconds")
        return float(cap) if cap else None

    @property
    def deadline(self) -> dt.datetime | None:
        cap = self.wall_cap
        if cap is None or self._spawned_utc is None:
            return None
        return self._spawned_utc + dt.timedelta(seconds=cap)

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.job_path.write_text(json.dumps(self.job, indent=2))
        env = child_env()
        self._spawned_at = time.perf_counter()
        self._spawned_utc = dt.datetime.now(dt.timezone.utc)
        self.proc = subprocess.Popen(
            child_command("runner.bench", str(self.job_path), str(self.result_path)),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,  # our own process group: terminate() takes the whole tree
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc and self.proc.stdout
        with self.log_path.open("w") as log:
            for line in self.proc.stdout:
                log.write(line)
                log.flush()
                try:
                    event = json.loads(line)
                    if isinstance(event, dict) and "event" in event:
                        if event["event"] == "done":
                            self._done_at = time.perf_counter()
                        self._events.put(event)
                        continue
                except ValueError:
                    pass
                self._log_lines.append(line.rstrip("\n"))
        self._eof_at = time.perf_counter()  # the child closed stdout: it has exited

    def poll(self) -> TargetStatus:
        """Drain progress events; report the state without blocking."""
        while True:
            try:
                self.last_event = self._events.get_nowait()
            except queue.Empty:
                break
        if self.proc is None:
            return TargetStatus("pending")
        if self.terminated:
            return TargetStatus("terminated", self.last_event)
        code = self.proc.poll()
        if code is None:
            return TargetStatus("running", self.last_event)
        return TargetStatus("done" if self.result_path.exists() else "failed", self.last_event)

    def wait(self, timeout: float | None = None) -> None:
        assert self.proc is not None
        self.proc.wait(timeout)
        if self._reader:
            self._reader.join(5)

    def collect(self) -> BenchResult:
        """The bench's result; a crash without a result becomes an error result with the log tail."""
        if self.proc is not None and not self.terminated:
            try:
                self.wait(30)  # the exit is part of what is timed (exit_seconds)
            except subprocess.TimeoutExpired:
                self.terminate()
        if self.result_path.exists():
            result = BenchResult.read(self.result_path)
            if self._spawned_at is not None and self._eof_at is not None:
                result.process_seconds = self._eof_at - self._spawned_at
                if self._done_at is not None:
                    result.exit_seconds = self._eof_at - self._done_at
            return result
        tail = "\n".join(self._log_lines[-15:])
        code = self.proc.returncode if self.proc else None
        reason = (
            (self.abandoned or "terminated")
            if self.terminated or self.abandoned
            else f"the bench process exited with code {code} and wrote no result"
        )
        return BenchResult(
            status="error",
            device=str(self.job.get("device", "cpu")),
            workload=self.job["spec"]["name"],
            message=f"{reason}\n{tail}".strip(),
        )

    def terminate(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.terminated = True
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(5)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass

    def expire(self) -> None:
        step = self.last_event.get("step_seconds")
        seen = f" (its last step took {step:.1f} s)" if isinstance(step, (int, float)) else ""
        self.abandon(
            f"{STOPPED_AT_CAP} of {self.wall_cap or 0:.0f} s with no result{seen}: one step of this workload "
            "takes longer than the bench may run here"
        )

    def abandon(self, reason: str) -> None:
        self.abandoned = reason
        self.terminate()

    def leftover(self) -> dict[str, Any] | None:
        return None  # SIGKILL to the bench's process group cannot fail, and nothing here bills

    def cost_so_far(self, now: dt.datetime | None = None) -> float:
        return 0.0  # this machine's price is a plan option (--local-price), not a bench cost
