"""The target protocol: what the session needs from a place that runs a bench job.

`LocalTarget` (a child process here) and `AwsTarget` (a rented EC2 instance) implement it; the
session (`runner.session.BenchSession`) has one loop over it. A target goes

    pending --start()--> booting --> running --> done | failed | terminated

`poll()` never blocks for long and never raises for an expected outcome: a failed launch, a
crashed bench or an instance that vanished are states, and `collect()` turns each into a
`BenchResult` (status "error" with the reason and the log's lines). A call to the provider that
fails (`poll`, `collect`, `terminate` raising after the client's own retries: throttling, a lost
network) is not an outcome but an event: the session retries it with backoff and goes on with the
other targets.

`terminate()` is idempotent and is called for every started target; until it has succeeded once,
`leftover()` names what may still be running and billing (the instance, its region and expiry),
which the session reports when every retry failed. `abandon(reason)` stops waiting for a target
(terminating it, which may raise) and makes `collect()` report `reason` without asking anyone.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Protocol

from runner.bench.result import BenchResult

STATES = ("pending", "booting", "running", "done", "failed", "terminated")
FINISHED = frozenset({"done", "failed", "terminated"})


@dataclass
class TargetStatus:
    state: str  # one of STATES
    event: dict[str, Any] = field(default_factory=dict)  # the bench's latest progress event, if any

    @property
    def finished(self) -> bool:
        return self.state in FINISHED


class Target(Protocol):
    label: str
    # True: runs alone (local benches share this machine and would disturb each other)
    exclusive: bool

    @property
    def poll_seconds(
        self,
    ) -> (
        float
    ): ...  # how often the session asks for progress (and the first back-off after a failed call)

    @property
    def deadline(self) -> dt.datetime | None: ...  # the session stops waiting then (UTC), or None

    def start(self) -> None: ...

    def poll(self) -> TargetStatus: ...

    def collect(self) -> BenchResult: ...

    def terminate(self) -> None: ...  # may raise when the provider cannot be reached: retried

    def expire(self) -> None: ...  # abandon because the deadline passed; collect() then says so

    def abandon(
        self, reason: str
    ) -> None: ...  # stop waiting: terminate (may raise); collect() reports reason

    def leftover(
        self,
    ) -> dict[str, Any] | None: ...  # what may still bill after terminate failed, else None

    def cost_so_far(self, now: dt.datetime | None = None) -> float: ...
