"""Catalog queries on a small fixture frame, the bundled snapshot, the cache choice, billing."""

from __future__ import annotations

import datetime as dt
import json

import pandas as pd
import pytest

from planner.errors import CatalogLookupError, ExitCode
from pricing import billing
from pricing.aws import write_cache
from pricing.catalog import (
    COLUMNS,
    check_region,
    filter_instances,
    hourly_price,
    instance_facts,
    load_catalog,
    load_gpu_specs,
    load_snapshot,
    no_match,
    sort_instances,
)
from pricing.gpus import GpuFilter


@pytest.fixture
def frame() -> pd.DataFrame:
    rows = [
        ("c7i.xlarge", "us-east-1", 4, 8, "x86_64", "", 0, None, 0.1785, 0.07, 0.08, 6),
        ("c7g.xlarge", "us-east-1", 4, 8, "arm64", "", 0, None, 0.145, 0.05, 0.06, 6),
        ("g4dn.xlarge", "us-east-1", 4, 16, "x86_64", "T4", 1, 16, 0.526, 0.2, 0.2039, 5),
        ("g5.xlarge", "us-east-1", 4, 16, "x86_64", "A10G", 1, 22.35, 1.006, 0.40, 0.436, 5),
        ("p5.4xlarge", "us-east-1", 16, 256, "x86_64", "H100", 1, 80, 6.88, None, None, 0),
        ("g5.xlarge", "eu-west-1", 4, 16, "x86_64", "A10G", 1, 22.35, 1.123, 0.5, 0.55, 3),
    ]
    df = pd.DataFrame(rows, columns=COLUMNS[:-2])
    df["source"], df["as_of"] = "fixture", "today"
    return df


def test_hourly_price_by_purchase_option(frame):
    assert hourly_price(frame, "g5.xlarge", "us-east-1") == 1.006
    assert hourly_price(frame, "g5.xlarge", "us-east-1", "spot") == 0.436  # the median over zones
    assert hourly_price(frame, "g5.xlarge", "eu-west-1") == 1.123


def test_empty_spot_price_means_not_offered_never_zero(frame):
    with pytest.raises(CatalogLookupError, match="no spot price"):
        hourly_price(frame, "p5.4xlarge", "us-east-1", "spot")


def test_unknown_instance_type_suggests(frame):
    with pytest.raises(CatalogLookupError) as info:
        hourly_price(frame, "g5.xlarg", "us-east-1")
    assert 'did you mean "g5.xlarge"' in info.value.message
    assert info.value.exit_code == ExitCode.BAD_INPUT


def test_unknown_region_lists_the_known_ones(frame):
    with pytest.raises(CatalogLookupError) as info:
        check_region(frame, "mars-1")
    assert info.value.hint == "use one of: eu-west-1, us-east-1"


def test_type_not_offered_in_region(frame):
    with pytest.raises(CatalogLookupError, match="not offered in eu-west-1"):
        instance_facts(frame, "c7i.xlarge", "eu-west-1")


def test_facts(frame):
    facts = instance_facts(frame, "g4dn.xlarge", "us-east-1")
    assert facts == {
        "instance_type": "g4dn.xlarge",
        "region": "us-east-1",
        "vcpus": 4,
        "memory_gib": 16.0,
        "arch": "x86_64",
        "gpu_name": "T4",
        "gpu_count": 1,
        "gpu_memory_gib": 16.0,
    }


def test_filters(frame):
    def types(df):
        return sorted(df["instance_type"])

    assert types(filter_instances(frame, region="us-east-1", gpu=True)) == [
        "g4dn.xlarge",
        "g5.xlarge",
        "p5.4xlarge",
    ]
    assert types(filter_instances(frame, gpu=False)) == ["c7g.xlarge", "c7i.xlarge"]
    assert types(filter_instances(frame, arch="arm64")) == ["c7g.xlarge"]
    assert types(filter_instances(frame, region="us-east-1", min_gpu_memory_gb=20)) == [
        "g5.xlarge",
        "p5.4xlarge",
    ]
    assert types(filter_instances(frame, region="us-east-1", max_price=0.526)) == [
        "c7g.xlarge",
        "c7i.xlarge",
        "g4dn.xlarge",
    ]
    # spot filter: a type without spot is never "under" a spot budget
    assert "p5.4xlarge" not in types(filter_instances(frame, max_price=100, purchase="spot"))


def test_no_match_says_which_filter_leaves_nothing_and_what_there_is_instead(frame):
    h100_8 = GpuFilter("H100", 8, 8, text="H100:8")
    found = no_match(frame, gpus=h100_8)
    assert (found.why, found.gpu, found.counts) == (
        "count",
        "H100",
        (1,),
    )  # H100s come one a machine here
    found = no_match(frame, gpus=GpuFilter("a10g", text="a10g"), min_gpu_memory_gb=30)
    assert (found.why, found.gpu, found.memory_gb, found.memory_min_gb) == (
        "memory",
        "A10G",
        (24.0,),
        30,
    )
    h100_1 = GpuFilter("H100", 1, 1, text="H100:1")
    found = no_match(frame, region="eu-west-1", gpus=h100_1)
    assert (found.why, found.region, found.regions) == ("region", "eu-west-1", ("us-east-1",))
    found = no_match(frame, region="us-east-1", gpus=GpuFilter("T4", text="T4"), max_price=0.1)
    assert found.why == "other"  # T4 comes as asked, and in us-east-1: the price leaves nothing
    found = no_match(frame, gpus=GpuFilter(None, 3, 3, text="3"))
    assert (found.why, found.gpu, found.counts) == (
        "count",
        None,
        (1,),
    )  # no model named: every GPU


def test_no_match_lists_the_other_regions_cheapest_first(frame):
    found = no_match(frame, region="ap-south-1", gpus=GpuFilter("A10G", text="A10G"))
    assert found.why == "region" and found.regions == (
        "us-east-1",
        "eu-west-1",
    )  # 1.006 before 1.123


def test_sorting(frame):
    us = filter_instances(frame, region="us-east-1")
    assert list(sort_instances(us)["instance_type"])[:2] == ["c7g.xlarge", "c7i.xlarge"]
    assert list(sort_instances(us, "gpu-memory")["instance_type"])[:2] == [
        "p5.4xlarge",
        "g5.xlarge",
    ]


def test_bundled_snapshot_matches_its_source_rules():
    snap = load_snapshot()
    # 20 CPU types in 4 regions, and every size of the NVIDIA GPU families in the 23 regions that offer them
    assert (
        len(snap) == 633
        and snap["instance_type"].nunique() == 63
        and snap["region"].nunique() == 23
    )
    gpu = snap[snap["gpu_count"] > 0]
    assert (
        gpu["instance_type"].nunique() == 43
        and snap.loc[snap["gpu_count"] == 0, "instance_type"].nunique() == 20
    )
    assert set(snap.loc[snap["gpu_count"] == 0, "region"]) == {
        "us-east-1",
        "us-west-2",
        "eu-west-1",
        "eu-central-1",
    }
    assert hourly_price(snap, "p5.48xlarge", "us-east-1") == 55.04  # the post-cut price
    assert hourly_price(snap, "g5.48xlarge", "ap-northeast-1") > hourly_price(
        snap, "g5.48xlarge", "us-east-1"
    )
    assert instance_facts(snap, "p4de.24xlarge", "us-east-1")["gpu_memory_gib"] == 80.0
    p5_small = snap[snap["instance_type"] == "p5.4xlarge"].set_index("region")[
        "spot_usd_per_hour_median"
    ]
    assert (
        p5_small[["us-east-1", "us-west-2"]].isna().all() and p5_small.notna().any()
    )  # no spot there; some regions have it
    assert not (
        (snap["instance_type"].str.startswith(("g6.", "g6e."))) & (snap["region"] == "eu-west-1")
    ).any()
    with pytest.raises(
        CatalogLookupError, match="no on-demand price"
    ):  # p5e: no on-demand price in the source
        hourly_price(snap, "p5e.48xlarge", "us-east-2")
    specs = load_gpu_specs()
    assert set(specs["gpu_name"]) == {
        "T4",
        "A10G",
        "L4",
        "L40S",
        "V100",
        "A100",
        "H100",
        "A100-80GB",
        "V100-32GB",
        "H200",
    }
    assert set(gpu["gpu_name"]) <= set(specs["gpu_name"])  # every bundled GPU is predicted
    assert specs["source"].str.startswith("http").all()


def test_fresh_cache_is_used_and_stale_cache_is_not(tmp_path):
    snap = load_snapshot()
    live = snap.copy()
    live.loc[live["instance_type"] == "g5.xlarge", "ondemand_usd_per_hour"] = 0.999
    live["source"] = "aws-live"
    fetched = dt.datetime(2026, 11, 20, 12, 0, tzinfo=dt.timezone.utc)
    write_cache(live, fetched, ["us-east-1"], tmp_path)

    fresh = load_catalog(max_age=24, directory=tmp_path, now=fetched + dt.timedelta(hours=3))
    assert hourly_price(fresh.frame, "g5.xlarge", "us-east-1") == 0.999
    assert (
        fresh.note == "live prices fetched 3.0 h ago" and fresh.as_of == "2026-11-20T12:00:00+00:00"
    )

    stale = load_catalog(max_age=24, directory=tmp_path, now=fetched + dt.timedelta(hours=30))
    assert hourly_price(stale.frame, "g5.xlarge", "us-east-1") == 1.006
    assert "30 h old" in stale.note and stale.as_of == "2025 H2"


def test_unreadable_cache_falls_back_to_the_snapshot(tmp_path):
    (tmp_path / "aws_prices.csv").write_text("garbage")
    (tmp_path / "aws_prices.meta.json").write_text(json.dumps({"nope": 1}))
    catalog = load_catalog(directory=tmp_path)
    assert catalog.as_of == "2025 H2" and "unreadable" in catalog.note


def test_billing_model():
    assert billing.billed_seconds(1) == 60  # the 60-second minimum
    assert billing.billed_seconds(60.2) == 61  # then per second, rounded up
    volume = billing.root_volume_usd_per_hour(100)
    assert volume == pytest.approx(100 * 0.08 / 730)
    assert billing.instance_cost(3.6, 3600, root_volume_gb=0) == pytest.approx(3.6)
    assert billing.instance_cost(3.6, 10, root_volume_gb=0) == pytest.approx(3.6 * 60 / 3600)
    assert billing.instance_cost(1.0, 3600) == pytest.approx(1.0 + volume)
