"""What the tables print (issue 27), as a user runs the commands: grouped rows by default (--group-by,
--all, --max-rows; JSON keeps every row), --format table|json|csv|markdown with the table's column
names in every format, --out-file checked before any work, no trailing spaces in piped output. (No paid
benchmark suggested where training here wins: tests/cli/test_run_plan.py.)"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil

import pytest

from planner.report.plan import PLAN_COLUMNS
from tests.cli.helpers import planner
from tests.conftest import EXAMPLES, ROOT

SAVED_RUN = ROOT / "tests/tui/fixtures/run-surface-mlp"  # `planner run examples/surface-mlp.yaml --targets local`
ROW = re.compile(r"^ *(✔ +)?(\d+|-) +(local|aws:\S+) ")  # a plan table's row: mark, rank, target


def rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if ROW.match(line)]


@pytest.fixture
def run_dir(tmp_path):
    """A copy of a saved run: `planner plan` predicts every instance from it, measuring nothing (and
    writes plan.json into it)."""
    return shutil.copytree(SAVED_RUN, tmp_path / "run")


@pytest.fixture
def cache(tmp_path):
    return {"PLANNER_CACHE_DIR": str(tmp_path / "cache")}  # the bundled price snapshot


def plan(run_dir, cache, *args: str):
    r = planner("plan", run_dir, "--region", "us-east-1", *args, env=cache)
    assert r.code == 0, r.err
    return r


def test_estimate_prints_a_grouped_plan_without_trailing_spaces_and_json_keeps_every_option(tmp_path, cache):
    """The acceptance of issue 27, with make run's command: at most ~15 rows, a GPU row with its speedup,
    the line saying how many of how many, and piped lines without the padding rich adds."""
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--seconds", "1", env=cache)
    assert r.code == 0, r.err
    shown = rows(r.out)
    assert 5 <= len(shown) <= 15
    assert any(re.search(r"\b(T4|L4|A10G|H100)\b.* \d+\.\d\dx +\d+\.\d\dx *$", line) for line in shown)  # speedup, b-even
    ranks = [int(ROW.match(line).group(2)) for line in shown if ROW.match(line).group(2) != "-"]
    assert ranks == sorted(ranks) and ranks[0] == 1  # the plan's order, the headline first
    said = re.search(r"^Shown (\d+) of (\d+) options; --all for every row$", r.out, re.M)
    assert said and int(said.group(1)) == len(shown)
    assert [line for line in r.out.splitlines() if line.endswith(" ")] == []  # `| grep -c ' $'` finds none
    doc = json.loads(planner("estimate", EXAMPLES / "surface-mlp.yaml", "--seconds", "1", "--predict-only", "--json",
                             env=cache).out)
    assert len(doc["options"]) == int(said.group(2)) - 1  # every option in JSON (predict-only: no local row)


def test_group_by_all_and_max_rows_choose_the_rows_in_the_plans_order(run_dir, cache):
    every = json.loads(plan(run_dir, cache, "--json", "--max-rows", "2").out)["options"]  # JSON: every row, always
    grouped = rows(plan(run_dir, cache).out)
    assert len(grouped) <= 15 < len(every)
    all_rows = plan(run_dir, cache, "--all")
    assert len(rows(all_rows.out)) == len(every) and "Shown" not in all_rows.out
    assert len(rows(plan(run_dir, cache, "--group-by", "none").out)) == len(every)
    by_instance = rows(plan(run_dir, cache, "--group-by", "instance").out)
    targets = [line.split()[2 if line.lstrip().startswith("✔") else 1] for line in by_instance]
    assert len(targets) == len(set(targets)) == len({o["target"] for o in every})  # one row per instance type
    three = plan(run_dir, cache, "--max-rows", "3")
    assert len(rows(three.out)) == 3 and f"Shown 3 of {len(every)} options; --all for every row" in three.out
    assert rows(three.out)[0].lstrip().startswith("✔")  # the headline is never the row left out


def test_csv_and_markdown_carry_the_tables_column_names_and_its_grouped_rows(run_dir, cache):
    table = rows(plan(run_dir, {**cache, "COLUMNS": "250"}, "--wide").out)  # every column, none cut
    r = plan(run_dir, cache, "--format", "csv")
    parsed = list(csv.reader(io.StringIO(r.out)))
    assert parsed[0] == list(PLAN_COLUMNS)  # the table's names, every column
    assert len(parsed) - 1 == len(table) and parsed[1][:3] == ["✔", "1", "local"]
    assert [row[2] for row in parsed[1:]] == [ROW.match(line).group(3) for line in table]
    assert "Shown" in r.err and "Recommendation" not in r.out  # the table alone on stdout
    md = plan(run_dir, cache, "--format", "markdown").out.splitlines()
    assert md[0] == "| " + " | ".join(PLAN_COLUMNS) + " |" and set(md[1]) <= set("|-: ")
    assert len(md) - 2 == len(table) and all(line.startswith("| ") and line.endswith(" |") for line in md)
    assert plan(run_dir, cache, "--format", "json").out == plan(run_dir, cache, "--json").out


def test_prices_are_grouped_the_same_way(cache):
    r = planner("prices", "--region", "us-east-1", "--format", "csv", env=cache)
    assert r.code == 0, r.err
    parsed = list(csv.reader(io.StringIO(r.out)))
    assert parsed[0] == ["instance", "vCPUs", "GiB", "GPU", "GPU GiB", "on-demand", "spot"]
    gpus = [row[3] for row in parsed[1:] if row[3] != "-"]
    assert len(gpus) == len(set(gpus)) and len([row for row in parsed[1:] if row[3] == "-"]) == 1  # one CPU: the cheapest
    assert parsed[1][0] == "c6i.xlarge" and re.search(r"Shown \d+ of \d+ options; --all for every row", r.err)
    every = json.loads(planner("prices", "--region", "us-east-1", "--json", env=cache).out)["instances"]
    assert len(list(csv.reader(io.StringIO(planner("prices", "--region", "us-east-1", "--all", "--format", "csv",
                                                   env=cache).out)))) - 1 == len(every)
    table = planner("prices", "--region", "us-east-1", env=cache).out
    assert "Shown" in table and [line for line in table.splitlines() if line.endswith(" ")] == []


def test_check_in_every_format_and_out_file_writes_the_output_there(tmp_path):
    spec = EXAMPLES / "surface-mlp.yaml"
    r = planner("check", spec, "--format", "csv")
    assert r.code == 0 and r.out.splitlines()[0] == "field,value" and "parameters,171 (171)" in r.out
    out = tmp_path / "check.md"
    r = planner("check", spec, "--format", "markdown", "--out-file", out)
    assert r.code == 0 and r.out == "" and out.read_text().startswith("| field | value |\n| --- | --- |\n| parameters |")
    r = planner("check", spec, "--out-file", tmp_path / "check.json", "--json")
    assert json.loads((tmp_path / "check.json").read_text())["workload"] == "surface-mlp"


@pytest.mark.parametrize("args, said", [
    (("--out-file", "{tmp}/nowhere/plan.txt"), "--out-file {tmp}/nowhere/plan.txt: the directory {tmp}/nowhere does not exist"),
    (("--out-file", "{tmp}"), "--out-file {tmp}: is a directory"),
    (("--json", "--format", "csv"), "--json and --format csv: two formats"),
    (("--all", "--group-by", "gpu"), "--all and --group-by: --all shows every row"),
    (("--all", "--max-rows", "4"), "--all and --max-rows: --all shows every row"),
    (("--max-rows", "0"), "must be a whole number between 1 and 100,000 (rows), got '0'"),
    (("--format", "xml"), "invalid choice: 'xml'"),
])
def test_bad_output_flags_are_refused_before_any_work(tmp_path, args, said):
    args = tuple(a.replace("{tmp}", str(tmp_path)) for a in args)
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", *args)  # would measure for 5 s: refused first
    assert r.code == 2, r.err
    assert said.replace("{tmp}", str(tmp_path)) in r.err and "Traceback" not in r.err
    assert "measuring" not in r.err and r.out in ("", "\n") or r.out.lstrip().startswith("{")
