"""Under the terse table: how many rows of how many and the flags that show more, the warnings in one line; and every
warning and note whole, as --verbose and --explain print them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from planner.core.remarks import LengthNotGiven
from planner.report.remarks import word
from planner.report.terse import said_above
from planner.report.text import counted, escape

if TYPE_CHECKING:
    from planner.core.document import PlanDocument
    from planner.core.shown import Shown


def terse_footer(
    doc: PlanDocument, shown: Shown, dropped: list[str], width: int, verbose: bool = False
) -> list[str]:
    """Under the table: how many rows of how many and the flags that show more; the warnings in one line (none when
    `verbose`: they follow whole)."""
    more = (
        [f"--all every row ({len(shown.indices)} of {shown.total} shown)"] if shown.omitted else []
    )
    if dropped:  # how many the width hid
        more.append(f"--wide {counted(len(dropped), 'more column')}")
    more.append("--explain why")
    # what the answer's lines said already (a busy measurement, no GPU planned): left out of the warnings line below
    above = said_above(doc)
    others = [w for w in doc.plan.warnings if w not in above and not isinstance(w, LengthNotGiven)]
    said = [counted(len(above), "warning")] if above and not others else []
    # how each figure was made: counted here, worded by --verbose
    said += [counted(len(doc.plan.notes), "note")] if doc.plan.notes else []
    if said and not verbose:
        more.append(f"--verbose {' and '.join(said)}")
    lines = [""]
    for item in more:  # wrapped between the flags, never inside one ('--verbose' / '1 note')
        joined = f"{lines[-1]}, {item}" if lines[-1] else item
        last = item is more[-1]
        if lines[-1] and len(joined) + (0 if last else 1) > width:  # room for a wrap's comma
            lines[-1] += ","
            lines.append(item)
        else:
            lines[-1] = joined
    if not verbose and (warned := warnings_line(doc, width, " (--verbose: all)", above)):
        lines.append(warned)
    return lines


def said_lines(doc: PlanDocument, terse: bool = True) -> list[str]:
    """Every warning and note in full (markup lines), as --verbose and --explain print them under the answer: the
    plan's, then each row's interval that is wide or missing (its words are otherwise only in the JSON). `terse`:
    the run's length not given is left out, said whole under the short answer already (length_line)."""
    warnings = [w for w in doc.plan.warnings if not (terse and isinstance(w, LengthNotGiven))]
    rows = [
        f"{o.target} ({o.device_name or o.device}): {word(o.interval_note)}"
        for o in doc.plan.options
        if o.interval_note is not None
    ]
    return [
        *(f"[yellow]warning[/]: {escape(word(w))}" for w in warnings),
        *(f"[dim]note: {escape(word(n))}[/]" for n in doc.plan.notes),
        *(f"[dim]note: {escape(row)}[/]" for row in rows),
    ]


def warnings_line(
    doc: PlanDocument, width: int, more: str = "", said: Sequence[object] = ()
) -> str | None:
    """The warnings in one line under a short answer (the CLI's footer, the TUI's answers): their count, the first
    shortened to fit `width`, and `more` (where the rest are) when there are several; None without one. The run's
    length not given is not among them: it is said whole under the answer (length_line), nor those in `said`."""
    warnings = [
        word(w)
        for w in doc.plan.warnings
        if not isinstance(w, LengthNotGiven) and all(w is not x for x in said)
    ]
    if not warnings:
        return None
    count = f"{len(warnings)} warnings" if len(warnings) > 1 else "warning"
    first = " ".join(warnings[0].split())
    tail = more if len(warnings) > 1 or len(first) > max(20, width - len(count) - 4) else ""
    room = max(20, width - len(count) - len(tail) - 4)
    return f"[yellow]{count}[/]: {escape(_at_a_word(first, room))}{tail}"


def _at_a_word(text: str, room: int) -> str:
    """`text` in `room` characters, cut with an ellipsis at a space: not inside a word, nor between a number and its
    unit ('(3 m…' at 80 columns, a trial). The cut falls at most 20 characters short of the room."""
    if len(text) <= room:
        return text
    for cut in range(room - 1, max(0, room - 21), -1):
        if text[cut] == " " and not (text[cut - 1].isdigit() and text[cut + 1 : cut + 2].isalpha()):
            return text[:cut].rstrip(" ,;:(") + "…"
    return text[: room - 1] + "…"
