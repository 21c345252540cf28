"""The journal's own checks: what a result and run.json may hold, the run directory before a run,
and writes that fail. (The CLI's view of a damaged journal: tests/cli/test_bad_input_journal.py.)"""

from __future__ import annotations

import json
import os
from dataclasses import fields

import pytest

from planner.core.candidates import LOCAL
from planner.errors import InputError, JournalError, RunError
from planner.journal import Measured, RunJournal, RunRecord, check_run_dir
from planner.journal_checks import _BY_TYPE, plan_option_problems, result_problems
from planner.service.settings import PlanOptions
from planner.units import USD_PER_HOUR
from runner.bench.result import BenchResult

OK = BenchResult(
    status="ok",
    device="cpu",
    step_seconds=0.01,
    step_seconds_ci_low=0.009,
    step_seconds_ci_high=0.011,
)


def test_every_field_of_a_bench_result_has_a_check():
    # a field added to BenchResult with a new kind of type must be given a check, not waved through
    assert {str(f.type) for f in fields(BenchResult)} <= set(_BY_TYPE)


def test_what_the_planner_writes_passes_its_own_checks():
    assert result_problems("local-cpu", Measured(LOCAL, OK).to_dict()) == []
    assert plan_option_problems({"plan_options": PlanOptions().as_dict()}) == []
    assert (
        plan_option_problems(
            {"plan_options": PlanOptions(deadline_seconds=3600, time_value_per_hour=20).as_dict()}
        )
        == []
    )


def test_results_that_did_not_run_need_no_step_time():
    failed = BenchResult(status="does_not_fit", device="cuda", message="CUDA out of memory")
    assert result_problems("local-cuda", Measured(LOCAL, failed).to_dict()) == []


@pytest.mark.parametrize("value", [10**400, -(10**400), float("nan"), True, "1", None])
def test_ranges_read_back_refuse_what_no_flag_accepts(value):
    assert not USD_PER_HOUR.holds(
        value
    )  # never converts a 400-digit integer to a float (OverflowError)


def test_a_result_with_several_problems_lists_them():
    data = {**OK.to_dict(), "step_seconds": -1, "device": "tpu", "threads": 1.5}
    assert [p.split(":")[0] for p in result_problems("local-cpu", data)] == [
        "device",
        "threads",
        "step_seconds",
    ]
    data.update(
        step_seconds=0.0, device="cpu", threads=2
    )  # sound fields; a step of 0 s is what status ok may not have
    assert result_problems("local-cpu", data) == [
        "step_seconds: must be a number between 1e-06 and 86,400 (seconds), got 0.0"
    ]


def test_a_label_without_a_target_must_name_an_instance_type():
    data = OK.to_dict()
    assert result_problems("aws-g5.xlarge", data) == []
    assert result_problems("aws-../../etc", data) == [
        'the file name: "aws-../../etc" is not local-DEVICE or aws-INSTANCE_TYPE'
    ]


def test_open_refuses_too_many_results(tmp_path):
    journal = RunJournal.create("w", tmp_path / "run")
    (journal.path / "spec.json").write_text("{}")
    for i in range(1001):
        (journal.path / "results" / f"local-{i}.json").write_text("{}")
    with pytest.raises(JournalError, match="1,001 result files; a run has at most 1,000"):
        RunJournal.open(journal.path).read_results()


def test_the_run_directory_is_checked_before_a_run(tmp_path):
    (tmp_path / "file").write_text("x")
    assert check_run_dir(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert check_run_dir(tmp_path / "empty-later") == tmp_path / "empty-later"
    (tmp_path / "empty").mkdir()
    assert check_run_dir(tmp_path / "empty") == tmp_path / "empty"
    for bad, message in [
        (tmp_path / "file", "is a file, not a directory"),
        (tmp_path / "file" / "run", "file is a file"),
        (tmp_path, "exists and is not empty"),
    ]:
        with pytest.raises(InputError, match=message):
            check_run_dir(bad)


def test_create_refuses_what_check_refuses_and_writes_nothing(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="--out .*file: is a file"):
        RunJournal.create("w", tmp_path / "file")
    assert (tmp_path / "file").read_text() == "x"


def test_a_failed_write_is_a_run_error_and_leaves_no_temporary_file(tmp_path):
    journal = RunJournal.create("w", tmp_path / "run")
    os.rmdir(journal.path / "results")
    (journal.path / "results").write_text("not a directory any more")
    with pytest.raises(RunError, match="cannot write .*local-cpu.json: Not a directory"):
        journal.write_result("local-cpu", Measured(LOCAL, OK))
    assert sorted(p.name for p in journal.path.iterdir()) == ["results"]


def test_read_plan_and_read_run_when_absent(tmp_path):
    journal = RunJournal.create("w", tmp_path / "run")
    assert journal.read_plan() is None and journal.read_run() == RunRecord()
    (journal.path / "plan.json").write_text("[]")
    with pytest.raises(JournalError, match="plan.json: must be a JSON object"):
        journal.read_plan()


def test_run_json_reads_back_typed_and_an_older_one_keeps_its_defaults(tmp_path):
    journal = RunJournal.create("w", tmp_path / "run")
    record = RunRecord(
        "20261130T060000Z-1a2b3c4d",
        ["local", "aws:c6i.large"],
        PlanOptions(objective="fastest", region="eu-west-1"),
        bench={"device": "auto", "seconds": 5.0},
        footprint_bytes=1_000,
    )
    record.notices.append({"label": "aws-c6i.large", "text": "launched in us-east-1b"})
    journal.write_run(record)
    assert journal.read_run() == record
    assert (
        json.loads((journal.path / "run.json").read_text())["plan_options"]["region"] == "eu-west-1"
    )
    # an older run.json: no bench, no footprint, its plan options partial, a notices field not a list
    (journal.path / "run.json").write_text(
        json.dumps(
            {
                "run_id": "x",
                "targets": ["local"],
                "plan_options": {"purchase": "spot"},
                "notices": 3,
            }
        )
    )
    older = journal.read_run()
    assert older.plan_options == PlanOptions(purchase="spot") and older.notices == []
    assert older.bench is None and older.footprint_bytes is None
    # hand-edited: targets not a list is read as none (planner plan RUN_DIR needs only the plan options)
    for targets in (None, "local", 3):
        (journal.path / "run.json").write_text(json.dumps({"targets": targets, "plan_options": {}}))
        assert journal.read_run().targets == []
