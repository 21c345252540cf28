"""Every bound on a workload spec, with its reason, the checks for numbers, and `brief`, which
shows any value in a bounded number of characters with a bounded amount of work. Design notes:
docs/reference/modules.md (planner/workload/limits.py)."""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

MAX_SPEC_BYTES = 256 * 1024
MAX_DEPTH = 20
MAX_VALUES = 10_000
MAX_NUMBER_CHARS = 1_000
SHOW_WIDTH = 60  # characters of a value in a message

MAX_NAME = 64
MAX_SIZE = 1_000_000
MAX_LAYERS = 1_000
MAX_HEADS = 1_024
MAX_SAMPLES = 1_000_000_000
MAX_EPOCHS = 10_000_000
MAX_GPUS = 64
MAX_LEARNING_RATE = 100.0
MAX_TOTAL_STEPS = 10**12
MAX_PARAMS = 10**11
MAX_SAMPLE_VALUES = 10**9
MAX_PROBLEMS = 20  # lines in one report; the rest are counted


def _as_number(value: Any) -> int | float | None:
    """A number, or numeric text ("1e-3", "40000": PyYAML reads 1e-3 as text); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and len(value) <= 40:
        for parse in (int, float):
            try:
                return parse(value.strip())
            except ValueError:
                pass
    return None


def whole_number(value: Any, hi: int, alternative: str = "") -> int:
    """`value` as an int from 1 to `hi`, or ValueError with the range (and `alternative`, e.g.
    ' or "full"') in the message."""
    n = _as_number(value)
    if isinstance(n, float) and math.isfinite(n) and n.is_integer():
        n = int(n)
    allowed = f"a whole number between 1 and {hi:,}{alternative}"
    if isinstance(n, int) and n < 1:
        raise ValueError(f"must be > 0, got {brief(value)} ({allowed})")
    if not isinstance(n, int) or n > hi:
        raise ValueError(f"must be {allowed}, got {brief(value)}")
    return n


def learning_rate(value: Any) -> float:
    n = _as_number(value)
    if isinstance(n, int):
        n = float(n) if n.bit_length() <= 1000 else math.inf  # float() of a 400-digit int overflows
    allowed = f"a number above 0 and at most {MAX_LEARNING_RATE:g}"
    if n is not None and math.isfinite(n) and n <= 0:
        raise ValueError(f"must be > 0, got {brief(value)} ({allowed})")
    if n is None or not math.isfinite(n) or n > MAX_LEARNING_RATE:
        raise ValueError(f"must be {allowed}, got {brief(value)}")
    return float(n)


# ----------------------------------------------------------------------------- showing values


def brief(value: Any, width: int = SHOW_WIDTH) -> str:
    """`value` as the user wrote it (YAML/JSON spelling), in at most `width` characters. The work is
    bounded by `width` too: containers are walked only until the room is used up."""
    parts: list[str] = []
    room = width + 1

    def put(text: str) -> None:
        nonlocal room
        parts.append(text[: max(room, 0)])
        room -= len(text)

    def walk(item: Any, depth: int) -> None:
        if room <= 0:
            return
        if item is None or isinstance(item, bool):
            put(json.dumps(item))
        elif isinstance(item, int):
            put(_int_text(item))
        elif isinstance(item, float):
            put(repr(item))
        elif isinstance(item, str):
            put(json.dumps(item[: max(room, 0)]))  # cut before escaping: never the whole string
        elif isinstance(item, (list, tuple, set, frozenset, dict)):
            is_map = isinstance(item, dict)
            if depth >= 3:
                put("{...}" if is_map else "[...]")
                return
            put("{" if is_map else "[")
            for i, entry in enumerate(item.items() if isinstance(item, dict) else item):
                if room <= 0:
                    return
                if i:
                    put(", ")
                if is_map:
                    walk(entry[0], depth + 1)
                    put(": ")
                    walk(entry[1], depth + 1)
                else:
                    walk(entry, depth + 1)
            put("}" if is_map else "]")
        elif isinstance(item, (dt.date, dt.time)):
            put(item.isoformat())
        elif isinstance(item, (bytes, bytearray)):
            put(f"<{len(item)} bytes>")
        else:
            put(f"<{type(item).__name__}>")

    walk(value, 0)
    text = "".join(parts)
    return text if len(text) <= width else text[: width - 3] + "..."


def _int_text(n: int) -> str:
    if n.bit_length() <= 64:
        return str(n)
    if n.bit_length() > 14_000:  # str() refuses more than 4,300 digits; don't ask it
        return f"{'-' if n < 0 else ''}a number of about {int(n.bit_length() * 0.30103):,} digits"
    digits = str(abs(n))
    return f"{'-' if n < 0 else ''}{digits[:6]}...({len(digits):,} digits)"


def cut(text: str, width: int = 200) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
