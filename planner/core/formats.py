"""Pure: how durations, money and sizes read, everywhere the planner shows them (plans, reasons,
tables, the TUI). One place, so the CLI and the TUI cannot drift apart."""

from __future__ import annotations

import math

# (unit, scale, below this many seconds, decimals)
UNITS = (
    ("us", 1e-6, 1e-3, 0),
    ("ms", 1e-3, 1, 2),
    ("s", 1, 120, 1),
    ("min", 60, 7200, 1),
    ("h", 3600, 172800, 1),
    ("d", 86400, float("inf"), 1),
)


def seconds_text(s: float | None) -> str:
    """A duration people read at a glance: 812 us, 7.61 ms, 3.2 s, 4.5 min, 2.3 h, 1.5 d."""
    if s is None:
        return "-"
    unit, scale, _, digits = next((u for u in UNITS if s < u[2]), UNITS[-1])
    return f"{s / scale:.{digits}f} {unit}"


def range_text(low: float, high: float) -> str:
    """'2.7-2.9 min': both ends in the unit of the high end."""
    for unit, scale, limit, digits in UNITS:
        if high < limit:
            return f"{low / scale:.{digits}f}-{high / scale:.{digits}f} {unit}"
    return "-"


def _sentence_unit(seconds: float) -> tuple[float, str]:
    return (
        (seconds, "s")
        if seconds < 120
        else (seconds / 60, "min")
        if seconds < 7200
        else (seconds / 3600, "h")
    )


def rough_duration(seconds: float) -> str:
    """A duration in a sentence: 16 s, 4 min, 2.5 h."""
    value, unit = _sentence_unit(seconds)
    return f"{value:.{1 if unit == 'h' else 0}f} {unit}"


def money_text(usd: float | None, unit: str = "$", precise_below: float = 0.01) -> str:
    """An amount in a cell: $0.0042 under a cent (four decimals below `precise_below`), else $1,234.56;
    '-' when there is none (None, NaN: a price not offered). The prices table: unit "", precise below 1."""
    if usd is None or (isinstance(usd, float) and math.isnan(usd)):
        return "-"
    return f"{unit}{usd:,.4f}" if usd < precise_below else f"{unit}{usd:,.2f}"


def sig_money(usd: float) -> str:
    """Three significant figures, for a sentence that compares two amounts: $0.0345, $0.820, $12.3."""
    if usd == 0:
        return "$0"
    return f"${usd:,.{max(0, 2 - math.floor(math.log10(abs(usd))))}f}"


def sig_duration(seconds: float) -> str:
    """Three significant figures in the unit rough_duration picks: 9.30 min, 45.4 min, 2.95 h, 18.0 s."""
    value, unit = _sentence_unit(seconds)
    digits = max(0, 2 - math.floor(math.log10(value))) if value > 0 else 0
    return f"{value:,.{digits}f} {unit}"


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def human_count(n: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.2f}{unit}"
    return f"{n:.0f}"
