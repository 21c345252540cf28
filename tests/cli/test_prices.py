"""`planner prices` as a person reads it: the table's cells are the catalog's numbers."""

from __future__ import annotations

from tests.cli.helpers import planner


def test_the_prices_table_shows_each_price_and_a_dash_where_spot_is_not_offered(tmp_path):
    r = planner(
        "prices",
        "--gpu",
        "--region",
        "us-east-1",
        env={"PLANNER_CACHE_DIR": str(tmp_path), "COLUMNS": "160"},
    )
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
