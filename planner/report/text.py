"""Words and JSON for the fronts: the one markup escape, short cells, durations and money (the pure
core's formatters, re-exported), bench progress lines, target labels, strict JSON."""

from __future__ import annotations

import functools
import os
import re
from functools import singledispatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.core.candidates import Target
from planner.core.document import PlanDocument
from planner.core.document_json import strict_json
from planner.core.document_json import to_json as document_json
from planner.core.formats import human_bytes, human_count, money_text, range_text, seconds_text  # noqa: F401 - re-exported

# pydantic's: imported when a measurement reports (progress_text), not with the report
if TYPE_CHECKING:
    from collections.abc import Callable

    from planner.core.progress import Measuring, Progress, ScriptProgress

NOTE_WIDTH = 38


def escape(text: object) -> str:
    """Text from a journal, a spec or the user shown as it is inside rich markup, never read as tags
    (a reason quoting '[0.2-1.1x]', a log line '[planner 12:00:00] ...'). The one escape of the fronts."""
    from rich.markup import escape as rich_escape

    return rich_escape(str(text))


def interrupted_text(result: Any) -> str:
    """A bench result's word that a spot reclaim cut it short ('' when none did): what a measured line adds."""
    if not getattr(result, "interruption", ""):
        return ""
    return f", interrupted after {result.steps_measured:,} steps ({result.interruption})"


def short(text: str, width: int = NOTE_WIDTH) -> str:
    """One line of at most `width` characters (an ellipsis when cut), escaped."""
    text = " ".join(str(text).split())
    return escape(text if len(text) <= width else text[: width - 1] + "…")


def to_json(data: Any) -> str:
    """Strict JSON text (no NaN or Infinity: null with a `<key>_note`); a PlanDocument by its converter."""
    import json

    return json.dumps(
        worded_json(data) if isinstance(data, PlanDocument) else strict_json(data),
        indent=2,
        default=str,
        allow_nan=False,
    )


def worded_json(doc: PlanDocument) -> dict[str, Any]:
    """The document's JSON with the decision's words beside its facts: each answer's `reason`, and the headline's
    `reason` and `choice` (why here or rent), as the text output words them (planner/report/why.py); each warning's
    and note's `text` (planner/report/remarks)."""
    from planner.report.choices import choice_words
    from planner.report.remarks import word
    from planner.report.why import answer_reason, band_text, choice_text, headline_reason

    data = document_json(doc, word)
    for key in ("benchmark", "skipped", "auto"):
        if data.get(key) is not None:
            data[key] = strict_json([choice_words(c) for c in getattr(doc, key) or []])
    # `benchmark` settles renting; none is needed when here wins clearly
    if data.get("benchmark") is not None:
        data["paid_benchmark_needed"] = bool(doc.suggested_benchmarks)
    data["recommendation"].update(reason=headline_reason(doc.plan), choice=choice_text(doc.plan))
    if (cmp := doc.plan.recommendation.choice_comparison) is not None:
        data["recommendation"]["choice_comparison"]["band_reason"] = band_text(cmp)
    for name, rec in doc.plan.answers.items():
        data["answers"][name]["reason"] = answer_reason(doc.plan, rec)
        if rec.comparison is not None:
            data["answers"][name]["comparison"]["band_reason"] = band_text(rec.comparison)
        if doc.spans_regions and (option := doc.plan.option_of(rec)) is not None and option.region:
            # where to rent it: the plan priced several
            data["answers"][name]["region"] = option.region
    if data.get("cloud_recommendation") is not None:
        data["cloud_recommendation"]["reason"] = data["answers"]["rent"]["reason"]
        if data["cloud_recommendation"].get("comparison") is not None:
            data["cloud_recommendation"]["comparison"]["band_reason"] = data["answers"]["rent"][
                "comparison"
            ]["band_reason"]
        if "region" in data["answers"]["rent"]:
            data["cloud_recommendation"]["region"] = data["answers"]["rent"]["region"]
    return data


def progress_text(event: Progress) -> str:
    """A progress event (the `on_progress` callbacks) as a short line: a bench's, or a script's being measured."""
    return _progress_words()(event)


@functools.cache
def _progress_words() -> Callable[[Progress], str]:
    """The words of each kind of progress event, by its type (built on the first event: the events are pydantic's)."""
    from planner.core.progress import Built, Measuring, ScriptProgress, Sweep, Training, Warmup

    def timed(text: Callable[[Any], str]) -> Callable[[Any], str]:
        """A bench event's words, and the seconds it has taken so far."""
        return lambda e: text(e) + (f"  ({e.seconds:.0f} s)" if e.seconds else "")

    words = singledispatch(timed(lambda e: e.event))
    words.register(ScriptProgress, script_progress_text)
    words.register(Built, timed(lambda e: "warming up"))
    words.register(Warmup, timed(lambda e: f"warming up: {seconds_text(e.step_seconds)}/step"))
    words.register(Measuring, timed(_measuring_text))
    words.register(
        Training,
        timed(lambda e: f"training: {e.steps:,}" + (f" of {e.of:,}" if e.of else "") + " steps"),
    )
    words.register(Sweep, timed(lambda e: "batch-size sweep"))
    return words


def _measuring_text(event: Measuring) -> str:
    text = (
        f"measuring: {event.steps:,} steps, {seconds_text(event.step_seconds)}/step "
        f"+-{event.rel_ci:.1%}"
    )
    if event.slow and event.min_steps and event.cap_seconds:
        text += f"; a long step: until {event.min_steps} steps, at most {event.cap_seconds:.0f} s"
    return text


def script_progress_text(event: ScriptProgress) -> str:
    """A user's script being measured (runner/script.py's progress file) as a line short enough for the TUI's
    Run row at 80 columns: 'measuring: 412 steps at 10.6 ms, 4/10 s'."""
    phase, seconds = event.phase, event.seconds
    if phase == "setup":
        return f"starting (imports, data, model): {seconds or 0:.0f} s"
    if phase == "whole run":
        return f"running it whole (estimate {seconds_text(event.estimate_seconds)})"
    if event.steps is None:
        return phase
    steps, step = event.steps, event.step_seconds
    text = f"{steps:,} step{'' if steps == 1 else 's'}" + (
        f" at {_short_seconds(step)}" if step else ""
    )
    budget, measured = event.budget_seconds, event.measured_seconds
    if phase == "measuring":
        done = min(measured, budget) if budget and measured is not None else None
        # tenths under 10 s: '0/5 s' read as nothing measured yet (a trial, at 227 steps)
        return f"measuring: {text}" + (
            f", {done:.{1 if done < 10 else 0}f}/{budget:.0f} s" if done is not None else ""
        )
    cap = event.cap_seconds
    if cap and measured is not None:  # the hard cap of a measurement gone past its budget, said
        return f"{text}; {phase.removeprefix('past the budget, ')} ({min(measured, cap):.0f} of at most {cap:.0f} s)"
    return f"{text}; {phase.removeprefix('past the budget, ')}" + (
        f" ({seconds:.0f} s)" if seconds else ""
    )


def _short_seconds(value: float) -> str:
    """Three significant digits: '284 ms', '10.6 ms', '512 us', '1.23 s'."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value * 1e6:.2g} us"


def label_target(label: str) -> str:
    """The target a run's label belongs to, as users type it: local-cpu -> local, aws-g5.xlarge ->
    aws:g5.xlarge; a target given as typed (local, aws:g5.xlarge) is itself."""
    try:
        return Target.parse(label).name
    except ValueError:
        return Target.from_label(label).name


def label_text(label: str) -> str:
    """A run's label as progress lines show it: the target as the plan names it (aws-g5.xlarge -> aws:g5.xlarge,
    local-cpu -> local), with the device when this machine measured another one (local-cuda)."""
    return label if label.startswith("aws:") else Target.shown(label)


def counted(n: float, word: str) -> str:
    """`n` `word`s, the word singular for exactly one ("1 thread", "2 threads", "1.5 epochs")."""
    shown = f"{n:,}" if float(n).is_integer() else f"{n:,.1f}"
    return f"{shown} {word}" + ("" if n == 1 else "s")


# a number and its unit: a line is not cut between them (162 s, 2.6 min)
_UNIT_SPACE = re.compile(
    r"(?<=\d) (?=(?:s|ms|us|min|h|d|days?|hours?|GB|GiB|KiB|MiB|MB|CPUs?|epochs?|steps?)\b)"
)


def wrapped(text: Any, width: int) -> list[Any]:
    """`text` (a rich Text) cut at its spaces into lines of at most `width` where it can be, greedily; the lines
    after the first indented 4 (2 more than a reason line's own); the spaces in _UNIT_SPACE are not cut at; a word
    longer than a line stands on a line of its own."""
    from rich.text import Text

    plain = text.plain
    if len(plain) <= width:
        return [text]
    hang = " " * max(4, len(plain) - len(plain.lstrip(" ")) + 2)
    glued = {m.start() for m in _UNIT_SPACE.finditer(plain)}
    spaces = [i for i, c in enumerate(plain) if c == " " and i not in glued and plain[:i].strip()]
    cuts: list[int] = []
    start, last, room = 0, None, width
    for i in [*spaces, len(plain)]:
        if i - start > room and last is not None:  # this word does not fit: the line ends before it
            cuts.append(last)
            start, room = last + 1, width - len(hang)
        last = i
        if i - start > room and i < len(plain):  # a word longer than a line: a line of its own
            cuts.append(i)
            start, last = i + 1, None
    parts = text.divide(cuts)
    return [parts[0], *(Text(hang) + p[1:] for p in parts[1:])]


# a traceback's frame line, and a file of an installed library
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_LIBRARY = re.compile(
    r"[/\\](site|dist)-packages[/\\]|[/\\]lib(64)?[/\\]python3\.\d+[/\\]|[/\\]python3\d*[/\\]lib[/\\]",
    re.IGNORECASE,
)


# the planner's own launcher and stand-in GPU (runner/), whose frames stand between the script and torch
_RUNNER = tuple(
    str(root / "runner") + os.sep
    for root in dict.fromkeys((Path(__file__).parents[2], Path(__file__).resolve().parents[2]))
)


def raised_at(traceback: list[str]) -> str:
    """' (train.py, line 9)': where a traceback's error was raised in the user's own code, the last frame outside
    the libraries and the planner's runner (torch's own file says little; '<frozen genericpath>' is Python's own);
    '' when it has none."""
    frames = [m for line in traceback if (m := _FRAME.match(line.strip()))]
    frames = [m for m in frames if not m.group(1).startswith("<")]
    where = [
        m for m in frames if not _LIBRARY.search(m.group(1)) and not m.group(1).startswith(_RUNNER)
    ] or frames
    if not where:
        return ""
    name = re.split(r"[/\\]", where[-1].group(1))[-1]
    return f" ({name}, line {where[-1].group(2)})"


def error_line(error: str, limit: int = 200, raised: bool = True) -> str:
    """A script's error in one line: its exception's line and where the user's own code raised it
    ('RuntimeError: boom (train.py, line 9)'); '' for no error. The exception's line is the first unindented one
    after the traceback's last frame, not the traceback's last line (PyTorch's NotImplementedError goes on with a
    page of backend registrations); cut at `limit` characters; `raised`: with where it was raised."""
    raw = [line for line in error.splitlines() if line.strip()]
    lines = [line.strip() for line in raw]
    if not lines:
        return ""
    frames = [i for i, line in enumerate(raw) if _FRAME.match(line.strip())]
    if frames:
        after = raw[frames[-1] + 1 :]
        said = next((line.strip() for line in after if not line[:1].isspace()), lines[-1])
    else:  # no traceback (sys.exit, argparse, a log): its last words, an 'error:' line first
        words = [line for line in lines if not line.startswith("(")] or lines
        said = next((line for line in reversed(words) if "error:" in line.lower()), words[-1])
    if len(said) > limit:
        said = said[: limit - 1].rstrip() + "…"
    return f"{said}{raised_at(lines)}" if raised else said
