"""The bench job as a typed value (pydantic; imported where a job is made, so importing the service stays cheap)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Device = Literal["cpu", "cuda", "auto"]  # a bench's device: auto is CUDA where torch sees a GPU


class BenchJob(BaseModel):
    """What the self-contained bench is asked to do (runner/bench reads it as JSON, with the standard library
    alone: `runner_job()`). `spec`: the spec as the bench reads it (WorkloadSpec.to_job). `memory_estimate_bytes`:
    what the bench will hold (a bounded pool of batches, not the dataset). `batch_size`: measured at a smaller
    batch than the spec's (None: the spec's). `mode`: a bench measures `seconds`; "train" trains `epochs` whole.
    `wall_cap_seconds`: the process is ended from outside after this long (None: never)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: dict[str, Any]
    device: Device = "auto"
    seconds: float = 10.0
    sweep: bool = False
    threads: int | None = None
    memory_estimate_bytes: int
    batch_size: int | None = None
    processes: int = 1
    wall_cap_seconds: float | None = None
    mode: Literal["bench", "train"] = "bench"
    epochs: int | None = None

    def runner_job(self) -> dict[str, Any]:
        """The job as the bench reads it (its JSON)."""
        return self.model_dump()
