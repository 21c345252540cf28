"""What a run journal may hold, checked before anything is planned from it: every field of a result
(results/<label>.json) held to its type and range, run.json's plan options to the ranges of the flags that set them,
and the sizes a journal is read bounded by. Each problem is one line naming the field (planner/journal.py raises
them as a JournalError naming the file)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from planner import units
from planner.core.kinds import DEVICES, OBJECTIVES, PURCHASES
from planner.workload.limits import brief
from runner.bench.result import SCHEMA_VERSION as RESULT_SCHEMA
from runner.bench.result import BenchResult

# a result is ~3 KiB, run.json with `auto`'s choices for a whole region ~300 KiB
MAX_JOURNAL_BYTES = 8 << 20
# files in results/: a run has one per target (at most 64 instances and 2 local devices)
MAX_RESULTS = 1_000
STATUSES = ("ok", "does_not_fit", "invalid", "error")
# A step of a microsecond is below any kernel launch, one of a day beyond any bench (at most an hour); between
# them the estimate's ratios (interval / step, CPU step / GPU step) stay finite whatever the journal says.
STEP_SECONDS = units.Range(1e-6, 86_400, "seconds")
_AMOUNT = units.Range(0, 1e15)  # seconds, rates and ratios a result reports: finite, not negative
_COUNT = units.Range(0, 10**15, whole=True)

Check = tuple[Callable[[Any], bool], str]  # (holds, what it must be)
_BY_TYPE: dict[str, Check] = {  # a BenchResult field's annotation -> its check
    "str": (lambda v: isinstance(v, str), "text"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "int": (_COUNT.holds, "a whole number from 0"),
    "int | None": (lambda v: v is None or _COUNT.holds(v), "a whole number from 0, or null"),
    "float | None": (lambda v: v is None or _AMOUNT.holds(v), "a finite number from 0, or null"),
    "list[str]": (
        lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "a list of texts",
    ),
    "list[float]": (
        lambda v: isinstance(v, list) and all(_AMOUNT.holds(x) for x in v),
        "a list of numbers from 0",
    ),
    "list[dict[str, Any]]": (
        lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
        "a list of objects",
    ),
    "dict[str, Any]": (lambda v: isinstance(v, dict), "an object"),
    "list[str | dict[str, Any]]": (  # a bench's warnings: facts {"kind", ...}, or an older bench's words
        lambda v: (
            isinstance(v, list)
            and all(isinstance(x, str) or isinstance(x, dict) and "kind" in x for x in v)
        ),
        "a list of texts or of objects with a kind",
    ),
    "dict[str, Any] | None": (lambda v: v is None or isinstance(v, dict), "an object, or null"),
}
_RESULT_CHECKS: dict[str, Check] = {
    **{f.name: _BY_TYPE[str(f.type)] for f in fields(BenchResult)},
    "status": (lambda v: v in STATUSES, "one of " + ", ".join(STATUSES)),
    "device": (lambda v: v in DEVICES, "cpu or cuda"),
    "target": (
        lambda v: (
            v == "local"
            or (isinstance(v, str) and v.startswith("aws:") and units.INSTANCE_TYPE.holds(v[4:]))
        ),
        "local or aws:INSTANCE_TYPE",
    ),
    "region": (
        lambda v: v is None or units.REGION.holds(v),
        "an AWS region like us-east-1, or null",
    ),
    "purchase": (lambda v: v is None or v in PURCHASES, "on-demand, spot or null"),
    "schema_version": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= RESULT_SCHEMA,
        f"1 to {RESULT_SCHEMA}: a newer planner wrote it (upgrade cloud-planner to read it)",
    ),
}
_OK_CHECKS: dict[str, Check] = {  # what a plan needs of a result whose status is ok
    "step_seconds": (STEP_SECONDS.holds, STEP_SECONDS.describe()),
    "step_seconds_ci_low": (
        units.Range(0, 86_400).holds,
        "a number between 0 and 86,400 (seconds)",
    ),
    "step_seconds_ci_high": (
        units.Range(0, 86_400).holds,
        "a number between 0 and 86,400 (seconds)",
    ),
}
_PLAN_OPTION_CHECKS: dict[
    str, Check
] = {  # run.json's plan_options: the ranges of the flags that set them
    "objective": (lambda v: v is None or v in OBJECTIVES, "one of " + ", ".join(OBJECTIVES)),
    "deadline_seconds": (
        lambda v: v is None or units.DEADLINE_SECONDS.holds(v),
        units.DEADLINE_SECONDS.describe() + ", or null",
    ),
    "time_value_per_hour": (
        lambda v: v is None or units.USD_PER_HOUR.holds(v),
        units.USD_PER_HOUR.describe() + ", or null",
    ),
    "local_price_per_hour": (units.USD_PER_HOUR.holds, units.USD_PER_HOUR.describe()),
    "region": (units.REGION.holds, "an AWS region like us-east-1"),
    "purchase": (lambda v: v in PURCHASES, "on-demand or spot"),
}


def json_kind(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a text",
        bool: "true or false",
        type(None): "null",
    }.get(type(value), "a number")


def _problems(data: dict[str, Any], checks: dict[str, Check], prefix: str = "") -> list[str]:
    return [
        f"{prefix}{key}: must be {what}, got {brief(data[key])}"
        for key, (holds, what) in checks.items()
        if key in data and not holds(data[key])
    ]


def result_problems(label: str, data: Any) -> list[str]:
    """What stops a journaled result (results/<label>.json) from being planned with, one line each."""
    if not isinstance(data, dict):
        return [f"must be a JSON object (one bench result), got {json_kind(data)}"]
    problems = [
        f"{key}: missing (every result has it)" for key in ("status", "device") if key not in data
    ]
    problems += _problems(data, _RESULT_CHECKS)
    if not problems and data["status"] == "ok":
        # step_seconds_ci_high may be null: an unbounded interval (too few steps), as strict JSON keeps it
        problems += [
            f"{key}: missing (a result with status ok has it)"
            for key in _OK_CHECKS
            if data.get(key) is None and key != "step_seconds_ci_high"
        ]
        problems += _problems({k: v for k, v in data.items() if v is not None}, _OK_CHECKS)
    if (
        "target" not in data
        and label.startswith("aws-")
        and not units.INSTANCE_TYPE.holds(label[4:])
    ):
        problems.append(f"the file name: {brief(label)} is not local-DEVICE or aws-INSTANCE_TYPE")
    return problems


def plan_option_problems(data: Any) -> list[str]:
    """What is wrong with run.json as `planner plan` reads it."""
    if not isinstance(data, dict):
        return [
            f"must be a JSON object with run_id, targets and plan_options, got {json_kind(data)}"
        ]
    options = data.get("plan_options", {})
    if not isinstance(options, dict):
        return [f"plan_options: must be an object, got {json_kind(options)}"]
    return _problems(options, _PLAN_OPTION_CHECKS, "plan_options.")


__all__ = [
    "MAX_JOURNAL_BYTES",
    "MAX_RESULTS",
    "STATUSES",
    "STEP_SECONDS",
    "json_kind",
    "plan_option_problems",
    "result_problems",
]
