"""BenchSession: run a run's targets, journal each result as it arrives, and guarantee cleanup.

One loop over the target protocol (runner/target.py). Exclusive targets (local benches: they share
this machine and would disturb each other's timing) run one after another; the others (rented
instances) start up front, so their boot overlaps with everything else, and are polled every
`target.poll_seconds`. Every result is handed to `on_result` (the journal) the moment it is
collected. The session stops waiting for a target at its `deadline`.

Cleanup is not optional: every target is terminated in `finally`, and SIGTERM is turned into the
same path as Ctrl-C (KeyboardInterrupt), so both end in `finally`. As a last line of defence the
`backstops` run (for AWS: terminate everything carrying the run's tag). SIGKILL cannot be caught:
for that the instances carry `planner:expires-at`, their own dead-man timer, and `planner reap`.
"""

from __future__ import annotations

import datetime as dt
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from planner.errors import Cancelled
from runner.bench.result import BenchResult
from runner.target import Target

StateFn = Callable[[str, str, float, float], None]  # (label, state, elapsed seconds, cost so far)
ResultFn = Callable[[str, BenchResult], None]
TICK_SECONDS = 0.1


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


class BenchSession:
    def __init__(self, targets: Sequence[Target], on_state: StateFn | None = None, on_result: ResultFn | None = None,
                 on_progress: Callable[[str, dict], None] | None = None, cancel: threading.Event | None = None,
                 backstops: Sequence[Callable[[], Any]] = ()):
        self.targets = list(targets)
        self.cancel = cancel or threading.Event()
        self.on_state, self.on_result, self.on_progress = on_state, on_result, on_progress
        self.backstops = list(backstops)
        self.results: dict[str, BenchResult] = {}
        self._states: dict[str, str] = {}
        self._last_poll: dict[str, float] = {}
        self._launched: set[str] = set()
        self._started = time.monotonic()

    def _state(self, label: str, state: str, cost: float = 0.0) -> None:
        if state and self._states.get(label) != state:
            self._states[label] = state
            if self.on_state:
                self.on_state(label, state, time.monotonic() - self._started, cost)

    def _record(self, target: Target, result: BenchResult, state: str | None = None) -> None:
        self.results[target.label] = result
        if state:
            self._state(target.label, state, target.cost_so_far())
        if self.on_result:
            self.on_result(target.label, result)

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled")

    # ------------------------------------------------------------------ the loop

    def run(self) -> dict[str, BenchResult]:
        with _SigtermAsInterrupt():
            try:
                self._loop()
            finally:
                self.cleanup()
        return self.results

    def _loop(self) -> None:
        queued = [t for t in self.targets if t.exclusive]
        parallel = [t for t in self.targets if not t.exclusive]
        for t in parallel:
            self._state(t.label, "pending")
        active: list[Target] = []
        for t in parallel:  # launch all before measuring locally: boot time overlaps
            self._check_cancel()
            self._launched.add(t.label)
            t.start()
            active.append(t)
            status = t.poll()
            self._state(t.label, status.state, t.cost_so_far())
            if status.state == "failed":
                self._finish(t, active)
        while queued or active:
            self._check_cancel()
            if queued and not any(t.exclusive for t in active):
                t = queued.pop(0)
                self._state(t.label, "running")
                self._launched.add(t.label)
                t.start()
                active.append(t)
            for t in list(active):
                self._tick(t, active)
            if active:
                time.sleep(TICK_SECONDS)

    def _tick(self, t: Target, active: list[Target]) -> None:
        now = time.monotonic()
        if now - self._last_poll.get(t.label, -1e9) < t.poll_seconds:
            return
        self._last_poll[t.label] = now
        deadline = t.deadline
        if deadline is not None and dt.datetime.now(dt.timezone.utc) >= deadline:
            t.expire()
            active.remove(t)
            self._record(t, t.collect(), "terminated")
            return
        status = t.poll()
        if self.on_progress and status.event:
            self.on_progress(t.label, status.event)
        if not t.exclusive:
            self._state(t.label, status.state, t.cost_so_far(dt.datetime.now(dt.timezone.utc)))
        if status.finished:
            self._finish(t, active)

    def _finish(self, t: Target, active: list[Target]) -> None:
        t.terminate()  # a finished instance would halt by itself, but every second until then is billed
        result = t.collect()
        if t in active:
            active.remove(t)
        state = ("done" if result.status in ("ok", "does_not_fit") else "failed") if t.exclusive else None
        self._record(t, result, state)

    def cleanup(self) -> None:
        """Terminate everything this run started. Called from `finally`: it must not raise."""
        for t in self.targets:
            try:
                t.terminate()
                if t.label in self._launched and t.label not in self.results:
                    self._state(t.label, "terminated", t.cost_so_far())
            except Exception:  # noqa: BLE001 - keep going: the backstops are the last line
                pass
        for backstop in self.backstops:
            try:
                backstop()
            except Exception:  # noqa: BLE001
                pass

    def billed_usd(self) -> float:
        return sum(t.cost_so_far() for t in self.targets)
