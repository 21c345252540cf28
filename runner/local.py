"""LocalTarget: run the bench in a subprocess on this machine.

A subprocess, not a function call: the measurement runs in a fresh interpreter exactly as it will on
a rented instance (`python -m runner.bench job.json result.json`), its peak RSS is its own, and a
hung or crashed workload cannot take the planner down. Implements the target protocol shared with
the AWS target: start, poll, collect, terminate.

The parent also times the process from outside, which the bench cannot do from inside: its whole
life (spawn to exit, `process_seconds`) and its exit after the result is written
(`exit_seconds`: interpreter shutdown with torch loaded, ~0.3 s here), a one-time cost of every
training run.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.bench.result import BenchResult

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class TargetStatus:
    state: str  # pending | running | done | failed | terminated
    event: dict[str, Any] = field(default_factory=dict)


class LocalTarget:
    name = "local"

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
        # perf_counter marks for the process's own wall time: spawn, the bench's last line, stdout EOF (= exit)
        self._spawned_at: float | None = None
        self._done_at: float | None = None
        self._eof_at: float | None = None

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.job_path.write_text(json.dumps(self.job, indent=2))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        self._spawned_at = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "runner.bench", str(self.job_path), str(self.result_path)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
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
        if self.result_path.exists():
            result = BenchResult.read(self.result_path)
            if self._spawned_at is not None and self._eof_at is not None:
                result.process_seconds = self._eof_at - self._spawned_at
                if self._done_at is not None:
                    result.exit_seconds = self._eof_at - self._done_at
            return result
        tail = "\n".join(self._log_lines[-15:])
        code = self.proc.returncode if self.proc else None
        reason = "terminated" if self.terminated else f"the bench process exited with code {code} and wrote no result"
        return BenchResult(status="error", device=str(self.job.get("device", "cpu")), workload=self.job["spec"]["name"],
                           message=f"{reason}\n{tail}".strip())

    def terminate(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.terminated = True
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
