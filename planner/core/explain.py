"""The decision's sentences, in one place, quoting exactly the numbers the rule compared (a Comparison,
the GPU rule's speedup and break-even): a sentence cannot say what the rule did not do. Pure."""

from __future__ import annotations

import math

from planner.core.formats import range_text, sig_duration, sig_money
from planner.core.plan import Comparison, RankedOption, device_label, hourly_rate, option_name

def gpu_rule_text(best: RankedOption, ordered: list[RankedOption], ref: RankedOption | None, objective: str, tv: float,
              deadline: float | None) -> str:
    """Rule 4's sentence, quoting the numbers it compared: the winning GPU against the reference CPU,
    or the best GPU that lost to it."""
    if ref is None:
        return ". No CPU option to compare a GPU with" if best.device == "cuda" else ""
    gpu = best if best.device == "cuda" else next((o for o in ordered if o.device == "cuda" and o.speedup is not None), None)
    if gpu is None or gpu.speedup is None or gpu.break_even_speedup is None:
        return ""
    name = option_name(gpu) if gpu is best else f"the best GPU, {option_name(gpu)} ({device_label(gpu)}),"
    speed = (f"speedup {gpu.speedup:.2f}x over the reference CPU {ref.target} ({sig_duration(ref.train_seconds)} / "  # type: ignore[arg-type]
             f"{sig_duration(gpu.train_seconds)}; {gpu.speedup_low:.2f}-{gpu.speedup_high:.2f}x over both intervals)")  # type: ignore[arg-type]
    if objective == "fastest":
        return f". {name[:1].upper() + name[1:]}: {speed}"
    if objective == "deadline" and deadline is not None and ref.train_seconds_high > deadline:  # type: ignore[operator]
        return f". {name[:1].upper() + name[1:]}: {speed}; the reference CPU does not meet the deadline"
    waiting = f" + ${tv:g}/h waiting" if tv else ""
    rates = f"(${hourly_rate(gpu):.3f}/h / ${hourly_rate(ref):.3f}/h{waiting})"
    relation = ("at least" if gpu.speedup >= gpu.break_even_speedup else "below")
    return (f". GPU rule: {name} {speed} is {relation} its break-even speedup {gpu.break_even_speedup:.2f}x {rates}"
            + (": the GPU costs less" if gpu.speedup >= gpu.break_even_speedup else ": the CPU costs less"))


def amount_text(metric: str, value: float) -> str:
    return sig_duration(value) if metric.startswith("training time") else sig_money(value)


def comparison_text(cmp: Comparison, tv: float) -> str:
    """Rule 2 and 3 in words, quoting exactly the comparison's numbers."""
    what = "the time" if cmp.metric.startswith("training time") else "the cost"
    waiting = f", with waiting at ${tv:g}/h" if cmp.metric == "cost and waiting" else ""
    ratio = f"{cmp.ratio:.2f}x {what}" if math.isfinite(cmp.ratio) else f"more than {what}"
    values = f"{amount_text(cmp.metric, cmp.runner_up_value)} vs {amount_text(cmp.metric, cmp.winner_value)}{waiting}"
    settle = (f"a paid benchmark of {' and '.join(cmp.settle)} would settle it" if cmp.settle
              else "longer benches (--seconds) would settle it")
    if cmp.verdict == "too_close":
        return f"Too close to call: {cmp.runner_up} at {ratio} ({values}) is within {cmp.band_reason}; {settle}"
    return f"Runner-up: {cmp.runner_up} at {ratio} ({values}); {certainty_text(cmp)}" + (
        f"; {settle}" if cmp.verdict == "likely" else "")


def certainty_text(cmp: Comparison) -> str:
    """Rule 3 in words: how sure a comparison beyond the band is (the ratio's interval)."""
    if math.isclose(cmp.ratio_low, cmp.ratio_high, rel_tol=1e-9):
        return "clear: the same estimate, only the price differs"
    spread = (f"{cmp.ratio_low:.2f}-{cmp.ratio_high:.2f}x" if math.isfinite(cmp.ratio_high)
              else f"{cmp.ratio_low:.2f}x or more")
    return f"{'clear' if cmp.verdict == 'clear' else 'likely, not certain'}: {spread} over both intervals"


def span_text(o: RankedOption) -> str:
    if o.train_seconds_high is None or not math.isfinite(o.train_seconds_high):
        return " (no usable interval)"
    return f" ({range_text(o.train_seconds_low or 0.0, o.train_seconds_high)})"  # as the table: "2.3-3.2 min", not "2 min-3 min"
