"""Issue 16, run journals: `planner plan RUN_DIR` and `planner calibrate RUN_DIR` on a journal that is
cut short, emptied, edited or replaced by something that is not a file give exit 2 and a message
naming the file and the field, never "internal error", a traceback or a hang.

The journal is written by the planner's own writer (RunJournal) with a result a bench could have
produced, then damaged the way a killed run, a full disk or a hand edit damages it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.core.candidates import LOCAL
from planner.journal import Measured, RunJournal, RunRecord
from planner.service.settings import PlanOptions
from planner.workload.spec import parse_spec
from runner.bench.result import BenchResult
from tests.cli.test_bad_input import call, refused
from tests.conftest import TINY_MLP

RESULT = "results/local-cpu.json"


def write_journal(path: Path) -> Path:
    """A small, valid run directory: the tiny MLP measured on this machine's CPU."""
    journal = RunJournal.create("tiny-mlp", path)
    journal.write_spec(parse_spec(json.loads(json.dumps(TINY_MLP))), yaml.safe_dump(TINY_MLP))
    journal.write_run(
        RunRecord(
            "20261121T180000Z-1a2b3c4d",
            ["local"],
            PlanOptions(),
            bench={"device": "auto", "seconds": 1.0, "sweep": False, "threads": None},
        )
    )
    result = BenchResult(
        status="ok",
        device="cpu",
        device_name="test CPU",
        workload="tiny-mlp",
        threads=2,
        batch_size=64,
        steps_per_epoch=4,
        steps_measured=200,
        step_seconds=0.01,
        step_seconds_ci_low=0.0095,
        step_seconds_ci_high=0.0105,
        warmup_seconds=0.2,
        warmup_steps=10,
        setup_seconds=0.1,
    )
    journal.write_result("local-cpu", Measured(LOCAL, result))
    return path


def edit(name: str, **changes: Any) -> Callable[[Path], None]:
    """Set fields of a JSON file in the journal (dotted names reach into objects); None deletes."""

    def apply(run: Path) -> None:
        data = json.loads((run / name).read_text())
        for key, value in changes.items():
            *parents, last = key.split("__")
            holder = data
            for part in parents:
                holder = holder[part]
            if value is None:
                holder.pop(last)
            else:
                holder[last] = value
        (run / name).write_text(
            json.dumps(data)
        )  # json writes NaN and Infinity, as a careless tool would

    return apply


def replace(name: str, text: str | bytes) -> Callable[[Path], None]:
    def apply(run: Path) -> None:
        (run / name).unlink()
        (run / name).write_bytes(text if isinstance(text, bytes) else text.encode())

    return apply


def truncate(name: str) -> Callable[[Path], None]:
    def apply(run: Path) -> None:
        text = (run / name).read_text()
        (run / name).write_text(text[: len(text) // 2])

    return apply


def special(name: str, kind: str) -> Callable[[Path], None]:
    def apply(run: Path) -> None:
        (run / name).unlink()
        os.mkfifo(run / name) if kind == "fifo" else (run / name).mkdir()

    return apply


CORRUPTIONS = {
    "result cut short": (truncate(RESULT), [RESULT, "is not valid JSON (line"]),
    "result empty": (replace(RESULT, ""), [RESULT, "is empty"]),
    "result not UTF-8": (replace(RESULT, b"\xff\xfe{}"), [RESULT, "is not UTF-8 text"]),
    "step_seconds zero": (
        edit(RESULT, step_seconds=0),
        [RESULT, "step_seconds: must be a number between 1e-06 and 86,400 (seconds), got 0"],
    ),
    "step_seconds subnormal": (
        edit(RESULT, step_seconds=5e-324),
        ["step_seconds: must be", "got 5e-324"],
    ),
    "ci absurd": (
        edit(RESULT, step_seconds_ci_high=1e15),
        ["step_seconds_ci_high: must be a number between 0 and 86,400"],
    ),
    "step_seconds negative": (edit(RESULT, step_seconds=-1), ["step_seconds: must be", "got -1"]),
    "step_seconds NaN": (
        edit(RESULT, step_seconds=float("nan")),
        ["step_seconds: must be", "got nan"],
    ),
    "step_seconds infinite": (
        edit(RESULT, step_seconds=float("inf")),
        ["step_seconds: must be", "got inf"],
    ),
    "step_seconds a string": (
        edit(RESULT, step_seconds="fast"),
        ["step_seconds: must be", 'got "fast"'],
    ),
    "step_seconds missing": (
        edit(RESULT, step_seconds=None),
        ["step_seconds: missing (a result with status ok has it)"],
    ),
    "ci missing": (edit(RESULT, step_seconds_ci_low=None), ["step_seconds_ci_low: missing"]),
    "result a list": (
        replace(RESULT, "[1, 2]"),
        [RESULT, "must be a JSON object (one bench result), got a list"],
    ),
    "result a number": (
        replace(RESULT, "3"),
        ["must be a JSON object (one bench result), got a number"],
    ),
    "status unknown": (
        edit(RESULT, status="great"),
        ['status: must be one of ok, does_not_fit, invalid, error, got "great"'],
    ),
    "status missing": (edit(RESULT, status=None), ["status: missing (every result has it)"]),
    "device unknown": (edit(RESULT, device="tpu"), ['device: must be cpu or cuda, got "tpu"']),
    "threads a string": (edit(RESULT, threads="two"), ["threads: must be a whole number from 0"]),
    "threads a bool": (
        edit(RESULT, threads=True),
        ["threads: must be a whole number from 0, got true"],
    ),
    "warnings not a list": (edit(RESULT, warnings="noisy"), ["warnings: must be a list of texts"]),
    "warnings an object without a kind": (
        edit(RESULT, warnings=[{"cv": 0.4}]),
        ["warnings: must be a list of texts or of objects with a kind"],
    ),
    "written by a newer planner": (
        edit(RESULT, schema_version=99),
        [
            "schema_version: must be 1 to 2: a newer planner wrote it (upgrade cloud-planner to read it)"
        ],
    ),
    "setup negative": (
        edit(RESULT, setup_seconds=-3.0),
        ["setup_seconds: must be a finite number from 0, or null"],
    ),
    "target unknown": (
        edit(RESULT, target="gcp:n1"),
        ['target: must be local or aws:INSTANCE_TYPE, got "gcp:n1"'],
    ),
    "region malformed": (
        edit(RESULT, target="aws:g5.xlarge", region="Mars"),
        ["region: must be an AWS region like us-east-1"],
    ),
    "a huge number": (
        replace(RESULT, '{"status": "ok", "device": "cpu", "step_seconds": ' + "9" * 5000 + "}"),
        [RESULT, "a number too long or nesting too deep"],
    ),
    "deep nesting": (replace(RESULT, "[" * 100_000), [RESULT]),
    "result too big": (
        replace(RESULT, " " * (9 << 20) + "{}"),
        [RESULT, "a journal file is at most 8,388,608"],
    ),
    "result a directory": (special(RESULT, "dir"), [RESULT, "is not a regular file"]),
    "result a FIFO": (special(RESULT, "fifo"), [RESULT, "is not a regular file"]),
    "run.json a list": (
        replace("run.json", "[]"),
        ["run.json: must be a JSON object with run_id, targets and plan_options, got a list"],
    ),
    "run.json cut short": (truncate("run.json"), ["run.json: is not valid JSON"]),
    "plan_options a string": (
        edit("run.json", plan_options="cheap"),
        ["run.json: plan_options: must be an object, got a text"],
    ),
    "local price NaN": (
        edit("run.json", plan_options__local_price_per_hour=float("nan")),
        [
            "run.json: plan_options.local_price_per_hour: must be a number between 0 and 10,000 (USD per hour), got nan"
        ],
    ),
    "time value a string": (
        edit("run.json", plan_options__time_value_per_hour="1"),
        ["plan_options.time_value_per_hour: must be"],
    ),
    "deadline negative": (
        edit("run.json", plan_options__deadline_seconds=-5),
        ["plan_options.deadline_seconds: must be a number above 0"],
    ),
    "objective unknown": (
        edit("run.json", plan_options__objective="best"),
        ['plan_options.objective: must be one of cheapest, fastest, deadline, got "best"'],
    ),
    "purchase unknown": (
        edit("run.json", plan_options__purchase="reserved"),
        ["plan_options.purchase: must be on-demand or spot"],
    ),
    "spec.json missing": (
        lambda run: (run / "spec.json").unlink(),
        ["not a run directory (no spec.json)"],
    ),
    "spec.json invalid": (
        edit("spec.json", train__epochs=-1),
        ["invalid spec", "spec.json", "train.epochs"],
    ),
    "spec.json cut short": (truncate("spec.json"), ["invalid spec", "spec.json"]),
    "spec.json a list": (
        replace("spec.json", "[]"),
        ["invalid spec", "spec.json", "a spec is a mapping"],
    ),
    "spec.json a FIFO": (
        special("spec.json", "fifo"),
        ["spec.json: is a named pipe (FIFO), not a spec file"],
    ),
}


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_plan_on_a_damaged_journal_names_the_file_and_the_field(tmp_path, name):
    corrupt, expected = CORRUPTIONS[name]
    run = write_journal(tmp_path / "run")
    corrupt(run)
    refused(call("plan", run), *expected)


@pytest.mark.parametrize(
    "name",
    [
        "result cut short",
        "step_seconds a string",
        "result a list",
        "spec.json invalid",
        "result a FIFO",
    ],
)
def test_calibrate_reads_journals_the_same_way(tmp_path, name):
    corrupt, expected = CORRUPTIONS[name]
    run = write_journal(tmp_path / "run")
    corrupt(run)
    refused(call("calibrate", "--dry-run", run), *expected)


def test_the_undamaged_journal_plans(tmp_path):
    r = call("plan", write_journal(tmp_path / "run"), "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["recommendation"]["target"] == "local"


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda d: d / "missing", "missing: no such directory"),
        (lambda d: d / "file.txt", "file.txt: is a file, not a run directory"),
        (lambda d: d, "not a run directory (no spec.json)"),
        (lambda d: d / ("x" * 300), "has a file or directory name of 300 bytes"),
        (lambda d: str(d) + "/\x00", "contains a NUL character"),
    ],
)
def test_plan_needs_a_run_directory(tmp_path, make, expected):
    (tmp_path / "file.txt").write_text("not a journal")
    r = call("plan", make(tmp_path))
    refused(r, expected, "to fix: give a directory written by `planner run`")


def test_text_from_a_journal_that_looks_like_markup_is_shown_not_parsed(tmp_path, monkeypatch):
    monkeypatch.setenv(
        "COLUMNS", "400"
    )  # the long path on one line, wherever the temporary folder is
    (tmp_path / "runs[").mkdir()
    run = write_journal(tmp_path / "runs[" / "x]")  # the run directory reads "runs[/x]"
    edit(RESULT, status="error", message="needs [/x] [bold]")(
        run
    )  # the table shows a failed result's message
    r = call("plan", run, "--measured-only")
    assert r.code == 1, (
        r.err
    )  # nothing can run it: a runtime answer, not "internal error: MarkupError"
    assert "needs [/x] [bold]" in r.out and f"run journal: {run}" in " ".join(r.err.split())
