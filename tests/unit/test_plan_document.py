"""The plan document's one converter: documents written before it (tests/unit/documents: `planner
estimate --json`, `planner plan --json` and a run's plan.json as main wrote them before the typed
document, and tests/tui/fixtures: a run planned before comparisons were recorded) load into the typed
value, render, and are written back exactly as they were (plus the schema version); a damaged or
newer document is refused by name."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from planner.core.decide import Option, decide
from planner.core.document import (
    SCHEMA_VERSION,
    PlanDocument,
    PlanOptions,
    WorkloadSummary,
)
from planner.core.document_json import from_json, to_json
from planner.core.remarks import NoUsableInterval
from planner.errors import InputError
from planner.journal import RunJournal
from planner.report.answers import (
    answers_text,
    left_running_line,
    plan_answers,
    recommendation_text,
)
from planner.report.plan import plan_table
from planner.report.text import to_json as json_text
from planner.report.title import plan_title as plan_title_of
from tests.conftest import ROOT

DOCUMENTS = Path(__file__).parent / "documents"
WRITTEN_BEFORE = sorted(DOCUMENTS.glob("*.json")) + [
    ROOT / "tests/tui/fixtures/surface-mlp-plan.json",
    ROOT / "tests/tui/fixtures/run-surface-mlp/plan.json",
    DOCUMENTS / "run-local/plan.json",
]

# a recommendation's fields added after these documents were written
ADDED_SINCE = ("choice_rival", "choice_rival_of", "rule_gpu", "choice_basis")
WORDS = (
    "reason",
    "choice",
)  # the decision's words: worded from the facts when a document is shown (report/why.py)


def facts(data: dict) -> dict:
    """A document written before, less its decision's words, its warnings and its options' notes as 6 writes the
    words of a document written before remarks were facts: each a `worded` remark (an empty one: none)."""
    data["warnings"] = [{"kind": "worded", "text": w} for w in data.get("warnings", [])]
    for o in data.get("options", []):
        for key in ("interval_note", "caveat"):
            if key in o:
                o[key] = {"kind": "worded", "text": o[key]} if o[key] else None
        if "note" in o:
            o["note"] = [{"kind": "worded", "text": o["note"]}] if o["note"] else []
    recs = [
        data["recommendation"],
        *data.get("answers", {}).values(),
        data.get("cloud_recommendation") or {},
    ]
    for rec in recs:
        for word in WORDS:
            rec.pop(word, None)
        for key in ("comparison", "choice_comparison"):
            if rec.get(
                key
            ):  # the band's reason: words since its facts (band_benches, band_predicted)
                rec[key].pop("band_reason", None)
    return data


def kept(old, new) -> bool:
    """Every key and value of `old` is in `new` (which may hold more keys), at any depth."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(k in new and kept(v, new[k]) for k, v in old.items())
    if isinstance(old, list):
        return (
            isinstance(new, list)
            and len(old) == len(new)
            and all(kept(a, b) for a, b in zip(old, new))
        )
    return old == new


@pytest.mark.parametrize("path", WRITTEN_BEFORE, ids=lambda p: p.parent.name + "/" + p.name)
def test_a_document_written_before_loads_renders_and_is_written_back_as_it_was(path):
    data = json.loads(path.read_text())
    assert "schema_version" not in data  # written before the version was stated
    doc = from_json(data, str(path))
    data = facts(data)
    assert isinstance(doc, PlanDocument) and doc.plan.options and doc.recommendation.verdict
    again = to_json(doc)
    assert again.pop("schema_version") == SCHEMA_VERSION
    assert (
        again.pop("notes") == []
    )  # version 3's notes: what older documents said is all in their warnings
    if (
        "comparison" in data["recommendation"]
    ):  # written by the current decision: every key kept, in order
        for rec in [
            again["recommendation"],
            *again["answers"].values(),
            again.get("cloud_recommendation") or {},
        ]:
            for added in ADDED_SINCE:  # but fields added since, at their defaults
                if added not in data["recommendation"]:
                    assert rec.pop(added, None) is None
            for key in ("comparison", "choice_comparison"):
                if rec.get(key):  # the band's facts, added since: the margin's, or the bench's
                    assert rec[key].pop("band_benches") in ([], ["local-cpu"])
                    assert rec[key].pop("band_predicted") is False
        for option in again["options"]:  # added since: whether the bench is a prediction itself
            if option.get("basis"):
                assert option["basis"].pop("bench_predicted") is False
        assert again == data and list(again) == list(data)
    else:  # older: what it held is kept, at any depth; fields added since take their defaults
        assert kept(data, again)
    table = plan_table(doc, width=120)
    assert len(table.rows) == len(data["options"])
    assert recommendation_text(doc).startswith("[bold]")
    assert [k for k, _ in plan_answers(doc)][0] == "recommendation"
    shown = json.loads(json_text(doc))  # strict JSON, the words worded again beside the facts
    assert shown["recommendation"]["reason"] and all(a["reason"] for a in shown["answers"].values())


@pytest.mark.parametrize("name", ["script-convnet-v2.json", "script-reinforce-v3.json"])
def test_a_script_plan_of_schema_3_or_before_reads_as_4_writes_it(name):
    """3 wrote a script's workload with zeros, its arguments joined as data_location and its step boundary as task."""
    data = json.loads((DOCUMENTS / "versions" / name).read_text())
    doc = from_json(data, name)
    w = doc.workload
    assert w.kind == "script" and w.step_boundary == "optimizer" and w.task is None
    assert w.samples is None and w.batch_size is None and w.data_location is None
    if "convnet" in name:  # an epoch was seen: 20 of 32 steps
        assert w.script_args == ["--epochs", "20"] and (w.epochs, w.steps_per_epoch) == (20, 32)
    else:  # none was: not zero epochs, unknown
        assert (
            w.script_args == ["--episodes", "100000"]
            and w.epochs is None
            and w.steps_per_epoch is None
        )
    again = to_json(doc)
    assert (
        again["schema_version"] == SCHEMA_VERSION
        and again["workload"]["script_args"] == w.script_args
    )
    assert from_json(again) == doc  # and 4 reads what it wrote
    assert plan_title_of(doc).startswith(
        f"examples/scripts/{name.split('-')[1]}.py {' '.join(w.script_args)}: "
    )


def test_the_infinities_strict_json_nulls_come_back_as_infinite():
    data = json.loads((DOCUMENTS / "replan-run-with-aws.json").read_text())
    unbounded = [o for o in data["options"] if o.get("train_seconds_high_note")]
    doc = from_json(data)
    if unbounded:
        row = next(o for o in doc.plan.options if o.target == unbounded[0]["target"])
        assert row.train_seconds_high == math.inf
    fresh = decide(
        [
            Option(
                "local",
                "cpu",
                "measured",
                0.0,
                train_seconds=10.0,
                train_seconds_low=5.0,
                train_seconds_high=math.inf,
                interval_note=NoUsableInterval(1, None),
            )
        ]
    )
    doc = PlanDocument(
        WorkloadSummary("w", "mlp", "classification", 10, 10, 1, 1, 1, "fp32", "device"),
        fresh,
        PlanOptions(),
    )
    data = to_json(doc)
    assert (
        data["options"][0]["train_seconds_high"] is None
        and "unbounded" in data["options"][0]["train_seconds_high_note"]
    )
    assert from_json(data) == doc


def test_a_run_document_keeps_what_the_run_could_not_terminate():
    doc = from_json(json.loads((DOCUMENTS / "run-with-leftover.json").read_text()))
    assert doc.failed_targets == ["aws-g4dn.xlarge"] and doc.bench_cost_usd == 0.0123
    left = doc.unterminated or []
    assert [x.instance_id for x in left] == ["i-0123456789abcdef0"]
    assert (
        "planner reap --region us-east-1 --run-id 20261124T120000Z-1a2b3c4d"
        in left_running_line(left[0])
    )
    assert [c.target for c in doc.auto or []] == ["aws:g5.xlarge"]


def test_a_journal_written_before_reads_its_plan_through_the_converter(tmp_path):
    run = shutil.copytree(DOCUMENTS / "run-local", tmp_path / "run")
    doc = RunJournal.open(run).read_plan()
    assert isinstance(doc, PlanDocument) and doc.recommendation.target == "local"
    assert doc.failed_targets == [] and doc.unterminated == []


def test_a_newer_or_damaged_document_is_refused_by_name():
    data = json.loads((DOCUMENTS / "replan-measured-only.json").read_text())
    with pytest.raises(InputError, match="schema_version 99 is newer"):
        from_json({**data, "schema_version": 99}, "plan.json")
    with pytest.raises(InputError, match=r"plan.json: plan\.recommendation\.verdict"):
        from_json(
            {**data, "recommendation": {**data["recommendation"], "verdict": "maybe"}}, "plan.json"
        )
    with pytest.raises(InputError, match="not a plan document"):
        from_json([], "plan.json")


def test_a_damaged_plan_json_in_a_journal_names_the_file_and_the_field(tmp_path):
    from planner.errors import JournalError

    run = shutil.copytree(DOCUMENTS / "run-local", tmp_path / "run")
    data = json.loads((run / "plan.json").read_text())
    data["objective"] = "soonest"
    (run / "plan.json").write_text(json.dumps(data))
    with pytest.raises(JournalError, match="plan.json") as caught:
        RunJournal.open(run).read_plan()
    assert "objective" in str(caught.value)


def test_answers_of_a_document_with_both_answers_are_rendered_from_it():
    doc = from_json(json.loads((DOCUMENTS / "replan-run-with-aws.json").read_text()))
    lines = answers_text(doc)
    assert [line.split("[/]")[0].strip() for line in lines] == ["[bold]Here:", "[bold]If you rent:"]


def test_a_scripts_epochs_in_its_title_are_what_the_arithmetic_gives():
    from planner.report.title import _epochs_of

    assert _epochs_of(5120, 128) == "40 epochs x 128" and _epochs_of(128, 128) == "1 epoch x 128"
    assert (
        _epochs_of(100_000, 313) == "319.5 epochs of 313 steps"
    )  # not '319 epochs x 313' (99,847)
    assert _epochs_of(5, 32) == "0.16 of an epoch of 32 steps"  # not '0 epochs x 32'
