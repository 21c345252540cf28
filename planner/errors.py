"""Errors the planner reports to users, and the exit codes every command uses. Design notes:
docs/reference/modules.md (planner/errors.py)."""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable


class ExitCode(enum.IntEnum):
    OK = 0
    RUNTIME_FAILURE = 1
    BAD_INPUT = 2
    INCOMPLETE = 3  # `planner run`: a plan of what was measured, but a target failed or an instance was left running


class PlannerError(Exception):
    exit_code = ExitCode.RUNTIME_FAILURE
    title = "error"

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        text = f"{self.title}: {self.message}"
        if self.hint:
            text += f"\n  to fix: {self.hint}"
        return text


class InputError(PlannerError):
    exit_code = ExitCode.BAD_INPUT
    title = "bad input"


class SpecError(InputError):
    title = "invalid spec"

    def __init__(self, source: str, problems: list[str] | None = None, hint: str | None = None):
        self.source = source
        self.problems = problems = list(problems or [])
        body = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source}\n{body}" if problems else source, hint)


class CatalogLookupError(InputError):
    title = "not in the price catalog"


class JournalError(InputError):
    """A run journal (planner-runs/...) that cannot be planned from: the message names the file
    and the field, e.g. `RUN/results/local-cpu.json: step_seconds: must be ..., got -1`."""

    title = "bad run journal"


class RunError(PlannerError):
    title = "run failed"


class StepTooLong(RunError):
    """This machine's bench was stopped at its wall-clock cap before one step ended: nothing measured here."""


class Cancelled(PlannerError):
    title = "cancelled"


def close_matches(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """What a person may have meant by `word` among `choices`: the same but for case first (FP16 is fp16), else
    difflib's close matches."""
    choices = list(choices)
    same = [c for c in choices if c.lower() == str(word).lower()]
    return same or difflib.get_close_matches(str(word), choices, n=n, cutoff=0.6)


def did_you_mean(word: str, choices: Iterable[str], n: int = 3) -> str:
    """' (did you mean "x"?)' when close_matches finds one, else ''."""
    close = close_matches(word, choices, n)
    if not close:
        return ""
    return " (did you mean " + " or ".join(f'"{c}"' for c in close) + "?)"
