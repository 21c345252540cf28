"""Shared error counted once: the interval of the ratio of two options' training times, and the band
within which measuring this machine again could swap them (rules 2 and 3 of planner/core/decide.py).
Pure."""

from __future__ import annotations

import math

from planner.core.plan import TOO_CLOSE_MARGIN, Option

# ----------------------------------------------------------------------------- shared error


def _steps_share(o: Option) -> float:
    """The share of the training time that is steps (what a bench measures); the rest is one-time
    costs (process start, setup, an instance's boot), which the bench's error does not scale."""
    t = o.train_seconds or 0.0
    return max(t - (o.one_time_seconds or 0.0), 0.0) / t if t > 0 else 1.0


def _bench_parts(o: Option) -> tuple[float, float]:
    """(below, above): how far the bench's error moves the option's training time, relative."""
    if not o.basis.bench:
        return 0.0, 0.0
    share = _steps_share(o)
    return o.basis.bench_below * share, o.basis.bench_above * share


def _own_widths(o: Option) -> tuple[float, float]:
    """(below, above) log factors of the option's own error: its interval without the bench's part."""
    t = o.train_seconds or 0.0
    low, high = (
        o.train_seconds_low or t,
        o.train_seconds_high if o.train_seconds_high is not None else t,
    )
    if t <= 0:
        return 0.0, 0.0
    bench_below, bench_above = _bench_parts(o)
    # relative widths, as planner.core.estimate combined them (in quadrature), then as log factors
    below = math.sqrt(max((1 - low / t) ** 2 - bench_below**2, 0.0))
    above = (
        math.sqrt(max((high / t - 1) ** 2 - bench_above**2, 0.0))
        if math.isfinite(high)
        else math.inf
    )
    return -math.log(max(1.0 - below, 1e-9)), math.log1p(above)


def _bench_between(a: Option, b: Option) -> tuple[float, float]:
    """(down, up) relative moves of a/b that the benches' errors can cause. One bench behind both moves
    them together: only the difference of their step shares is left (an instance's boot does not
    scale with this machine's step). Different benches move independently."""
    a_below, a_above = _bench_parts(a)
    b_below, b_above = _bench_parts(b)
    if a.basis.bench and a.basis.bench == b.basis.bench:
        gap = _steps_share(a) - _steps_share(b)
        below, above = a.basis.bench_below, a.basis.bench_above
        return (abs(gap) * (below if gap > 0 else above), abs(gap) * (above if gap > 0 else below))
    return math.hypot(a_below, b_above), math.hypot(a_above, b_below)


def time_ratio(a: Option, b: Option) -> tuple[float, float, float]:
    """a's training time over b's, with the interval of that ratio: the error of a bench both scale
    cancels (but for their different step shares), one model's errors are counted once (and not at
    all between two instances given the very same estimate), independent errors add in quadrature
    (log space)."""
    r = a.train_seconds / b.train_seconds  # type: ignore[operator]
    a_below, a_above = _own_widths(a)
    b_below, b_above = _own_widths(b)
    same_model = bool(a.basis.model) and a.basis.model == b.basis.model
    same_estimate = bool(a.basis.estimate) and a.basis.estimate == b.basis.estimate
    bench_down, bench_up = _bench_between(a, b)

    def own(x: float, y: float) -> float:
        return 0.0 if same_estimate else max(x, y) if same_model else math.hypot(x, y)

    up = math.hypot(math.log1p(bench_up), own(a_above, b_below))  # a slower, b faster
    down = math.hypot(-math.log(max(1.0 - bench_down, 1e-9)), own(a_below, b_above))
    return (
        r,
        r * math.exp(-down) if math.isfinite(down) else 0.0,
        r * math.exp(up) if math.isfinite(up) else math.inf,
    )


def noise_band(a: Option, b: Option) -> tuple[float, tuple[str, ...], bool]:
    """Rule 2's band for two options, `a` the better: the margin, or — when measuring this machine again would move
    one of them and not the other as much — how far that bench's run-to-run noise could move `a` up against `b`
    (the direction that could swap them), whichever is wider. A bench that pins one end only (one step measured:
    no upper end) makes the band infinite only when that end could swap them: an option that could only be slower
    than measured cannot overtake one already better (a 471x cost gap was 'too close to call within inf%').
    Returns (the band, the benches that set it: none for the margin, whether one of them is a prediction)."""
    _down, up = _bench_between(a, b)
    if up <= TOO_CLOSE_MARGIN:
        return TOO_CLOSE_MARGIN, (), False
    benches = tuple(dict.fromkeys(o.basis.bench for o in (a, b) if o.basis.bench))
    return up, benches, any(o.basis.bench_predicted for o in (a, b))
