"""The plan's remarks are facts in the core and words in the report (issue 40): every kind has its words, the runner's
facts name kinds the planner knows, and JSON carries each kind with its numbers and its words, read back as the fact."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

import pytest

from planner.core import remarks as r
from planner.report.remarks import remark_json, word

ROOT = Path(__file__).resolve().parents[2]

SAMPLE = {
    str: "x",
    int: 3,
    float: 0.25,
    bool: True,
    "float | None": 0.25,
    "int | None": 3,
    "bool | None": True,
    "tuple[str, ...]": ("a", "b"),
    "tuple[tuple[str, int], ...]": (("train.py:12", 4),),
    "tuple[tuple[int, str, str], ...]": ((38_000, "local", "aws:g4dn.xlarge"),),
    "tuple[int | None, int | None]": (500, None),
    "Remark": r.NoEpochBoundary(),
}


def sample(cls: type[r.Remark]) -> r.Remark:
    """One of `cls` with a value of each field's type."""
    hints = typing.get_type_hints(cls)
    values = {}
    for f in dataclasses.fields(cls):
        shown = str(f.type)
        values[f.name] = SAMPLE.get(shown, SAMPLE.get(hints[f.name], "x"))
    return cls(**values)


KINDS = sorted(r.KINDS.items())


@pytest.mark.parametrize(("kind", "cls"), KINDS, ids=[k for k, _ in KINDS])
def test_every_kind_has_words_and_comes_back_from_json(kind: str, cls: type[r.Remark]) -> None:
    remark = sample(cls)
    text = word(remark)
    assert text and text == text.strip() and not text.endswith(".")
    data = remark_json(remark)
    assert data["kind"] == kind and data["text"] == text
    assert r.remark_from_json(data) == remark  # the fact, not its words


def test_the_core_writes_no_words_of_a_remark() -> None:
    """core.remarks holds the facts: none of its kinds has a method or property that could word it."""
    for cls in r.KINDS.values():
        own = {k for k, v in vars(cls).items() if callable(v) or isinstance(v, property)}
        assert not own - {
            "__init__",
            "__repr__",
            "__eq__",
            "__hash__",
            "__setattr__",
            "__delattr__",
        }, cls


def test_every_fact_the_runner_writes_is_a_kind_the_planner_words() -> None:
    """The bench and the launcher import only torch and the standard library, so they write {"kind": ...} dicts:
    each kind they name is one planner.core.remarks knows, with the fields it holds."""
    written: dict[str, set[str]] = {}
    for path in (ROOT / "runner").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                if "kind" in keys:
                    kind = node.values[keys.index("kind")]
                    if isinstance(kind, ast.Constant) and isinstance(kind.value, str):
                        written.setdefault(kind.value, set()).update(
                            str(k) for k in keys if k != "kind"
                        )
    assert len(written) >= 10, written
    for kind, keys in written.items():
        assert kind in r.KINDS, kind
        assert keys <= {f.name for f in dataclasses.fields(r.KINDS[kind])}, kind


def test_words_of_an_older_document_or_an_unknown_kind_are_kept() -> None:
    assert r.remark_from_json("the machine was busy") == r.Worded("the machine was busy")
    newer = {"kind": "a_kind_from_a_newer_planner", "n": 3, "text": "said by a newer planner"}
    assert word(r.remark_from_json(newer)) == "said by a newer planner"
    assert r.remark_json(r.remark_from_json(newer)) == newer  # written back as it was read
    changed = {"kind": "steps_vary", "text": "step times vary a lot"}  # a field missing
    assert word(r.remark_from_json(changed)) == "step times vary a lot"


def test_a_fact_without_words_of_a_kind_not_known_here_is_never_an_empty_warning() -> None:
    """A newer bench's result file holds facts with no words: they are said by their kind and numbers."""
    assert word(r.remark_from_json({"kind": "future_thing", "x": 1})) == "future thing (x 1)"
    assert word(r.remark_from_json({"kind": "steps_vary"})) == "steps vary"
    at = r.AtTarget("local", r.remark_from_json({"kind": "future_thing", "x": 1}))
    assert word(r.remark_from_json(remark_json(at))) == "local: future thing (x 1)"


def test_a_remark_within_a_remark_comes_back() -> None:
    busy = r.AtTarget(
        "aws:c6i.large",
        r.BusyWhileMeasured("the bench", 1.2, 2, 2, 0.8, True),
    )
    data = remark_json(busy)
    assert data["remark"]["kind"] == "busy_while_measured"
    assert r.remark_from_json(data) == busy
    assert word(busy).startswith("aws:c6i.large: the machine was busy while the bench measured")
    assert "--threads N" in word(busy)


def test_verbose_says_each_warning_once_and_the_rows_intervals_words() -> None:
    """--verbose under the short answer: the run's length not given is said once (under the answer, not again among
    the warnings); a row's wide interval, otherwise only in the JSON, is said too."""
    import json
    from dataclasses import replace

    from planner.core.document_json import from_json
    from planner.report.footer import said_lines

    doc = from_json(json.loads((ROOT / "tests/unit/documents/replan-deadline.json").read_text()))
    length = r.LengthNotGiven(1000, (), 100, 500_000_000)
    first = replace(doc.plan.options[0], interval_note=r.WideInterval(12, 1.4))
    plan = replace(
        doc.plan, warnings=[length, r.NoEpochBoundary()], options=[first, *doc.plan.options[1:]]
    )
    doc = replace(doc, plan=plan)
    terse = "\n".join(said_lines(doc))
    assert "length was not given" not in terse and "no epoch boundary was seen" in terse
    assert f"{first.target} (" in terse and "a wide interval: the 12 step(s) measured" in terse
    assert "length was not given" in "\n".join(said_lines(doc, terse=False))
