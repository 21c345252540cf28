"""`word`: a remark in words, one function per kind registered on it (planner/report/remarks/plan.py, script.py)."""

from __future__ import annotations

from functools import singledispatch
from typing import Any

from planner.core import remarks as r


@singledispatch
def word(remark: r.Remark) -> str:
    """The remark in words (lower case, no final stop: a line of warnings or notes)."""
    raise TypeError(f"no words for the remark {type(remark).__name__}")


def words(remarks: list[Any]) -> list[str]:
    """Remarks in words; a bench result's warnings as its JSON holds them ({"kind", ...}, or an older bench's words)."""
    return [word(r.remark_from_json(x)) for x in remarks]


def note_text(remarks: tuple[r.Remark, ...] | list[r.Remark]) -> str:
    """An option's notes in one line ("" none)."""
    return "; ".join(word(x) for x in remarks)


def remark_json(remark: r.Remark) -> dict[str, Any]:
    """The remark as the JSON carries it: its kind, its fields and its words (`text`)."""
    return r.remark_json(remark, word)


@word.register
def _worded(x: r.Worded) -> str:
    return x.text


@word.register
def _unknown(x: r.Unknown) -> str:
    if x.text:
        return x.text
    facts = ", ".join(f"{k} {v}" for k, v in x.facts)
    return f"{x.name.replace('_', ' ')}" + (f" ({facts})" if facts else "")
