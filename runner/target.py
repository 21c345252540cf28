"""The target protocol: what the session needs from a place that runs a bench job.

`LocalTarget` (a child process here) and `AwsTarget` (a rented EC2 instance) implement it; the
session (`runner.session.BenchSession`) has one loop over it. A target goes

    pending --start()--> booting --> running --> done | failed | terminated

`poll()` never blocks for long and never raises for an expected outcome: a failed launch, a
crashed bench or an instance that vanished are states, and `collect()` turns each into a
`BenchResult` (status "error" with the reason and the log's last lines). `terminate()` is
idempotent and is called for every target in the session's `finally`.
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
    exclusive: bool  # True: runs alone (local benches share this machine and would disturb each other)
    poll_seconds: float  # how often the session asks for progress

    @property
    def deadline(self) -> dt.datetime | None: ...  # the session stops waiting then (UTC), or None

    def start(self) -> None: ...

    def poll(self) -> TargetStatus: ...

    def collect(self) -> BenchResult: ...

    def terminate(self) -> None: ...

    def expire(self) -> None: ...  # terminate because the deadline passed; collect() then says so

    def cost_so_far(self, now: dt.datetime | None = None) -> float: ...
