"""BenchSession: run a run's targets, journal each result as it arrives, and guarantee cleanup.

Local targets run one after another (they share this machine and would disturb each other's
timing); AWS targets launch in parallel and are polled. Every result is handed to `on_result` (the
journal) the moment it is collected. The planner stops waiting at the run's deadline.

Cleanup is not optional: every instance of the run is terminated in `finally`, and SIGTERM is turned
into the same path as Ctrl-C (KeyboardInterrupt), so both end in `finally`. As a last line of
defence the run's tag is swept (`AwsRun.terminate_run`). SIGKILL cannot be caught: for that the
instances carry `planner:expires-at`, their own dead-man timer, and `planner reap`.
"""

from __future__ import annotations

import datetime as dt
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from runner.bench.result import BenchResult

StateFn = Callable[[str, str, float, float], None]  # (label, state, elapsed seconds, cost so far)
ResultFn = Callable[[str, BenchResult], None]


class _SigtermAsInterrupt:
    """Within the block, SIGTERM raises KeyboardInterrupt so `finally` clauses run."""

    def __enter__(self) -> "_SigtermAsInterrupt":
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            def handler(signum, frame):  # noqa: ARG001
                raise KeyboardInterrupt(f"signal {signum}")

            self.previous = signal.signal(signal.SIGTERM, handler)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


class Cancelled(Exception):
    """The run was cancelled (the TUI's cancel); cleanup runs as for Ctrl-C."""


class BenchSession:
    def __init__(self, local_targets: list, aws_targets: list, aws_run=None, poll_seconds: float = 5.0,
                 on_state: StateFn | None = None, on_result: ResultFn | None = None,
                 on_progress: Callable[[str, dict], None] | None = None, cancel: threading.Event | None = None):
        self.cancel = cancel or threading.Event()
        self.local, self.aws, self.aws_run = list(local_targets), list(aws_targets), aws_run
        self.poll_seconds = poll_seconds
        self.on_state, self.on_result, self.on_progress = on_state, on_result, on_progress
        self.results: dict[str, BenchResult] = {}
        self._states: dict[str, str] = {}
        self._started = time.monotonic()

    def _state(self, label: str, state: str, cost: float = 0.0) -> None:
        if self._states.get(label) != state:
            self._states[label] = state
            if self.on_state:
                self.on_state(label, state, time.monotonic() - self._started, cost)

    def _record(self, label: str, result: BenchResult) -> None:
        self.results[label] = result
        if self.on_result:
            self.on_result(label, result)

    def run(self) -> dict[str, BenchResult]:
        with _SigtermAsInterrupt():
            try:
                for t in self.aws:
                    self._state(t.label, "pending")
                if self.aws_run is not None and self.aws:
                    self.aws_run.prepare()
                for t in self.aws:  # launch all before measuring locally: boot time overlaps
                    self._check_cancel()
                    t.start()
                    self._state(t.label, t.state)
                    if t.state == "failed":
                        self._record(t.label, t.collect())
                self._run_local()
                self._wait_aws()
            finally:
                self.cleanup()
        return self.results

    def _run_local(self) -> None:
        for t in self.local:
            self._state(t.label, "running")
            t.start()
            try:
                while True:
                    status = t.poll()
                    if self.on_progress and status.event:
                        self.on_progress(t.label, status.event)
                    if status.state not in ("pending", "running"):
                        break
                    self._poll_aws_once()  # AWS results are journaled as they arrive, also meanwhile
                    time.sleep(0.1)
                t.wait(30)
            finally:
                t.terminate()
            result = t.collect()
            self._state(t.label, "done" if result.status in ("ok", "does_not_fit") else "failed")
            self._record(t.label, result)

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled")

    def _poll_aws_once(self) -> None:
        self._check_cancel()
        now = dt.datetime.now(dt.timezone.utc)
        for t in self.aws:
            if t.label in self.results:
                continue
            if time.monotonic() - getattr(t, "_last_poll", 0.0) < self.poll_seconds:
                continue
            t._last_poll = time.monotonic()
            state = t.poll()
            self._state(t.label, state, t.cost_so_far(now))
            if state in ("done", "failed", "terminated"):
                t.terminate()
                self._record(t.label, t.collect())

    def _wait_aws(self) -> None:
        while any(t.label not in self.results for t in self.aws):
            if self.aws_run is not None and dt.datetime.now(dt.timezone.utc) >= self.aws_run.deadline:
                minutes = self.aws_run.settings.max_bench_minutes
                for t in self.aws:
                    if t.label not in self.results:
                        t.terminate()
                        self._state(t.label, "terminated", t.cost_so_far())
                        result = t.collect()
                        result.message = f"no result from {t.label} within {minutes:g} minutes (--max-bench-minutes); terminated"
                        self._record(t.label, result)
                break
            self._poll_aws_once()
            time.sleep(min(0.5, self.poll_seconds))

    def cleanup(self) -> None:
        """Terminate everything this run started. Called from `finally`: it must not raise."""
        for t in self.local:
            try:
                t.terminate()
            except Exception:  # noqa: BLE001
                pass
        for t in self.aws:
            try:
                t.terminate()
                self._state(t.label, "terminated" if t.terminated_by_us else self._states.get(t.label, ""), t.cost_so_far())
            except Exception:  # noqa: BLE001 - keep going: the sweep below is the backstop
                pass
        if self.aws_run is not None and self.aws:
            try:
                self.aws_run.terminate_run()
            except Exception:  # noqa: BLE001
                pass

    def billed_usd(self) -> float:
        return sum(t.cost_so_far() for t in self.aws)
