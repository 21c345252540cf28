"""Which rows a table shows (planner/core/shown.py, issue 27): the grouping rule on plain row facts, on
plans the planner wrote, and the paid benchmark a plan that trains here does not suggest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.core.document_json import from_json
from planner.core.shown import RowFacts, plan_row_facts, shown_options, shown_rows
from planner.report.answers import predicted_footer
from planner.report.plan import plan_table, shown_line

DOCUMENTS = Path(__file__).parent / "documents"

CPU = RowFacts("aws:c6i.xlarge")
ROWS = [
    RowFacts("local", here=True),  # 0 this machine: always, in no group
    RowFacts("aws:c6i.xlarge"),  # 1 the best CPU
    RowFacts("aws:c7i.xlarge"),  # 2 another CPU
    RowFacts("aws:g4dn.xlarge", "T4", 1),  # 3 best T4, best 1-GPU
    RowFacts("aws:g4dn.2xlarge", "T4", 1),  # 4 a T4 again, one GPU again
    RowFacts("aws:g5.xlarge", "A10G", 1),  # 5 best A10G
    RowFacts("aws:g4dn.12xlarge", "T4", 4),  # 6 best 4-GPU
    RowFacts("aws:g5.12xlarge", "A10G", 4),  # 7 A10G and 4 GPUs: both seen
    RowFacts("aws:g5.12xlarge", "A10G", 1),  # 8 the same instance at one GPU
    RowFacts("aws:p5.48xlarge", "H100", 8, keep=True),  # 9 an answer: always
]


def test_gpu_grouping_keeps_the_best_of_each_gpu_model_and_count_and_the_best_cpu_in_order():
    shown = shown_rows(ROWS)
    assert shown.indices == (0, 1, 3, 5, 6, 9) and shown.total == 10 and shown.omitted == 4
    assert shown_line(shown) == "6 of 10 rows shown; --all for every row"


def test_instance_grouping_keeps_one_row_per_instance_type_and_none_every_row():
    assert shown_rows(ROWS, "instance").indices == (
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        9,
    )  # g5.12xlarge once, at its best
    assert shown_rows(ROWS, "none").indices == tuple(range(10))
    assert shown_line(shown_rows(ROWS, "none")) == ""  # nothing left out: no line


def test_max_rows_caps_after_grouping_keeping_what_is_always_shown_and_the_order():
    assert shown_rows(ROWS, "gpu", max_rows=3).indices == (
        0,
        1,
        9,
    )  # this machine and the answer first
    assert shown_rows(ROWS, "none", max_rows=4).indices == (0, 1, 2, 9)
    assert shown_rows(ROWS, "gpu", max_rows=100).indices == shown_rows(ROWS).indices


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="group_by"):
        shown_rows(ROWS, "model")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_rows"):
        shown_rows(ROWS, max_rows=0)
    assert shown_rows([]).indices == ()


def test_a_plan_shows_its_headline_answers_references_and_a_row_per_gpu_model_and_count():
    doc = from_json(json.loads((DOCUMENTS / "replan-run-with-aws.json").read_text()))
    options, shown = shown_options(doc)
    kept = [f for f in plan_row_facts(doc) if f.always]
    gpus = [o for o in doc.plan.options if o.device == "cuda"]
    models = {o.device_name.split(" (")[0] for o in gpus if o.source == "predicted"}
    counts = {
        o.gpus_used for o in gpus if o.instances == 1
    }  # several instances (on paper): no count group of their own
    assert shown.total == len(doc.plan.options) == 64
    assert (
        len(options) <= len(models) + len(counts) + 1 + len(kept) and len(options) == 14
    )  # 4 kept: 3 measured, local
    ranks = [o.rank for o in options if o.rank is not None]
    assert ranks == sorted(ranks)  # the plan's order
    keys = {o.key for o in options}
    named = [doc.recommended, *(doc.plan.option_of(rec) for rec in doc.plan.answers.values())]
    assert all(o is not None and o.key in keys for o in named)
    assert {o.target for o in options} >= set(doc.plan.references.values())
    assert all(o.key in keys for o in doc.plan.options if o.source == "measured" or o.here)
    assert all(any(m in o.device_name for o in options if o.device == "cuda") for m in models)
    assert (
        len([o for o in options if "A10G" in o.device_name]) == 1
    )  # measured "NVIDIA A10G" is the A10G group's best
    assert {o.gpus_used for o in options if o.device == "cuda"} == counts
    facts = plan_row_facts(doc)
    assert [f.instance for f in facts] == [o.target for o in doc.plan.options]
    table = plan_table(doc, width=200, options=options)
    assert table.row_count == len(options)


def test_a_plan_that_trains_here_clearly_suggests_no_paid_benchmark():
    here = from_json(json.loads((DOCUMENTS / "replan-run-with-aws.json").read_text()))
    assert here.trains_here_clearly and here.benchmark and here.suggested_benchmarks == []
    lines = "\n".join(predicted_footer(here, "spec.yaml"))
    assert (
        "planner run" not in lines
        and "No paid benchmark needed: training here wins clearly" in lines
    )
    rent = from_json(json.loads((DOCUMENTS / "estimate-predict-only.json").read_text()))
    assert not rent.trains_here_clearly and rent.suggested_benchmarks == rent.benchmark
    assert "-> planner run spec.yaml --targets local," in "\n".join(
        predicted_footer(rent, "spec.yaml")
    )
    deadline = from_json(json.loads((DOCUMENTS / "replan-deadline.json").read_text()))
    assert not deadline.trains_here_clearly  # no here-against-rent comparison to call it clear by


@pytest.mark.parametrize("name", ["replan-run-with-aws.json", "estimate-predict-only.json"])
def test_at_80_columns_the_grouped_plan_cuts_no_number(name):
    from rich.console import Console

    doc = from_json(json.loads((DOCUMENTS / name).read_text()))
    options, _ = shown_options(doc)
    console = Console(width=80, record=True)
    console.print(plan_table(doc, width=80, options=options))
    text = console.export_text()
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if "target" in line and "b-even" in line)
    rows = lines[head + 2 : head + 2 + len(options)]
    numbers = [
        row for row in rows if "failed" not in row and "does not fit" not in row
    ]  # (their notes are cut)
    assert (
        len(rows) == len(options) and numbers and not any("…" in row for row in numbers)
    )  # compact, not cut
    assert all(len(line) <= 80 for line in lines)
    assert "Not shown at this width" in text
