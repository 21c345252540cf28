"""Rule 4's sentence in the reasoning (--explain, the TUI's x): the GPU against the reference CPU, quoting the speedup,
the break-even and the bill that decided (planner/report/why.py says the rest of the decision)."""

from __future__ import annotations

import math

from planner.core.compare import compare
from planner.core.formats import sig_duration
from planner.core.plan import RankedOption, device_label, hourly_rate, option_name


def gpu_rule_text(
    best: RankedOption,
    gpu: RankedOption,
    ref: RankedOption | None,
    objective: str,
    tv: float,
    deadline: float | None,
) -> str:
    """Rule 4's sentence, quoting the numbers it compared: the winning GPU against the reference CPU,
    or the best GPU that lost to it."""
    if ref is None:
        return ". No CPU option to compare a GPU with" if best.device == "cuda" else ""
    if gpu.speedup is None or gpu.break_even_speedup is None:
        return ""
    name = (
        option_name(gpu)
        if gpu.key == best.key
        else f"the best GPU, {option_name(gpu)} ({device_label(gpu)}),"
    )
    speed = (
        f"speedup {gpu.speedup:.2f}x over the reference CPU {ref.target} "
        f"({sig_duration(ref.train_seconds or 0.0)} / {sig_duration(gpu.train_seconds or 0.0)}; "
        f"{gpu.speedup_low:.2f}-{gpu.speedup_high:.2f}x over both intervals)"
    )
    lead = (  # a sentence's start: "The best GPU, ..." capitalised; a target's name (aws:...) as it is written
        name if gpu.key == best.key else name[:1].upper() + name[1:]
    )
    if objective == "fastest":
        return f". GPU rule: {lead}: {speed}" if gpu.key == best.key else f". {lead}: {speed}"
    if objective == "deadline" and deadline is not None and ref.train_seconds_high > deadline:  # type: ignore[operator]
        return (
            f". {'GPU rule: ' if gpu.key == best.key else ''}{lead}: {speed}; the reference CPU does not meet "
            "the deadline"
        )
    g, r = f"${hourly_rate(gpu):.3f}/h", f"${hourly_rate(ref):.3f}/h"
    # the waiting is on both sides of the break-even: (GPU + waiting) / (CPU + waiting)
    rates = f"(({g} + ${tv:g}/h waiting) / ({r} + ${tv:g}/h))" if tv else f"({g} / {r})"
    # a free reference CPU and no waiting: no speedup pays for a GPU
    if not math.isfinite(gpu.break_even_speedup):
        return f". GPU rule: {name} {speed} cannot pay off: the reference CPU costs nothing {rates}"
    return _bill_words(best, gpu, ref, objective, tv, f". GPU rule: {name} {speed}", rates)


def _bill_words(
    best: RankedOption,
    gpu: RankedOption,
    ref: RankedOption,
    objective: str,
    tv: float,
    name_speed: str,
    rates: str,
) -> str:
    """Rule 4's sentence after `name_speed` ('. GPU rule: NAME SPEED'): the GPU's speedup against its break-even
    (`rates`) and which costs less, as the bill decided."""
    be, speedup = float(gpu.break_even_speedup or 0.0), float(gpu.speedup or 0.0)
    cheaper = "GPU" if gpu.pays_off_against(ref) else "CPU"  # as decided: the bill
    # the same bill to the cent's fraction: neither costs less, whichever the ranking's tie-break put first (a
    # property test's CPU and GPU alike read 'the GPU costs less' under a CPU answer)
    if math.isclose(gpu.point_cost or 0.0, ref.point_cost or 0.0, rel_tol=1e-12):
        first = gpu.key == best.key  # the same bill, the GPU ranked first: the faster
        return (
            f"{name_speed} is {'at least' if first else 'at'} its break-even speedup {be:.2f}x "
            f"{rates}: the two cost the same" + (", and the GPU is faster" if first else "")
        )
    if (speedup >= be) != (cheaper == "GPU"):  # within a second's billing of it: the bill decides
        return (
            f"{name_speed} is at its break-even speedup {be:.2f}x {rates}: billed by the "
            f"whole second, the {cheaper} costs less"
        )
    relation = "at least" if cheaper == "GPU" else "below"
    # within the noise band of each other, as rule 2 compares any two options: said, as the short answer does
    pair = (gpu, ref) if cheaper == "GPU" else (ref, gpu)
    close = objective == "cheapest" and compare(*pair, objective, tv).verdict == "too_close"
    return (
        f"{name_speed} is {relation} its break-even speedup {be:.2f}x {rates}: the {cheaper} costs less"
        + ("; too close to call: their costs are within the noise band" if close else "")
    )
