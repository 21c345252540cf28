"""`planner prices` as a person reads it: the table's cells are the catalog's numbers, the region column unless one
region was asked for, an empty answer says what there is instead, a wrong GPU filter is refused by its value."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.cli.helpers import planner


@pytest.fixture
def env(tmp_path) -> dict:
    return {
        "PLANNER_CACHE_DIR": str(tmp_path),
        "COLUMNS": "160",
    }  # the bundled snapshot, wide lines


def test_the_prices_table_shows_each_price_and_a_dash_where_spot_is_not_offered(env):
    r = planner("prices", "--gpu", "--region", "us-east-1", env=env)
    assert r.code == 0, r.err
    rows = {
        line.split()[0]: line.split()
        for line in r.out.splitlines()
        if line.strip().startswith(("g4dn.xlarge", "p5.4xlarge"))
    }
    assert "0.5260" in rows["g4dn.xlarge"]  # four decimals under a dollar, as the README shows
    assert (
        rows["p5.4xlarge"][-1] == "-" and "nan" not in r.out.lower()
    )  # spot not offered: a dash, never $nan


def header(r) -> list[str]:
    assert r.code == 0, r.err
    return next(csv.reader(io.StringIO(r.out)))


def test_rows_that_share_a_region_by_chance_still_name_it_and_the_title_names_no_filter(env):
    r = planner(
        "prices", "H100:8", env=env
    )  # the cheapest 8x H100 is in us-east-1: one row, one region
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].strip() == "AWS instances" and "region" in lines[2].split()
    assert [line.split()[-1] for line in lines if line.strip().startswith("p5.")] == ["us-east-1"]
    assert header(planner("prices", "H100:8", "--format", "csv", env=env))[-1] == "region"
    assert (
        header(planner("prices", "A100", "--format", "csv", env=env))[-1] == "region"
    )  # same shape


def test_one_region_asked_for_is_named_in_the_title_instead_of_a_column(env):
    r = planner("prices", "H100:8", "--region", "us-east-1", env=env)
    assert r.code == 0, r.err
    assert r.out.splitlines()[0].strip() == "AWS instances in us-east-1"
    assert "region" not in r.out.splitlines()[2].split()
    csv_header = header(
        planner("prices", "H100:8", "--region", "us-east-1", "--format", "csv", env=env)
    )
    assert "region" not in csv_header and csv_header[-1] == "spot"


@pytest.mark.parametrize(
    "argv, said",
    [
        (["H100:3"], "no instance has 3 H100; H100 comes 1 or 8 per instance"),
        (
            ["H100:8", "--region", "eu-west-1"],
            "no 8x H100 in eu-west-1; it is priced in us-east-1, ",
        ),
        (["L4", "--min-gpu-memory", "30"], "no L4 has 30 GB or more per GPU; L4 has 24 GB per GPU"),
        (["A100:141GB"], "A100 has 40 or 80 GB per GPU"),
    ],
)
def test_an_empty_answer_says_what_there_is_of_the_gpu_and_prints_no_table(env, argv, said):
    r = planner("prices", *argv, env=env)
    assert r.code == 0 and r.out == "", (
        r.out,
        r.err,
    )  # no empty table: the reason alone, on stderr
    assert said in r.err and "matches these filters" not in r.err
    assert len(r.err.strip().splitlines()) <= 2


def test_a_gpu_priced_elsewhere_points_to_every_region_and_json_stays_a_list(env):
    r = planner("prices", "H100:8", "--region", "eu-west-1", env=env)
    assert "(planner prices H100:8 --all-regions)" in r.err and "eu-west-1," not in r.err
    r = planner("prices", "H100:3", "--json", env=env)
    assert r.code == 0 and json.loads(r.out)["instances"] == []
    assert "no instance has 3 H100" in r.err


@pytest.mark.parametrize(
    "argv, said",
    [
        (["H100:a"], "the count after ':' must be a whole number or a range like 1..4, got 'a'"),
        (["H100:0"], "a GPU count must be at least 1, got 0"),
        (["-5GB"], "a GPU's memory must be more than 0 GB, got -5GB"),
        (["--region", "us-east-1", "-5GB"], "a GPU's memory must be more than 0 GB, got -5GB"),
    ],
)
def test_a_wrong_gpu_filter_is_refused_by_its_value(env, argv, said):
    r = planner("prices", *argv, env=env)
    assert r.code == 2 and said in r.err, r.err
    assert "two GPU models" not in r.err and "low end" not in r.err
    assert "COMMAND" not in r.err and "Traceback" not in r.err  # not the top-level usage


def test_two_gpu_filters_are_refused_under_the_prices_usage(env):
    r = planner("prices", "H100", "A100", env=env)
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("usage: planner prices ") and "COMMAND" not in r.err
    assert "got 2 words: H100 A100" in r.err and "planner prices H100:8" in r.err


@pytest.mark.parametrize("columns", ["60", "80"])
def test_a_narrow_terminal_never_cuts_a_price_a_name_or_a_region(env, columns):
    """A trial at 80 columns read `11…` for 1152 GiB and `us-east…` for two regions: the table is printed at its own
    width instead (the terminal wraps its lines), as the plan table is."""
    r = planner("prices", "--gpu", env={**env, "COLUMNS": columns})
    assert r.code == 0, r.err
    assert "…" not in r.out
    rows = [line.split() for line in r.out.splitlines() if line.strip().startswith("p4d.24xlarge")]
    assert rows and all(row[2] == "1152" and row[-1].startswith("us-") for row in rows), rows
