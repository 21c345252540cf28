"""What the tables print (issue 27), as a user runs the commands: grouped rows by default (--group-by,
--all, --max-rows; JSON keeps every row), --format table|json|csv|markdown with the table's column
names in every format, --out-file checked before any work, no trailing spaces in piped output. (No paid
benchmark suggested where training here wins: tests/cli/test_run_plan.py.)"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil

import pytest

from planner.report.plan import PLAN_COLUMNS
from tests.cli.helpers import planner
from tests.conftest import EXAMPLES, ROOT

SAVED_RUN = (
    ROOT / "tests/tui/fixtures/run-surface-mlp"
)  # `planner run examples/surface-mlp.yaml --targets local`
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


def test_estimate_prints_a_grouped_plan_without_trailing_spaces_and_json_keeps_every_option(
    tmp_path, cache
):
    """The acceptance of issue 27, with make run's command: at most ~15 rows, a GPU row with its speedup,
    the line saying how many of how many, and piped lines without the padding rich adds."""
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--seconds", "1", env=cache)
    assert r.code == 0, r.err
    shown = rows(r.out)
    assert 5 <= len(shown) <= 15
    assert any(
        re.search(r"\b(T4|L4|A10G|H100)\b.* \d+\.\d\dx +\d+\.\d\dx *$", line) for line in shown
    )  # speedup, b-even
    ranks = [int(ROW.match(line).group(2)) for line in shown if ROW.match(line).group(2) != "-"]
    assert ranks == sorted(ranks) and ranks[0] == 1  # the plan's order, the headline first
    said = re.search(
        r"^--all every row \((\d+) of (\d+) shown\),\s(--wide \d+ more columns?,\s)?--explain why"
        r"(,\s--verbose (\d+ warnings?)?(\sand\s)?(\d+ notes?)?)?$",
        r.out,
        re.M,
    )
    assert said and int(said.group(1)) == len(shown)
    assert [
        line for line in r.out.splitlines() if line.endswith(" ")
    ] == []  # `| grep -c ' $'` finds none
    doc = json.loads(
        planner(
            "estimate",
            EXAMPLES / "surface-mlp.yaml",
            "--seconds",
            "1",
            "--predict-only",
            "--json",
            env=cache,
        ).out
    )
    assert (
        len(doc["options"]) == int(said.group(2)) - 1
    )  # every option in JSON (predict-only: no local row)


def test_group_by_all_and_max_rows_choose_the_rows_in_the_plans_order(run_dir, cache):
    every = json.loads(plan(run_dir, cache, "--json", "--max-rows", "2").out)[
        "options"
    ]  # JSON: every row, always
    grouped = rows(plan(run_dir, cache).out)
    assert len(grouped) <= 15 < len(every)
    all_rows = plan(run_dir, cache, "--all")
    assert len(rows(all_rows.out)) == len(every) and "Shown" not in all_rows.out
    assert len(rows(plan(run_dir, cache, "--group-by", "none").out)) == len(every)
    by_instance = rows(plan(run_dir, cache, "--group-by", "instance").out)
    targets = [line.split()[2 if line.lstrip().startswith("✔") else 1] for line in by_instance]
    assert (
        len(targets) == len(set(targets)) == len({o["target"] for o in every})
    )  # one row per instance type
    three = plan(run_dir, cache, "--max-rows", "3")
    assert len(rows(three.out)) == 3 and f"--all every row (3 of {len(every)} shown)" in three.out
    assert rows(three.out)[0].lstrip().startswith("✔")  # the headline is never the row left out


def test_csv_is_every_option_as_numbers_and_markdown_the_grouped_table(run_dir, cache):
    """Issue 40: CSV is data (every option, numbers in SI units that pandas reads as numbers, never '4.0 d' or
    '$0.05'); markdown is the table a person reads, its column names and grouped rows."""
    import pandas as pd

    from planner.report.plan_csv import PLAN_CSV_COLUMNS

    table = rows(
        plan(run_dir, {**cache, "COLUMNS": "250"}, "--wide", "--explain").out
    )  # every column and grouped row
    doc = json.loads(plan(run_dir, cache, "--json").out)
    r = plan(run_dir, cache, "--format", "csv")
    frame = pd.read_csv(io.StringIO(r.out))
    assert list(frame.columns) == list(PLAN_CSV_COLUMNS) and len(frame) == len(doc["options"])
    for column in (
        "rank",
        "step_s",
        "train_s",
        "train_low_s",
        "train_high_s",
        "usd_per_hour",
        "cost_usd",
        "speedup",
        "break_even_speedup",
        "gpus",
    ):
        assert pd.api.types.is_numeric_dtype(frame[column]), column
    assert (
        frame["recommended"].sum() == 1
        and frame.loc[frame["recommended"], "target"].item() == doc["recommendation"]["target"]
    )
    first = doc["options"][0]
    assert (
        frame.loc[0, "train_s"] == pytest.approx(first["train_seconds"])
        and frame.loc[0, "target"] == first["target"]
    )
    gpu = frame[frame["device"] == "cuda"].iloc[
        0
    ]  # cost = the hourly rate (instance and disk) x the billed time
    assert gpu["cost_usd"] == pytest.approx(
        gpu["usd_per_hour"] * max(math.ceil(gpu["train_s"]), 60) / 3600, rel=1e-9
    )
    assert "Recommendation" not in r.out and "Shown" not in r.err  # data alone, all of it
    md = plan(run_dir, cache, "--format", "markdown").out.splitlines()
    assert md[0] == "| " + " | ".join(PLAN_COLUMNS) + " |" and set(md[1]) <= set("|-: ")
    assert len(md) - 2 == len(table) and all(
        line.startswith("| ") and line.endswith(" |") for line in md
    )
    assert plan(run_dir, cache, "--format", "json").out == plan(run_dir, cache, "--json").out


def test_prices_are_grouped_the_same_way(cache):
    r = planner("prices", "--region", "us-east-1", "--format", "csv", env=cache)
    assert r.code == 0, r.err
    parsed = list(csv.reader(io.StringIO(r.out)))
    assert parsed[0] == ["instance", "vCPUs", "GiB", "GPU", "GPU GB", "on-demand", "spot"]
    gpus = [row[3] for row in parsed[1:] if row[3] != "-"]
    assert (
        len(gpus) == len(set(gpus)) and len([row for row in parsed[1:] if row[3] == "-"]) == 1
    )  # one CPU: the cheapest
    assert parsed[1][0] == "c6i.xlarge" and re.search(
        r"\d+ of \d+ rows shown; --all for every row", r.err
    )
    every = json.loads(planner("prices", "--region", "us-east-1", "--json", env=cache).out)[
        "instances"
    ]
    assert len(
        list(
            csv.reader(
                io.StringIO(
                    planner(
                        "prices", "--region", "us-east-1", "--all", "--format", "csv", env=cache
                    ).out
                )
            )
        )
    ) - 1 == len(every)
    table = planner("prices", "--region", "us-east-1", env=cache).out
    assert (
        "rows shown" in table and [line for line in table.splitlines() if line.endswith(" ")] == []
    )


def test_check_in_every_format_and_out_file_writes_the_output_there(tmp_path):
    spec = EXAMPLES / "surface-mlp.yaml"
    r = planner("check", spec, "--format", "csv")
    assert (
        r.code == 0 and r.out.splitlines()[0] == "field,value" and "parameters,171 (171)" in r.out
    )
    out = tmp_path / "check.md"
    r = planner("check", spec, "--format", "markdown", "--out-file", out)
    assert (
        r.code == 0
        and r.out == ""
        and out.read_text().startswith("| field | value |\n| --- | --- |\n| parameters |")
    )
    r = planner("check", spec, "--out-file", tmp_path / "check.json", "--json")
    assert json.loads((tmp_path / "check.json").read_text())["workload"] == "surface-mlp"


@pytest.mark.parametrize(
    "args, said",
    [
        (
            ("--out-file", "{tmp}/nowhere/plan.txt"),
            "--out-file {tmp}/nowhere/plan.txt: the directory {tmp}/nowhere does not exist",
        ),
        (("--out-file", "{tmp}"), "--out-file {tmp}: is a directory"),
        (("--json", "--format", "csv"), "--json and --format csv: two formats"),
        (("--all", "--group-by", "gpu"), "--all and --group-by: --all shows every row"),
        (("--all", "--max-rows", "4"), "--all and --max-rows: --all shows every row"),
        (("--max-rows", "0"), "must be a whole number between 1 and 100,000 (rows), got '0'"),
        (("--format", "xml"), "invalid choice: 'xml'"),
    ],
)
def test_bad_output_flags_are_refused_before_any_work(tmp_path, args, said):
    args = tuple(a.replace("{tmp}", str(tmp_path)) for a in args)
    r = planner(
        "estimate", EXAMPLES / "surface-mlp.yaml", *args
    )  # would measure for 5 s: refused first
    assert r.code == 2, r.err
    assert said.replace("{tmp}", str(tmp_path)) in r.err and "Traceback" not in r.err
    assert "measuring" not in r.err and r.out in ("", "\n") or r.out.lstrip().startswith("{")


UNIT_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def test_the_answer_fits_80x24_above_its_table_and_says_no_inf(run_dir, cache):
    """Issue 40's acceptance at make run's size: the answer on line 2 (what to do, time and interval, cost), its
    reasons, the grouped table, one line of warnings; at most 24 lines; never 'inf'. --explain has the reasoning."""
    r = plan(run_dir, {**cache, "COLUMNS": "80", "LINES": "24"})
    lines = r.out.splitlines()
    assert len(lines) <= 23, r.out  # 24 with make's echo of the command
    assert lines[0].startswith("surface-mlp: ") and "cheapest" in lines[0]
    assert re.match(
        r"^(Train here|Rent aws:\S+ \(.+\)): [\d.]+ \w+ \([\d.]+-[\d.]+ \w+\), \$[\d.,]+", lines[1]
    ), lines[1]
    assert any("pays off" in line for line in lines[2:5])  # rule 4 in one line
    table = [line for line in lines if re.match(r"^ *(✔ +)?(local|aws:\S+) ", line)]
    assert 3 <= len(table) <= 12 and all(len(line) <= 80 for line in lines)
    assert re.search(
        r"^--all every row \(\d+ of \d+ shown\),\s--wide \d+ more columns?,\s--explain why(,\s--verbose \d+ notes?)?$",
        r.out,
        re.M,
    )
    assert "inf" not in r.out.replace("info", "")
    assert "Predicted rows come from" not in r.out and "Recommendation" not in r.out
    explained = plan(run_dir, {**cache, "COLUMNS": "80"}, "--explain").out
    assert (
        "Recommendation" in explained
        and "GPU rule" in explained
        and "Predicted rows come from" in explained
    )


def test_every_rows_cost_is_its_hourly_rate_times_its_time_as_shown(run_dir, cache):
    """Numbers that add up (issue 40): each row's cost is the $/h shown (instance and disk) x the training time shown
    (EC2's 60 s minimum), within the rounding of what is shown; costs keep two significant figures."""
    md = plan(run_dir, cache, "--format", "markdown", "--all").out.splitlines()
    names = [c.strip() for c in md[0].strip("|").split("|")]
    checked = 0
    for line in md[2:]:
        cells = dict(zip(names, (c.strip() for c in line.strip("|").split("|"))))
        if not cells["cost"].startswith("$"):
            continue  # a row that cannot run
        time, cost, rate = cells["training time"], cells["cost"], cells["$/h"]
        point = re.match(r"([\d.]+) (\w+)", time)
        assert point and cost.startswith("$"), line
        seconds = float(point.group(1)) * UNIT_SECONDS[point.group(2)]
        shown = float(cost[1:].replace(",", ""))
        digits = len(cost[1:].replace(",", "").replace(".", "").lstrip("0"))
        assert shown == 0 or digits >= 2, cost  # two significant figures at least
        billed = seconds if cells["target"] == "local" else max(seconds, 60)
        expected = float(rate) * billed / 3600
        time_digits = len(point.group(1).replace(".", "").lstrip("0"))
        tolerance = (
            0.5 * 10 ** -(time_digits - 1) + 0.0006 / max(float(rate), 1e-9) + 0.05
        )  # the shown roundings
        assert shown == pytest.approx(expected, rel=tolerance, abs=1e-4), line
        checked += 1
    assert checked > 30


def test_no_output_says_inf_even_when_training_here_costs_nothing(run_dir, cache):
    """Issue 40: --time-value 0 made this machine free against every rental: 'infx as much', 'inf' break-evens.
    No format of the plan says inf (JSON writes null with a note, as strict JSON must)."""
    for args in ((), ("--explain",), ("--format", "markdown"), ("--format", "csv"), ("--json",)):
        out = plan(run_dir, {**cache, "COLUMNS": "200"}, "--time-value", "0", "--all", *args).out
        assert not re.search(r"\binf|infx|inf%|Infinity|NaN", out), (
            args,
            re.search(r".{40}\binf.{20}", out),
        )
