"""Parse the units people type: durations ("4h", "90m", "1h30m", "2d", "3600")."""

from __future__ import annotations

import re

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(min|sec|d|h|m|s)?", re.IGNORECASE)
_SCALE = {"d": 86400, "h": 3600, "m": 60, "min": 60, "s": 1, "sec": 1, None: 1}


def parse_duration(text: str) -> float:
    """Seconds in `text`; raises ValueError with the accepted forms."""
    cleaned = text.strip().lower().replace(" ", "")
    pos, total = 0, 0.0
    while pos < len(cleaned):
        m = _DURATION.match(cleaned, pos)
        if not m or m.end() == pos:
            break
        total += float(m.group(1)) * _SCALE[m.group(2)]
        pos = m.end()
    if not cleaned or pos != len(cleaned) or total <= 0:
        raise ValueError(f"must be a duration like 4h, 90m, 1h30m or 2d, got {text!r}")
    return total
