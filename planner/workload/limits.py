"""Every bound on a workload spec, with its reason, the checks for numbers, and `brief`, which
shows any value in a bounded number of characters with a bounded amount of work.

The bounds are upper limits no real workload reaches, low enough that nothing downstream
overflows, allocates absurd memory or runs for ever on a typo (issue 16: a 401-digit `epochs`
passed `check` and crashed `run`; a 300-character name broke the run directory; an alias bomb hung
every command at 3 GB). Every message states the range. A real spec is about 1 KiB, 3 levels deep
and a few dozen values; the largest valid one (1,000 widths in a list) about 10 KiB.

Reading (specio)
    MAX_SPEC_BYTES    256 KiB per file or text. Also bounds time: PyYAML's pure-Python loader (used
                      because its composer can be bounded) reads 256 KiB in well under a second.
    MAX_DEPTH         20 levels of nested lists/mappings, refused while composing, so neither the
                      YAML composer nor json nor pydantic recurses deeply (no RecursionError).
    MAX_VALUES        10,000 values in the whole spec, counted as the document *expands*: an alias
                      (*name) counts its anchor's values again. Anchors and aliases stay allowed
                      (people reuse them; refusing valid YAML would surprise); the budget is what
                      stops a "billion laughs" bomb after at most 10,000 steps of work.
    MAX_NUMBER_CHARS  1,000 characters in one number literal: int() is quadratic on long digit
                      strings (and refuses past 4,300 digits); YAML's base-60 1:2:3 multiplies per
                      part. A 401-digit number still reaches its field's check, which names it.
    duplicate keys    refused (YAML and JSON), naming the key and both lines: a silently dropped
                      first `epochs:` is a wrong answer, not a convenience.

Fields (spec)
    name              1-64 characters: it names the run directory <UTC time>-<name> and the
                      instances' tags
    widths and sizes  1 to 1,000,000: input_size, hidden[*], outputs (classes), channels[*],
                      input_shape[*], hidden_size, vocab_size, d_model, ff_size, seq_len
    layer counts      hidden and channels at most 1,000 entries; num_layers, layers 1 to 1,000
    heads             1 to 1,024
    data.samples      1 to 1,000,000,000 (train.batch_size likewise, or "full")
    train.epochs      1 to 10,000,000
    train.gpus        "auto" or 1 to 64: the most GPUs a data-parallel option may use (a plan offers
                      at most 4 instances x 8 GPUs = 32; twice that leaves room for larger instances)
    learning_rate     a finite number above 0, at most 100
    derived           total steps (epochs x steps per epoch) at most 10^12; at most 10^11
                      parameters (1.6 TB to train with Adam, more than any instance holds); one
                      sample at most 10^9 input values (4 GB in fp32)
"""

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
