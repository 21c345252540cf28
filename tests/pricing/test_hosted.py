"""The hosted catalog (pricing/hosted.py) through `planner prices --refresh` and the service, against a
local HTTP server (http.server in a thread) standing in for the public file.

`data/vms_slice.csv` holds recorded rows: every zone row of c7i.xlarge and c7g.2xlarge from
/work/shared/data/aws_raw_rows.csv (with Local Zone rows), and of g5.48xlarge, p4de.24xlarge,
p5e.48xlarge and g4dn.xlarge (us-east-1, us-west-2, ap-northeast-1) from aws_gpu_rows_all_regions.csv
— SkyPilot's catalogs/v8/aws/vms.csv @ 00148f2a, as the bundled snapshot. Two rows made up here
(`MADE_UP`) stand for what the public file also holds and the planner has no facts for.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest

from planner.errors import ExitCode
from planner.service import PlannerService, PriceQuery
from pricing.catalog import load_catalog, load_snapshot
from pricing.hosted import (
    DEFAULT_CATALOG_URL,
    CatalogLocation,
    CatalogSettingError,
    aggregate,
    catalog_location,
    parse_rows,
    read_source,
)
from tests.cli.helpers import planner
from tests.conftest import note_of

SLICE = (Path(__file__).parent / "data" / "vms_slice.csv").read_bytes()
HEADER = SLICE.split(b"\n", 1)[0]
# Made up for the test, in the file's format: an NVIDIA GPU without a spec, an accelerator that is not an
# NVIDIA GPU, a fractional GPU and a CPU family without sourced facts.
MADE_UP = (
    b"g5g.xlarge,T4g,1.0,4.0,8.0,\"{'Gpus': [{'Name': 'T4g', 'Manufacturer': 'NVIDIA', 'Count': 1, "
    b"'MemoryInfo': {'SizeInMiB': 15360}}], 'TotalGpuMemoryInMiB': 15360}\",0.42,0.1,us-east-1,use1-az1,arm64\n"
    b"inf2.xlarge,Inferentia2,1.0,4.0,16.0,,0.7582,0.2,us-east-1,use1-az1,x86_64\n"
    b"g6f.large,L4,0.125,2.0,8.0,\"{'Gpus': [{'Name': 'L4', 'Manufacturer': 'NVIDIA', 'Count': 1, "
    b"'GpuPartitionSize': 0.125, 'MemoryInfo': {'SizeInMiB': 2861}}], 'TotalGpuMemoryInMiB': 2861}\""
    b",0.2,0.08,us-east-1,use1-az1,x86_64\n"
    b"r7i.large,,,2.0,16.0,,0.1323,0.05,us-east-1,use1-az1,x86_64\n"
)


class CatalogServer:
    """Serves `files` (URL path -> bytes); a path in `cut` declares its whole length but sends half
    and closes, as a dropped connection does; anything else is a 404."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.cut: set[str] = set()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                body = owner.files.get(self.path)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/csv")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if self.path in owner.cut else body)
                self.close_connection = True

            def log_message(self, *args):  # quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = CatalogServer()
    s.files["/vms.csv"] = SLICE + MADE_UP
    yield s
    s.close()


def test_the_setting_env_then_config_then_default():
    assert catalog_location(None, {}) == CatalogLocation(DEFAULT_CATALOG_URL, "default")
    assert catalog_location("https://mirror/vms.csv", {}).setting == "catalog_url (config)"
    env = {"PLANNER_CATALOG_URL": " /data/vms.csv "}
    assert catalog_location("https://mirror/vms.csv", env) == CatalogLocation(
        "/data/vms.csv", "PLANNER_CATALOG_URL"
    )
    assert catalog_location(None, {"PLANNER_CATALOG_URL": ""}).setting == "default"


def test_zones_aggregate_to_regions_exactly_as_the_bundled_snapshot_was():
    location = CatalogLocation("slice", "test")
    found = aggregate(parse_rows(SLICE, location))
    snap = load_snapshot().set_index(["instance_type", "region"])
    got = found.frame.set_index(["instance_type", "region"])
    assert len(got) == 37 and set(got.index) <= set(snap.index)
    columns = [
        "vcpus",
        "memory_gib",
        "arch",
        "gpu_name",
        "gpu_count",
        "gpu_memory_gib",
        "ondemand_usd_per_hour",
        "spot_usd_per_hour_min",
        "spot_usd_per_hour_median",
        "zones",
    ]
    pd.testing.assert_frame_equal(got[columns], snap.loc[got.index, columns], check_dtype=False)
    # Local Zones are left out: c7i.xlarge has 6 zone rows in us-east-1, one of them use1-atl2-az1
    assert got.loc[("c7i.xlarge", "us-east-1"), "zones"] == 5
    assert found.rows_read == SLICE.count(b"\n") - 1


def test_refresh_over_https_url_lists_every_type_with_its_facts_and_the_estimate_uses_it(
    server, tmp_path
):
    env = {"PLANNER_CATALOG_URL": server.url("/vms.csv"), "PLANNER_CACHE_DIR": str(tmp_path)}
    r = planner("prices", "--refresh", "--region", "us-east-1", "--json", env=env)
    assert r.code == 0 and r.err == "", r.err
    data = json.loads(r.out)
    assert data["source"] == f"AWS prices from {server.url('/vms.csv')} (hosted catalog)"
    assert data["note"].startswith(
        "hosted catalog read 0.0 h ago: 10 instance types in 16 regions (106 zone rows)"
    )
    rows = {i["instance_type"]: i for i in data["instances"]}
    p4de = rows["p4de.24xlarge"]
    assert (p4de["gpu_name"], p4de["gpu_count"], p4de["gpu_memory_gib"], p4de["vcpus"]) == (
        "A100-80GB",
        8,
        80.0,
        96,
    )
    assert (p4de["ondemand_usd_per_hour"], p4de["spot_usd_per_hour_min"], p4de["zones"]) == (
        27.44705,
        8.6505,
        2,
    )
    assert p4de["source"] == "catalog" and p4de["facts_note"] is None
    assert rows["c6i.xlarge"]["source"] == "snapshot"  # not in the file: the snapshot's row stays
    # what the planner has no facts for is listed and said so, not guessed
    g5g = rows["g5g.xlarge"]
    assert (g5g["gpu_name"], g5g["gpu_count"], g5g["gpu_memory_gib"]) == ("T4g", 1, 15.0)
    assert "no spec for GPU T4g" in g5g["facts_note"]
    inf2 = rows[
        "inf2.xlarge"
    ]  # AWS Neuron: not a CUDA GPU, so a CPU instance to the planner, its accelerator kept
    assert (inf2["gpu_name"], inf2["gpu_count"], inf2["accelerator"]) == (None, 0, "Inferentia2 x1")
    assert "its Inferentia2 x1 is not an NVIDIA GPU" in inf2["facts_note"]
    g6f = rows["g6f.large"]
    assert (g6f["gpu_name"], g6f["gpu_count"], g6f["gpu_memory_gib"]) == (
        "L4 (0.125 of one)",
        1,
        2.79,
    )
    assert "no spec for GPU L4 (0.125 of one)" in g6f["facts_note"]
    assert "no sourced processor facts for r7i" in rows["r7i.large"]["facts_note"]
    assert rows["c7i.xlarge"]["facts_note"] is None and rows["c7i.xlarge"]["accelerator"] is None

    r = planner(
        "prices", "--region", "ap-northeast-1", "--gpu", "--all", env=env
    )  # from the cache, no network
    assert r.code == 0 and "p4de.24xlarge" in r.out and "g5.48xlarge" in r.out
    caption = " ".join(
        planner("prices", "--region", "us-east-1", "--all", env=env).out.split()
    )  # the caption wraps
    assert "No spec, priced but not predicted: L4 (0.125 of one), T4g." in caption
    assert "Not NVIDIA GPUs, planned as CPU instances: Inferentia2." in caption
    assert (
        "No sourced processor facts, predicted at this machine's per-core speed: c7a, inf2, r7i."
        in caption
    )

    r = planner(
        "estimate",
        "examples/surface-mlp.yaml",
        "--predict-only",
        "--region",
        "us-east-1",
        "--json",
        env=env,
    )
    assert r.code == 0, r.err
    options = {o["target"]: o for o in json.loads(r.out)["options"]}
    assert (
        options["aws:p4de.24xlarge"]["step_seconds"]
        and options["aws:p4de.24xlarge"]["device_name"] == "A100-80GB"
    )
    assert options["aws:g5g.xlarge"]["step_seconds"] is None and "no spec for GPU T4g" in note_of(
        options["aws:g5g.xlarge"]
    )
    assert options["aws:inf2.xlarge"]["device"] == "cpu"


def _broken(server: CatalogServer, how: str) -> str:
    """Serve a damaged copy of the slice at a path of its own; its URL."""
    path = f"/{how}.csv"
    lines = SLICE.decode().splitlines(keepends=True)
    if how == "bad-columns":
        server.files[path] = SLICE.replace(b"Price,SpotPrice", b"OnDemand,Spot", 1)
    elif how == "non-numeric-price":
        server.files[path] = "".join(lines[:5] + [_price(lines[5], "n/a")] + lines[6:]).encode()
    elif how == "truncated":
        server.files[path] = SLICE[: len(SLICE) // 2]  # cut inside a row, as a half-written file is
    elif how == "short-row":  # cut inside a row, then a line break: the row lacks fields
        server.files[path] = "".join(lines[:10] + [lines[10][:25] + "\n"]).encode()
    elif how == "cut-connection":
        server.files[path] = SLICE
        server.cut.add(path)
    elif how == "html":
        server.files[path] = b"<html><body>rate limited</body></html>\n"
    return server.url(path if how != "404" else "/missing.csv")


def _price(line: str, value: str) -> str:
    fields = line.split(",")
    fields[-5] = value  # Price: the fifth field from the end (GpuInfo, quoted, is earlier)
    return ",".join(fields)


BROKEN = {
    "bad-columns": "missing Price, SpotPrice",
    "non-numeric-price": "line 6: Price 'n/a' is not a number",
    "truncated": "cut short: the file ends inside line",
    "short-row": "line 11: 7 fields, the header has 11 (the last row: the file looks cut short)",
    "cut-connection": "cut short",
    "html": "missing InstanceType",
    "404": "HTTP 404 Not Found",
    "down": "cannot be reached",
}


@pytest.mark.parametrize("how", sorted(BROKEN))
def test_a_broken_or_unreachable_source_keeps_the_cache_and_says_why(
    server, tmp_path, monkeypatch, how
):
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PLANNER_CATALOG_URL", server.url("/vms.csv"))
    service, warnings = PlannerService(), []
    good = service.account.prices(
        PriceQuery(region="us-east-1"), refresh=True, warn=warnings.append
    )
    assert warnings == [] and any(row.source == "catalog" for row in good.rows)
    cached = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    if how == "down":
        url = server.url("/vms.csv")
        server.close()
    else:
        url = _broken(server, how)
    monkeypatch.setenv("PLANNER_CATALOG_URL", url)
    kept = service.account.prices(
        PriceQuery(region="us-east-1"), refresh=True, warn=warnings.append
    )
    assert len(warnings) == 1 and BROKEN[how] in warnings[0], warnings
    assert url in warnings[0] and "PLANNER_CATALOG_URL" in warnings[0]
    assert "meanwhile: hosted catalog read" in warnings[0]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == cached  # nothing written
    assert kept.as_of == good.as_of and kept.source == good.source and len(kept.rows) > 0


def test_a_broken_source_without_a_cache_keeps_the_snapshot(server, tmp_path):
    env = {
        "PLANNER_CATALOG_URL": _broken(server, "non-numeric-price"),
        "PLANNER_CACHE_DIR": str(tmp_path),
    }
    r = planner("prices", "--refresh", "--region", "us-east-1", "--gpu", "--json", env=env)
    assert r.code == 0 and "Traceback" not in r.err
    assert (
        "catalog refresh failed" in r.err
        and "Price 'n/a' is not a number" in r.err
        and "bundled snapshot" in r.err
    )
    assert json.loads(r.out)["as_of"] == "2025 H2" and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "value, why",
    [
        ("ftp://mirror.example/vms.csv", "ftp:// is not read"),
        ("/nonexistent/vms.csv", "no such file"),
        ("{tmp}", "is a directory"),
        ("https:///vms.csv", "an http(s) URL needs a host"),
    ],
)
def test_a_bad_setting_is_bad_input_naming_the_setting_value_and_fix(tmp_path, value, why):
    value = value.format(tmp=tmp_path)
    env = {"PLANNER_CATALOG_URL": value, "PLANNER_CACHE_DIR": str(tmp_path)}
    r = planner("prices", "--refresh", "--json", env=env)
    assert r.code == ExitCode.BAD_INPUT and "Traceback" not in r.err
    error = json.loads(r.out)["error"]
    assert error["title"] == "bad catalog setting" and error["message"].startswith(
        f"PLANNER_CATALOG_URL: {value!r}: {why}"
    )
    assert error["hint"].startswith(
        "set PLANNER_CATALOG_URL to an https:// URL, a file path or a file:// URL"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_bad_input(tmp_path):
    path = tmp_path / "vms.csv"
    path.write_bytes(SLICE)
    path.chmod(0)
    with pytest.raises(CatalogSettingError, match="may not read it"):
        read_source(CatalogLocation(str(path), "PLANNER_CATALOG_URL"))


def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    fifo = tmp_path / "vms.csv"
    os.mkfifo(fifo)  # opening it would wait for a writer forever
    with pytest.raises(CatalogSettingError, match="is not a regular file"):
        read_source(CatalogLocation(fifo.as_uri(), "PLANNER_CATALOG_URL"))


def test_a_file_path_and_a_file_url_are_read_alike(tmp_path, monkeypatch):
    path = tmp_path / "vms.csv"
    path.write_bytes(SLICE)
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    for value in (str(path), path.as_uri()):
        monkeypatch.setenv("PLANNER_CATALOG_URL", value)
        found = PlannerService().account.prices(
            PriceQuery(region="eu-central-1", gpu=True), refresh=True
        )
        assert found.source == f"AWS prices from {value} (hosted catalog)"
        assert "p4de.24xlarge" in {row.instance_type for row in found.rows}
    assert load_catalog(directory=tmp_path / "cache").note.startswith("hosted catalog read")


def test_source_without_refresh_and_an_unknown_source_are_bad_input(tmp_path):
    r = planner("prices", "--source", "aws", env={"PLANNER_CACHE_DIR": str(tmp_path)})
    assert r.code == ExitCode.BAD_INPUT and "--refresh" in r.err and "Traceback" not in r.err
    r = planner(
        "prices", "--refresh", "--source", "azure", env={"PLANNER_CACHE_DIR": str(tmp_path)}
    )
    assert r.code == ExitCode.BAD_INPUT and "catalog" in r.err and "aws" in r.err
