"""The terse answer's GPU line (rule 4 in one line): the GPU that pays off, the best one and the break-even it misses,
one too close to call against its reference CPU, or why no GPU is in the plan."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.core.compare import compare, eligible, in_order
from planner.core.remarks import KindOnly, NoGpuRows
from planner.report.plan import _times, device_short
from planner.report.remarks.script import KEEPS_TO_THE_CPU, gpu_fix
from planner.report.text import escape, seconds_text

if TYPE_CHECKING:
    from planner.core.decide import RankedOption
    from planner.core.document import PlanDocument


def gpu_line(doc: PlanDocument, detail: bool = False) -> str:
    """Rule 4 in one line, for renting (this machine's GPU when nothing is rented): the GPU that pays off, or the best
    one and the break-even it misses; `detail` (--explain): why every GPU takes one step, when it does."""
    place = "rent" if doc.answer("rent") is not None else "here"
    answer = doc.answer(place)  # type: ignore[arg-type]
    chosen = doc.plan.option_of(answer) if answer is not None else None
    gpus = [
        o
        for o in doc.plan.options
        if o.here == (place == "here")
        and o.device == "cuda"
        and o.usable
        and o.speedup is not None
        and o.break_even_speedup is not None
    ]
    if not gpus and place == "rent":
        return _no_gpu_line(doc, chosen)
    if not gpus or chosen is None or answer is None:
        return ""
    gpu = chosen if chosen.device == "cuda" and chosen.speedup is not None else gpus[0]
    if doc.plan.objective == "fastest":
        return _fastest_line(gpu)
    reference = doc.reference(place)  # type: ignore[arg-type]
    verdict = _gpu_verdict(doc, gpu, reference)
    if verdict == "too_close" and _span(gpu):
        return _too_close_line(gpu) + (_same_step(gpus) if detail else "")
    if gpu is chosen and _beats(doc, gpu, reference):
        return _chosen_line(gpu, verdict)
    missed = answer.verdict == "deadline_missed"
    if (
        gpu is chosen
        and doc.plan.objective == "deadline"
        and (not missed or doc.recommendation.answer == place)
        and verdict != "too_close"
    ):
        # below its break-even, picked for the deadline: the cheapest that meets it, or, none sure to, the nearest
        # (a trial read 'Renting ... (T4) ... may miss the deadline' over 'No GPU pays off: best is T4'); under an
        # answer that trains here and meets it, a rent that misses it picked nothing
        why = "as the nearest to meeting" if missed else "to meet"
        return (
            f"  The {escape(device_short(gpu))} is picked {why} the deadline, although on cost alone it does not "
            f"pay off: {_speed(gpu)}, break-even {_times(gpu.break_even_speedup or 0.0, True)}."
        )
    if verdict != "too_close" and _beats(doc, gpu, reference):
        # cheaper than its reference CPU, but the answer is another (a trial, under a deadline none meets: 'No GPU
        # pays off: best is T4 at 2.05x ..., needs 1.78x')
        tail = (
            "ranks first"
            if doc.plan.objective != "deadline"
            else "comes nearer the deadline"
            if missed
            else "meets the deadline"
        )
        basis = "cost and waiting" if doc.plan.time_value_per_hour else "cost alone"
        return (
            f"  The {escape(device_short(gpu))} pays off against {escape(_ref(gpu))} on {basis} "
            f"({gpu.speedup:.2f}x, break-even {_times(gpu.break_even_speedup or 0.0, True)}), but "
            f"{escape(chosen.target)} {tail}."
        )
    return _short_line(gpu, verdict) + (_same_step(gpus) if detail else "")


def _same_step(gpus: list[RankedOption]) -> str:
    """' Each GPU takes 4.13 ms a step: it waits on the CPU ...' when single GPUs of three kinds or more (a T4 to an H200: tens of times
    apart in arithmetic) predict one step within 2%: the step waits on the host, which no GPU speeds up (a trial saw
    twelve identical rows with no word why)."""
    one = [
        o for o in gpus if (o.gpus_used or 1) == 1 and (o.instances or 1) == 1
    ]  # a step each, one GPU
    steps = [o.step_seconds for o in one if o.step_seconds]
    kinds = {o.device_name for o in one if o.device_name and o.step_seconds}
    if len(kinds) < 3 or len(steps) < 3 or max(steps) > min(steps) * 1.02:
        return ""
    return (
        f" Each GPU takes {escape(seconds_text(min(steps)))} a step: it waits on the CPU (Python, kernel "
        "launches), so a faster GPU does not help."
    )


def _ref(gpu: RankedOption) -> str:
    return gpu.reference or "the reference CPU"


def _speed(gpu: RankedOption) -> str:
    return escape(f"{gpu.speedup:.2f}x the speed of {_ref(gpu)}")


def _span(gpu: RankedOption) -> str:
    """' (0.84-3.58x)': the speedup's interval ('' when it has none)."""
    low, high = gpu.speedup_low, gpu.speedup_high
    return f" ({low:.2f}-{high:.2f}x)" if low is not None and high is not None else ""


def _fastest_line(gpu: RankedOption) -> str:
    """Under `fastest`: the fastest GPU, or that none is surely faster than its reference CPU (a trial: 'Fastest
    GPU: T4 at 1.00x' of a CPU)."""
    low = gpu.speedup_low
    if low is not None and gpu.speedup_high is not None and low <= 1.0:
        return (
            f"  No GPU is surely faster than {escape(_ref(gpu))}: the best, {escape(device_short(gpu))}, at "
            f"{gpu.speedup:.2f}x its speed{_span(gpu)}."
        )
    return f"  Fastest GPU: {escape(device_short(gpu))} at {_speed(gpu)}."


def _chosen_line(gpu: RankedOption, verdict: str | None) -> str:
    """The answer's GPU, which pays off: plainly, or 'likely' (rule 3: beyond the band, but its interval reaching
    below the break-even; a trial: 'pays off' said flatly over 0.84-3.58x against 1.78x)."""
    be = _times(gpu.break_even_speedup or 0.0, True)
    if verdict == "likely" and _span(gpu):
        return f"  The {escape(device_short(gpu))} likely pays off: {_speed(gpu)}{_span(gpu)}, break-even {be}."
    return f"  The {escape(device_short(gpu))} pays off: {_speed(gpu)}, break-even {be}."


def _too_close_line(gpu: RankedOption) -> str:
    """Neither 'pays off' nor 'no GPU pays off' is sure (a trial: 'pays off' at 1.00x against 1.00x, 0.81-1.24x)."""
    return (
        f"  Too close to call for a GPU: {escape(device_short(gpu))} at {_speed(gpu)}{_span(gpu)}, "
        f"break-even {_times(gpu.break_even_speedup or 0.0, True)}."
    )


def _short_line(gpu: RankedOption, verdict: str | None) -> str:
    """No GPU pays off: the plan's first GPU (named without 'best': a trial read 'best is T4 at 1.35x' over an L4 at
    1.37x), and the break-even it misses; 'likely' by rule 3."""
    be = gpu.break_even_speedup or 0.0
    needs = (
        f"needs {_times(be, True)}" if math.isfinite(be) else "no speedup pays against a free CPU"
    )
    if verdict == "likely" and _span(gpu):
        return f"  Likely no GPU pays off: {escape(device_short(gpu))} at {_speed(gpu)}{_span(gpu)}, {needs}."
    return f"  No GPU pays off: {escape(device_short(gpu))} at {_speed(gpu)}, {needs}."


def _gpu_verdict(doc: PlanDocument, gpu: RankedOption, ref: RankedOption | None) -> str | None:
    """Rules 2 and 3 on the GPU against its reference CPU: 'too_close', 'likely' or 'clear'; None when the two are
    not weighed by cost: under `fastest`, or a deadline one of them is not sure to meet (a review: 'likely' was
    never said under a deadline both met)."""
    plan = doc.plan
    if ref is None or gpu.point_cost is None or plan.objective == "fastest":
        return None
    if (
        plan.objective == "deadline"
        and len(eligible([gpu, ref], "deadline", plan.deadline_seconds)) < 2
    ):
        return None
    tv = plan.time_value_per_hour or 0.0
    # best first by rule 1 (both free: the faster; a review saw a local GPU at half the CPU's speed 'too close')
    best, other = in_order([gpu, ref], "cheapest", tv)
    return compare(best, other, "cheapest", tv).verdict


def _beats(doc: PlanDocument, gpu: RankedOption, ref: RankedOption | None) -> bool:
    """The GPU comes before its reference CPU by rule 1 on cost (and waiting when given): it pays off."""
    tv = doc.plan.time_value_per_hour or 0.0
    return ref is not None and in_order([gpu, ref], "cheapest", tv)[0] is gpu


def _no_gpu_line(doc: PlanDocument, chosen: RankedOption | None) -> str:
    """Why a rent answer names no GPU: no CPU instance priced to hold one against, or the script keeps to the CPU."""
    rented = [o for o in doc.plan.options if not o.here]
    if (
        chosen is not None
        and any(o.device == "cuda" and o.usable for o in rented)
        and not any(o.device == "cpu" for o in rented)
        and not any(isinstance(n, KindOnly) for n in doc.plan.notes)
    ):
        # no CPU instance in the plan though none was left out by --gpu: the snapshot's regions without CPU prices
        return (
            f"  No CPU instance is priced in {escape(doc.options.region)}: nothing to hold a GPU's speedup "
            "against (--region all compares across regions)."
        )
    unused = next(
        (w for w in doc.plan.warnings if isinstance(w, NoGpuRows) and w.why != "no_step"), None
    )
    if unused is None:
        return ""
    # the answer names no GPU: why not
    return f"  No GPU planned: {KEEPS_TO_THE_CPU}; {escape(gpu_fix(unused.why))}."
