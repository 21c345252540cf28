"""Parse the units people type: durations ("4h", "90m", "1h30m", "2d", "3600"), and numbers for
flags, always finite and in a stated range.

Every parser raises ValueError with a message that says what is accepted, e.g.
`must be a number between 0 and 10,000 (USD per hour), got 'nan'`; `argparse_type` turns one into
an argparse `type=` that exits 2 with that message.
"""

from __future__ import annotations

import math
import re
from typing import Callable, TypeVar

T = TypeVar("T")

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(min|sec|d|h|m|s)?", re.IGNORECASE)
_SCALE = {"d": 86400, "h": 3600, "m": 60, "min": 60, "s": 1, "sec": 1, None: 1}
# A deadline or a wait past a year is a typo: prices, instances and the planner's own run journal
# would not outlive it, and 1e400 seconds used to come back as inf.
MAX_DURATION_SECONDS = 366 * 86400
_MAX_TEXT = 40  # characters of a number or a duration worth reading


def parse_duration(text: str, max_seconds: float = MAX_DURATION_SECONDS) -> float:
    """Seconds in `text` (more than 0, at most `max_seconds`); raises ValueError with the accepted
    forms."""
    forms = "a duration like 4h, 90m, 1h30m or 2d"
    if not isinstance(text, str) or len(text) > _MAX_TEXT:
        raise ValueError(f"must be {forms}, got {_shown(text)}")
    cleaned = text.strip().lower().replace(" ", "")
    pos, total = 0, 0.0
    while pos < len(cleaned):
        m = _DURATION.match(cleaned, pos)
        if not m or m.end() == pos:
            break
        total += float(m.group(1)) * _SCALE[m.group(2)]
        pos = m.end()
    if not cleaned or pos != len(cleaned) or total <= 0:
        raise ValueError(f"must be {forms}, got {_shown(text)}")
    if not total <= max_seconds:  # also catches inf and nan
        raise ValueError(f"must be at most {_human_duration(max_seconds)}, got {_shown(text)}")
    return total


def parse_number(text: str, low: float, high: float, *, low_open: bool = False, unit: str = "") -> float:
    """A finite number between `low` and `high` (above `low` when `low_open`): what a float flag
    such as --seconds, --time-value or --local-price accepts. 'nan', 'inf' and '1e999' are refused."""
    allowed = f"a number {'above' if low_open else 'between'} {_num(low)} {'and at most' if low_open else 'and'} {_num(high)}"
    allowed += f" ({unit})" if unit else ""
    try:
        value = float(text.strip()) if isinstance(text, str) and len(text) <= _MAX_TEXT else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
        raise ValueError(f"must be {allowed}, got {_shown(text)}")
    return value


def parse_whole(text: str, low: int, high: int, *, unit: str = "") -> int:
    """A whole number from `low` to `high`: what an int flag such as --threads or --epochs accepts."""
    allowed = f"a whole number between {_num(low)} and {_num(high)}" + (f" ({unit})" if unit else "")
    try:
        value = int(text.strip()) if isinstance(text, str) and len(text) <= _MAX_TEXT else None
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise ValueError(f"must be {allowed}, got {_shown(text)}")
    return value


def argparse_type(parse: Callable[[str], T], name: str) -> Callable[[str], T]:
    """`parse` as an argparse `type=`: its ValueError becomes argparse's usage error (exit 2, the
    message as written, e.g. "argument --seconds: must be a number above 0 and at most 3,600")."""
    import argparse

    def convert(text: str) -> T:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = name  # argparse names the type in some messages
    return convert


def _shown(text: object) -> str:
    if not isinstance(text, str):
        return type(text).__name__
    if len(text) > _MAX_TEXT:  # cut before repr, and after: escapes can make it 10x longer
        text = text[: _MAX_TEXT - 3] + "..."
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:56] + "...'"


def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def _human_duration(seconds: float) -> str:
    for unit, scale in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= scale and seconds % scale == 0:
            return f"{seconds / scale:,.0f} {unit}"
    return f"{seconds:g} seconds"
