"""What each flag accepts, in a module light enough for the parser (`planner --help` imports this and
no use case): each flag's rule (`parse_flag`), its range for --help (`flag_range`) and the closed
sets of words the flags take. The rules themselves are planner/units.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner import units
from planner.units import DEFAULT_GROUP_BY as DEFAULT_GROUP_BY  # re-exported for the fronts
from planner.units import GROUP_BY as GROUP_BY
from planner.units import OBJECTIVES as OBJECTIVES
from planner.units import GroupBy as GroupBy
from pricing.facts import PURCHASES as PURCHASES
from pricing.facts import is_many_regions

PRICE_SOURCES = (
    "catalog",
    "aws",
)  # where a refresh reads prices: the hosted catalog (the default), AWS's APIs

FLAGS: dict[str, Callable[[str], Any]] = {
    "--seconds": units.BENCH_SECONDS.parse,
    "--time-value": units.USD_PER_HOUR.parse,
    "--local-price": units.USD_PER_HOUR.parse,
    "--bench-budget": units.BENCH_BUDGET_USD.parse,
    "--max-price": units.MAX_PRICE_USD_PER_HOUR.parse,
    "--min-gpu-memory": units.GPU_MEMORY_GB.parse,
    "--max-bench-minutes": units.BENCH_MINUTES.parse,
    "--poll-seconds": units.POLL_SECONDS.parse,
    "--max-instances": units.MAX_INSTANCES.parse,
    "--threads": units.THREADS.parse,
    "--processes": units.PROCESSES.parse,
    "--epochs": units.EPOCHS.parse,
    "--total-steps": units.TOTAL_STEPS.parse,
    "--max-rows": units.MAX_ROWS.parse,
    "--deadline": units.parse_duration,
    "--region": lambda text: _one_region(text),
    "--regions": units.parse_regions,  # a plan's --region: one, a list, or all
    "--ami": units.AMI_ID.parse,
    "--ami-type": units.AMI_TYPE.parse,
    "--subnet": units.SUBNET_ID.parse,
    "--vpc": units.VPC_ID.parse,
    "--bucket": units.BUCKET.parse,
    "--stack-name": units.STACK_NAME.parse,
    "--schedule": units.parse_schedule,
    "--run-id": units.RUN_ID.parse,
    "--arch": units.ARCH.parse,
    "--targets": units.TARGETS.parse,
    "--at": units.UTC_TIME.parse,
}

_RANGES = {
    flag: getattr(parse, "__self__")  # noqa: B009 - a bound method's object, not in Callable's type
    for flag, parse in FLAGS.items()
    if isinstance(getattr(parse, "__self__", None), units.Range)
}


def _one_region(text: str) -> str:
    """A command that launches or looks up instances works in one region; `all` and lists are a plan's."""
    if is_many_regions(text.strip().lower()):
        raise ValueError(
            f"must be one AWS region like us-east-1 (this command works in one region), got {text!r}; "
            "`planner estimate --region all` prices each instance in its cheapest region"
        )
    return units.REGION.parse(text)


def parse_flag(flag: str, text: str) -> Any:
    """The value of `flag` typed as `text`; ValueError saying what is accepted."""
    return FLAGS[flag](text)


def flag_range(flag: str) -> str | None:
    """What a numeric flag accepts, for its --help ("a number above 0 and at most 3,600 (seconds)")."""
    found = _RANGES.get(flag)
    return found.describe() if found else None
