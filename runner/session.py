"""BenchSession: run a run's targets, journal each result as it arrives, and guarantee cleanup.
Design notes: docs/reference/modules.md (runner/session.py)."""

from __future__ import annotations

import datetime as dt
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from planner.errors import Cancelled
from runner.bench.result import BenchResult
from runner.target import Target

StateFn = Callable[[str, str, float, float], None]  # (label, state, elapsed seconds, cost so far)
ResultFn = Callable[[str, BenchResult], None]
NoticeFn = Callable[[str, str], None]  # (label, or "" for the run; what happened)
TICK_SECONDS = 0.1
RETRY_CAP_SECONDS = 60.0  # the longest wait between two tries of a failing call
MAX_FAULTS = 8  # failures in a row before a target without a deadline is abandoned
TERMINATE_ATTEMPTS = 5  # tries of each terminate before the instance is reported as left running
SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal; everything it started was terminated (or is in
    `BenchSession.unterminated`)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum

    @property
    def signal_name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"


def fault_text(exc: BaseException) -> str:
    """A failed call in one line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


class _Signals:
    """Within the block (main thread only): the first SIGINT/SIGTERM/SIGHUP raises Interrupted so
    `finally` runs the cleanup; once `stopping` is set, a signal is only told (`on_deferred`).
    A signal the process ignores (SIGHUP under nohup) stays ignored."""

    def __init__(self, on_first: Callable[[int], None], on_deferred: Callable[[int], None]):
        self.on_first, self.on_deferred = on_first, on_deferred
        self.stopping = False
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
            for sig in SIGNALS:
                if signal.getsignal(sig) is signal.SIG_IGN:
                    continue
                self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:  # noqa: ARG002
        if self.stopping:
            self.on_deferred(signum)
            return
        self.stopping = True
        self.on_first(signum)
        raise Interrupted(signum)

    def __exit__(self, *exc: Any) -> None:
        for sig, previous in self.previous.items():
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)


class BenchSession:
    def __init__(
        self,
        targets: Sequence[Target],
        on_state: StateFn | None = None,
        on_result: ResultFn | None = None,
        on_progress: Callable[[str, dict], None] | None = None,
        cancel: threading.Event | None = None,
        backstops: Sequence[Callable[[], Any]] = (),
        on_notice: NoticeFn | None = None,
    ):
        self.targets = list(targets)
        self.cancel = cancel or threading.Event()
        self.on_state, self.on_result, self.on_progress, self.on_notice = (
            on_state,
            on_result,
            on_progress,
            on_notice,
        )
        self.backstops = list(backstops)
        self.results: dict[str, BenchResult] = {}
        self.unterminated: list[
            dict[str, Any]
        ] = []  # what may still bill after every terminate failed
        self._states: dict[str, str] = {}
        self._next_poll: dict[str, float] = {}
        self._faults: dict[str, int] = {}
        self._notices_said: dict[str, int] = {}  # how many of each target's notices were said
        self._launched: set[str] = set()
        self._ended: set[str] = set()  # terminate() succeeded
        self._unended: dict[
            str, tuple[int, float]
        ] = {}  # terminate() failed: (tries, when to try again)
        self._signals: _Signals | None = None
        self._started = time.monotonic()

    # ------------------------------------------------------------------ telling

    def _state(self, label: str, state: str, cost: float = 0.0) -> None:
        if state and self._states.get(label) != state:
            self._states[label] = state
            if self.on_state:
                self.on_state(label, state, time.monotonic() - self._started, cost)

    def _notice(self, label: str, text: str) -> None:
        try:
            if self.on_notice:
                self.on_notice(label, text)
            else:
                sys.stderr.write(f"{label}: {text}\n" if label else f"{text}\n")
        except Exception:  # noqa: BLE001 - telling must never stop the cleanup
            pass

    def _record(self, target: Target, result: BenchResult, state: str | None = None) -> None:
        self.results[target.label] = result
        if state:
            self._state(target.label, state, target.cost_so_far())
        if self.on_result:
            self.on_result(target.label, result)

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled")

    def _unended_instances(self) -> int:
        return sum(
            1
            for t in self.targets
            if not t.exclusive and t.label in self._launched and t.label not in self._ended
        )

    def _waiting_text(self) -> str:
        n = self._unended_instances()
        return (
            f"terminating {n} instance{'s' if n != 1 else ''}, please wait"
            if n
            else "cleaning up, please wait"
        )

    def _on_first_signal(self, signum: int) -> None:
        if self._unended_instances():
            self._notice(
                "", f"{signal.Signals(signum).name}: stopping the run; {self._waiting_text()}"
            )

    def _on_deferred_signal(self, signum: int) -> None:
        self._notice("", f"{signal.Signals(signum).name} deferred: {self._waiting_text()}")

    # ------------------------------------------------------------------ the loop

    def run(self) -> dict[str, BenchResult]:
        with _Signals(self._on_first_signal, self._on_deferred_signal) as self._signals:
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
            self._start(t, active)
            self._tick(t, active, force=True)
        while queued or active:
            self._check_cancel()
            if queued and not any(t.exclusive for t in active):
                t = queued.pop(0)
                self._state(t.label, "running")
                self._start(t, active)
            for t in list(active):
                self._tick(t, active)
            self._retry_terminations()
            if active:
                time.sleep(TICK_SECONDS)

    def _start(self, t: Target, active: list[Target]) -> None:
        self._launched.add(t.label)
        t.start()
        self._say_notices(t)
        active.append(t)

    def _say_notices(self, t: Target) -> None:
        """What the target's start or a poll did that the user should know (another zone, a relaunch), each once."""
        notices = list(getattr(t, "notices", ()))
        said = self._notices_said.get(t.label, 0)
        for text in notices[said:]:
            self._notice(t.label, text)
        self._notices_said[t.label] = len(notices)

    def _tick(self, t: Target, active: list[Target], force: bool = False) -> None:
        now = time.monotonic()
        if not force and now < self._next_poll.get(t.label, 0.0):
            return
        self._next_poll[t.label] = now + t.poll_seconds
        try:
            self._advance(t, active)
        except Exception as exc:  # noqa: BLE001 - a failed call is an event: retried while the others go on
            self._fault(t, active, exc)
        else:
            self._faults.pop(t.label, None)

    def _advance(self, t: Target, active: list[Target]) -> None:
        now = dt.datetime.now(dt.timezone.utc)
        deadline = t.deadline
        if deadline is not None and now >= deadline:
            self._abandon(t, active, None)
            return
        status = t.poll()
        self._say_notices(t)
        if self.on_progress and status.event:
            self.on_progress(t.label, status.event)
        if not t.exclusive:
            self._state(t.label, status.state, t.cost_so_far(now))
        if status.finished:
            self._finish(t, active)

    def _fault(self, t: Target, active: list[Target], exc: Exception) -> None:
        count = self._faults[t.label] = self._faults.get(t.label, 0) + 1
        if t.deadline is None and count >= MAX_FAULTS:
            self._abandon(
                t,
                active,
                f"gave up on {t.label} after {count} failed calls in a row (last: {fault_text(exc)})",
            )
            return
        delay = min(max(t.poll_seconds, TICK_SECONDS) * 2**count, RETRY_CAP_SECONDS)
        self._next_poll[t.label] = time.monotonic() + delay
        self._notice(t.label, f"{fault_text(exc)}; trying again in {delay:.1f} s")

    def _finish(self, t: Target, active: list[Target]) -> None:
        result = t.collect()  # may raise: the target stays active and is tried again
        if t in active:
            active.remove(t)
        state = (
            ("done" if result.status in ("ok", "does_not_fit") else "failed")
            if t.exclusive
            else None
        )
        self._record(t, result, state)  # journaled before anything else happens to the target
        # a finished instance would halt by itself, but every second until then is billed
        self._end(t)

    def _abandon(self, t: Target, active: list[Target], reason: str | None) -> None:
        """Stop waiting for `t` (its deadline passed, or it kept failing): terminate it and record why."""
        if t in active:
            active.remove(t)
        try:
            t.expire() if reason is None else t.abandon(reason)
        except Exception as exc:  # noqa: BLE001 - retried like any failed terminate
            self._terminate_failed(t, exc)
        else:
            self._ended.add(t.label)
        self._record(t, t.collect(), "terminated" if t.label in self._ended else "failed")

    # ------------------------------------------------------------------ termination

    def _end(self, t: Target) -> bool:
        """Terminate `t` once; a failure is scheduled for another try. True when it succeeded."""
        try:
            t.terminate()
        except Exception as exc:  # noqa: BLE001
            self._terminate_failed(t, exc)
            return False
        self._ended.add(t.label)
        self._unended.pop(t.label, None)
        return True

    def _terminate_failed(self, t: Target, exc: Exception) -> None:
        tries = self._unended.get(t.label, (0, 0.0))[0] + 1
        delay = min(max(t.poll_seconds, TICK_SECONDS) * 2 ** (tries - 1), RETRY_CAP_SECONDS / 2)
        self._unended[t.label] = (tries, time.monotonic() + delay)
        later = f"trying again in {delay:.1f} s" if tries < TERMINATE_ATTEMPTS else "giving up"
        self._notice(t.label, f"could not terminate it ({fault_text(exc)}); {later}")

    def _retry_terminations(self, wait: bool = False) -> None:
        """Try the failed terminations whose back-off has passed; with `wait`, until each has
        succeeded or used its TERMINATE_ATTEMPTS."""
        while True:
            due = [
                t
                for t in self.targets
                if t.label in self._unended and self._unended[t.label][0] < TERMINATE_ATTEMPTS
            ]
            if not due:
                return
            wake = min(self._unended[t.label][1] for t in due)
            if wake > time.monotonic():
                if not wait:
                    return
                time.sleep(wake - time.monotonic())
            for t in due:
                if self._unended[t.label][1] <= time.monotonic():
                    self._end(t)

    def cleanup(self) -> None:
        """Terminate everything this run started. Called from `finally`: it must not raise, and
        signals during it are deferred."""
        if self._signals is not None:
            self._signals.stopping = True
        if threading.current_thread() is not threading.main_thread():
            self._cleanup()
            return
        # The calls block (a slow TerminateInstances); a signal the kernel hands to another thread
        # (numpy's, say) would be seen only once a call returns. Waiting in short slices here lets
        # the main thread say at once that it is deferred.
        helper = threading.Thread(target=self._cleanup, name="planner-cleanup", daemon=True)
        helper.start()
        while helper.is_alive():
            helper.join(0.1)

    def _cleanup(self) -> None:
        started = [t for t in self.targets if t.label in self._launched]
        self._unended.clear()  # a fresh round of tries for those that failed during the run: AWS may be back
        for t in started:
            if t.label in self._ended:
                continue
            if self._end(t) and t.label not in self.results:
                try:
                    self._state(t.label, "terminated", t.cost_so_far())
                except Exception:  # noqa: BLE001 - a front end that is gone must not stop the cleanup
                    pass
        self._retry_terminations(wait=True)
        for backstop in self.backstops if started else ():
            try:
                backstop()
            except Exception as exc:  # noqa: BLE001 - the leftovers below say what is still there
                self._notice(
                    "", f"the last sweep of the run's instances failed ({fault_text(exc)})"
                )
        self.unterminated = [left for t in started if (left := self._leftover(t)) is not None]

    def _leftover(self, t: Target) -> dict[str, Any] | None:
        try:
            return t.leftover()
        except Exception as exc:  # noqa: BLE001
            return {"label": t.label, "error": fault_text(exc)}

    def billed_usd(self) -> float:
        return sum(t.cost_so_far() for t in self.targets)
