"""A measurement's progress as typed events: what the bench and the script launcher report while they run.

The runner writes them as JSON (`{"event": "measure", ...}`: it imports only torch and the standard library); the
service reads each one here, where it crosses into the planner, and the fronts get these models. The report layer
puts them into words (`planner.report.text.progress_text`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    seconds: float | None = None  # since the phase began (the bench: since it started)


class Built(_Event):
    """The bench built its model and data: warming up next."""

    event: Literal["built"] = "built"


class Warmup(_Event):
    """Warming up: the latest step time."""

    event: Literal["warmup"] = "warmup"
    step_seconds: float | None = None


class Measuring(_Event):
    """Measuring: steps timed, their mean, and the 95% interval's half width relative to it. `slow`: a step so long
    that the bench runs past its budget to time `min_steps`, at most until `cap_seconds`."""

    event: Literal["measure"] = "measure"
    steps: int = 0
    step_seconds: float | None = None
    rel_ci: float = 0.0
    slow: bool = False
    min_steps: int | None = None
    cap_seconds: float | None = None


class Training(_Event):
    """A whole training run (validate): `steps` of `of` done."""

    event: Literal["train"] = "train"
    steps: int = 0
    of: int | None = None


class Sweep(_Event):
    """The bench's batch-size sweep."""

    event: Literal["sweep"] = "sweep"


class ScriptProgress(_Event):
    """A user's script being measured: its phase ("setup", "measuring", "past the budget, ...", "whole run", a
    free-form stage such as "tracing a step on the stand-in GPU"), the steps seen and their recent step time, the
    measured and budgeted seconds, the hard cap, and a whole run's estimate."""

    event: Literal["script"] = "script"
    phase: str = ""
    steps: int | None = None
    step_seconds: float | None = None
    measured_seconds: float | None = None
    budget_seconds: float | None = None
    cap_seconds: float | None = None
    estimate_seconds: float | None = None


class OtherProgress(_Event):
    """An event this planner does not know (a newer runner on an instance): shown by its name."""

    event: str = ""


Progress = Built | Warmup | Measuring | Training | Sweep | ScriptProgress | OtherProgress

_KNOWN: TypeAdapter[Built | Warmup | Measuring | Training | Sweep | ScriptProgress] = TypeAdapter(
    Annotated[
        Built | Warmup | Measuring | Training | Sweep | ScriptProgress,
        Field(discriminator="event"),
    ]
)


def progress_of(raw: Mapping[str, Any]) -> Progress:
    """The runner's event (its JSON) as a typed one; an unknown kind, or a field of the wrong type, is an
    OtherProgress named by its kind (progress is for people: it never stops a measurement)."""
    try:
        return _KNOWN.validate_python(dict(raw))
    except ValidationError:
        seconds = raw.get("seconds")
        return OtherProgress(
            event=str(raw.get("event") or ""),
            seconds=float(seconds) if isinstance(seconds, int | float) else None,
        )
