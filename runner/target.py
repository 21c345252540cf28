"""The target protocol: what the session needs from a place that runs a bench job. Design notes:
docs/reference/modules.md (runner/target.py)."""

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
