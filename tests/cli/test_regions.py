"""A plan across regions (issue 43): `--region all` or a list prices each instance type in its cheapest region and
names it; commands that launch or look up instances take one region and say why."""

from __future__ import annotations

import json
import re

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES


def _cheapest(frame, instance_type: str, purchase: str, regions: list[str] | None = None) -> float:
    from pricing.catalog import price_column

    rows = frame[frame["instance_type"] == instance_type]
    if regions is not None:
        rows = rows[rows["region"].isin(regions)]
    return float(rows[price_column(purchase)].min())


def test_every_instance_is_priced_in_its_cheapest_region_and_the_answer_names_it(tmp_path):
    from pricing.catalog import load_snapshot

    env = {"PLANNER_CACHE_DIR": str(tmp_path)}
    r = planner(
        "estimate",
        EXAMPLES / "surface-mlp.yaml",
        "--predict-only",
        "--region",
        "all",
        "--purchase",
        "spot",
        "--json",
        env=env,
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    frame = load_snapshot()
    rented = [o for o in doc["options"] if o["billing"] == "ec2"]
    assert (
        len({o["region"] for o in rented}) > 3
    )  # spot prices differ by region: not one region for all
    for o in rented:
        assert o["price_per_hour"] / o["instances"] == _cheapest(
            frame, o["instance_type"], "spot"
        ), o["target"]
    assert doc["plan_options"]["region"] == "all"
    # in words: the table's target and the answer name the region; the suggested runs are one per region
    text = planner(
        "estimate",
        EXAMPLES / "surface-mlp.yaml",
        "--predict-only",
        "--region",
        "us-east-1,eu-west-1",
        env=env,
    )
    assert text.code == 0, text.err
    said = " ".join(text.out.split())  # lines wrapped at the terminal's width
    assert "each instance in its cheapest region of us-east-1, eu-west-1" in said
    assert re.search(r"Rent aws:\S+ \([^)]+\) in (us-east-1|eu-west-1):", said), (
        said
    )  # the answer names the region
    assert "aws:c6i.xlarge us-east-1" in text.out or "aws:c6i.xlarge eu-west-1" in text.out
    listed = json.loads(
        planner(
            "estimate",
            EXAMPLES / "surface-mlp.yaml",
            "--predict-only",
            "--region",
            "us-east-1,eu-west-1",
            "--json",
            env=env,
        ).out
    )
    rent = listed["answers"]["rent"]  # a program reads where to rent it, as the words say
    assert rent["region"] == next(
        o["region"] for o in listed["options"] if o["target"] == rent["target"]
    )
    assert listed["cloud_recommendation"]["region"] == rent["region"]
    for o in (o for o in listed["options"] if o["billing"] == "ec2"):
        assert o["region"] in ("us-east-1", "eu-west-1")
        assert o["price_per_hour"] / o["instances"] == _cheapest(
            frame, o["instance_type"], "on-demand", ["us-east-1", "eu-west-1"]
        )


def test_one_region_is_asked_where_a_command_launches_and_a_bad_list_names_its_region():
    r = planner("run", EXAMPLES / "surface-mlp.yaml", "--region", "all", "--targets", "local")
    assert (
        r.code == 2
        and "this command works in one region" in r.err
        and "planner estimate --region all" in r.err
    )
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--region", "us-east-1,mars-1")
    assert r.code == 2 and "'mars-1'" in r.err and "every region: all" in r.err
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--region", "all,us-east-1")
    assert (
        r.code == 2
        and "all is every region on its own" in r.err
        and "every region: all" not in r.err
    )
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--region", "us-east-1,xx-north-9")
    assert r.code == 2 and "region 'xx-north-9' is not in the price data" in r.err + r.out
