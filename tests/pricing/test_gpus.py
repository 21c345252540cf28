"""GPUs asked for as `sky gpus list` / `dstack offer --gpu` read them (pricing/gpus.py), and `planner prices GPU`:
the machines of a model with the vendor's GB per GPU, counts and memory ranges, every region's cheapest, bad input."""

from __future__ import annotations

import json

import pytest

from planner.errors import InputError
from pricing.gpus import GpuFilter, name_matches, parse_gpu_filter, vendor_gb
from tests.cli.helpers import planner

KNOWN = ["A100", "A100-80GB", "A10G", "H100", "H200", "L4", "L40S", "T4", "V100", "V100-32GB"]


@pytest.mark.parametrize(
    "text, want",
    [
        ("A100", GpuFilter("A100", text="A100")),
        ("H100:8", GpuFilter("H100", 8, 8, text="H100:8")),
        ("L4:1..4", GpuFilter("L4", 1, 4, text="L4:1..4")),
        ("24GB..80GB", GpuFilter(None, None, None, 24.0, 80.0, text="24GB..80GB")),
        ("a100:80gb:8", GpuFilter("a100", 8, 8, 80.0, 80.0, text="a100:80gb:8")),
        ("40GB..", GpuFilter(None, None, None, 40.0, None, text="40GB..")),
        ("..4", GpuFilter(None, None, 4, text="..4")),
    ],
)
def test_the_forms_sky_and_dstack_users_write(text, want):
    assert parse_gpu_filter(text, KNOWN) == want


@pytest.mark.parametrize(
    "text, said",
    [
        ("A1000", "no GPU named 'A1000' in the catalog (did you mean \"A100\""),
        ("H100:8:4", "two GPU counts"),
        ("H100:A100", "two GPU models"),
        ("H100:a", "the count after ':' must be a whole number or a range like 1..4, got 'a'"),
        ("0", "a GPU count must be at least 1, got 0"),
        ("H100:0", "a GPU count must be at least 1, got 0"),
        ("..0", "a GPU count must be at least 1, got 0"),
        ("H100:-2", "a GPU count must be at least 1, got -2"),
        ("4..2", "the count range's low end comes first"),
        ("-5GB", "a GPU's memory must be more than 0 GB, got -5GB"),
        ("80GB..24GB", "low end comes first"),
        ("0GB", "more than 0 GB"),
        ("0GB..0GB", "more than 0 GB"),
        ("H100::8", "an empty part"),
        ("8x H100", "neither a GPU model, a count"),
    ],
)
def test_a_wrong_gpu_is_refused_naming_the_value_and_the_form(text, said):
    with pytest.raises(InputError) as caught:
        parse_gpu_filter(text, KNOWN)
    assert said in caught.value.render() and repr(text) in caught.value.render()


@pytest.mark.parametrize("text", ["9" * 5000, "H100:" + "9" * 5000, "9" * 5000 + "GB"])
def test_a_number_past_any_count_or_memory_is_refused_not_parsed_and_not_echoed_whole(text):
    """The fuzzer's `planner prices 999...` (5,000 digits): Python refuses to parse such an int (an internal error);
    it is no count, and the message quotes its start."""
    with pytest.raises(InputError) as caught:
        parse_gpu_filter(text, KNOWN)
    said = caught.value.render()
    assert "neither a GPU model, a count" in said and len(said) < 600


@pytest.mark.parametrize("text", ["H100:0", "0", "..0"])
def test_a_zero_count_is_refused_for_that_reason_alone(text):
    with pytest.raises(InputError) as caught:
        parse_gpu_filter(text, KNOWN)
    assert (
        "low end" not in caught.value.render()
    )  # the range is not backwards: one reason, the one that applies


def test_a_name_matches_its_variants_but_not_a_longer_model():
    assert (
        name_matches("A100", "A100-80GB")
        and name_matches("a100", "A100")
        and name_matches("V100", "V100-32GB")
    )
    assert (
        not name_matches("L4", "L40S")
        and not name_matches("A10", "A10G")
        and not name_matches("H100", "H200")
    )
    f = GpuFilter("A10G", 1, 4, 20.0, None)
    assert (
        f.matches("A10G", 4, 24.0)
        and not f.matches("A10G", 8, 24.0)
        and not f.matches("L4", 1, 24.0)
    )
    assert not f.matches("A10G", 1, None)  # memory asked for, none known: not a match


def test_memory_is_the_vendors_gb_its_sheet_else_the_catalogs_gib_converted():
    assert vendor_gb(24.0, 22.35) == 24.0  # the A10G: AWS reports 22,888 MiB, its sheet says 24 GB
    assert (
        vendor_gb(None, 22.35) == 24.0
        and vendor_gb(None, 16.0) == 17.0
        and vendor_gb(None, None) is None
    )


def test_prices_a10g_lists_every_g5_size_with_24_gb_per_gpu():
    r = planner("prices", "A10G", "--region", "us-east-1")
    assert r.code == 0, r.err
    rows = [line.split() for line in r.out.splitlines() if line.strip().startswith("g5.")]
    types = {row[0] for row in rows}
    assert {"g5.xlarge", "g5.2xlarge", "g5.12xlarge", "g5.24xlarge", "g5.48xlarge"} <= types
    assert all(
        "24" in row for row in rows
    )  # GB per GPU, as the vendor and every user say it (not 22.35)
    assert not any(
        line.split()[0].startswith(("g6.", "p4d")) for line in r.out.splitlines() if line.strip()
    )
    assert "GPU GB" in r.out


def test_prices_h100_8_all_regions_lists_the_cheapest_region_first_and_every_region_once():
    r = planner("prices", "H100:8", "--all-regions", "--json")
    assert r.code == 0, r.err
    rows = json.loads(r.out)["instances"]
    assert rows and all(i["gpu_name"] == "H100" and i["gpu_count"] == 8 for i in rows)
    table = planner("prices", "H100:8", "--all-regions")
    lines = [line.split() for line in table.out.splitlines() if line.strip().startswith("p5.")]
    regions = [line[-1] for line in lines]
    assert (
        len(regions) == len(set(regions)) == len({i["region"] for i in rows}) > 1
    )  # each region once
    prices = [float(line[-3]) for line in lines]
    assert prices == sorted(prices)  # the cheapest region first


def test_min_gpu_memory_is_per_gpu_in_gb():
    r = planner("prices", "--min-gpu-memory", "40", "--region", "us-east-1", "--all", "--json")
    assert r.code == 0, r.err
    rows = json.loads(r.out)["instances"]
    assert rows and all(i["gpu_memory_gb"] >= 40 for i in rows)
    assert not any(
        i["gpu_name"] == "T4" for i in rows
    )  # 8 x 16 GB is 128 GB in all, but 16 GB a GPU


def test_a_gpu_filter_with_cpu_is_refused():
    r = planner("prices", "A100", "--cpu")
    assert r.code == 2 and "A100" in r.err and "--cpu" in r.err
