"""`--chart FILE` on `planner plan` and `planner estimate` (issue 27): the TUI's chart as SVG, PNG or
HTML from real plan documents (a saved run re-planned, an estimate that measures nothing here), drawn
from the one chart computation; an unknown extension, a missing extra or a bad path refused with
exit 2 before any work."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest

from planner.report.answers import VERDICT_TITLES
from planner.report.chart import chart_data
from planner.report.chart_file import write_chart
from tests.cli.helpers import planner
from tests.conftest import EXAMPLES
from tests.tui.helpers import SAVED_RUN, plan_doc

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def run_dir(tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(SAVED_RUN, copy)  # `planner plan` rewrites the run's plan.json
    return copy


@pytest.fixture
def cache(tmp_path):
    return {"PLANNER_CACHE_DIR": str(tmp_path / "cache")}  # the bundled price snapshot


def headline(doc: dict) -> str:
    """The headline's label as the CLI prints it: 'Recommendation: local (cpu)' (a CPU option here)."""
    rec = doc["recommendation"]
    assert rec["device"] == "cpu"
    return f"{VERDICT_TITLES[rec['verdict']]}: {rec['target']} (cpu)"


def test_plan_writes_an_svg_with_the_headline(run_dir, tmp_path, cache):
    out = tmp_path / "plan.svg"
    r = planner("plan", run_dir, "--region", "us-east-1", "--json", "--chart", out, env=cache)
    assert r.code == 0, r.err
    doc = json.loads(r.out)  # the JSON is unchanged by --chart
    svg = out.read_text()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert headline(doc) in svg  # text stays text: searchable
    assert "break-even" in svg and "3 min" in svg  # the line, and the time axis in human units
    assert f"chart: {out}" in r.err


def test_estimate_writes_a_png(tmp_path, cache):
    out = tmp_path / "estimate.png"
    r = planner(
        "estimate", EXAMPLES / "surface-mlp.yaml", "--predict-only", "--chart", out, env=cache
    )
    assert r.code == 0, r.err
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 10_000


def test_estimate_writes_a_self_contained_html_page(tmp_path, cache):
    out = tmp_path / "estimate.html"
    r = planner(
        "estimate",
        EXAMPLES / "surface-mlp.yaml",
        "--predict-only",
        "--json",
        "--chart",
        out,
        env=cache,
    )
    assert r.code == 0, r.err
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    svg = page[page.index("<svg") : page.index("</svg>") + len("</svg>")]
    ET.fromstring(svg)  # the chart, inline
    assert headline(json.loads(r.out)) in page
    assert (
        "<script" not in page and 'src="' not in page and 'href="http' not in page
    )  # nothing run, nothing fetched


def test_the_file_draws_what_the_tui_draws(tmp_path):
    doc = plan_doc()  # the TUI's fixed plan: 40 options
    out = tmp_path / "tui.svg"
    drawn = write_chart(doc, str(out))
    assert drawn == chart_data(
        doc
    )  # one computation: the options, points, intervals and line the pane draws
    svg = out.read_text()
    for p in drawn.points:
        assert p.option.target in svg
    assert len(drawn.points) < len(doc.plan.options)


@pytest.mark.parametrize("name", ["plan.pdf", "plan", "plan.SVG.txt"])
def test_an_unknown_extension_is_refused_by_name(run_dir, tmp_path, name):
    out = tmp_path / name
    r = planner("plan", run_dir, "--chart", out)
    assert r.code == 2, r.err
    assert str(out) in r.err and ".svg, .png, .html" in r.err and "Traceback" not in r.err
    assert r.out == "" and not out.exists()


def test_without_the_extra_the_chart_is_refused_before_any_work(tmp_path, cache):
    shadow = tmp_path / "shadow" / "matplotlib"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        "raise ImportError('No module named matplotlib')\n"
    )  # as if not installed
    out = tmp_path / "plan.svg"
    env = {**cache, "PYTHONPATH": str(shadow.parent)}
    r = planner(
        "estimate", EXAMPLES / "surface-mlp.yaml", "--chart", out, timeout=60, env=env
    )  # would bench here
    assert r.code == 2, r.err
    assert "pip install 'cloud-planner[chart]'" in r.err and "Traceback" not in r.err
    assert r.out == "" and "measur" not in r.err and not out.exists()


def test_a_chart_path_that_cannot_be_written_is_refused_before_the_plan(run_dir, tmp_path):
    r = planner("plan", run_dir, "--chart", tmp_path / "missing" / "plan.svg")
    assert r.code == 2 and "--chart" in r.err and "does not exist" in r.err
    assert r.out == ""


def test_the_free_floor_is_labelled_apart_from_the_lowest_cost_tick():
    """The $0 floor sits half a decade under the cheapest paid figure: a $0.01 tick a few hundredths of a decade above it
    printed over its label in the TUI's chart (found by a new user); a tick that close is dropped, one clear of it is kept."""
    from dataclasses import replace

    data = chart_data(plan_doc())
    assert data is not None and data.has_free
    close = replace(data, floor=-2.02, box=(data.box[0], data.box[1], -2.5, 1.0))
    ticks, labels = close.y_ticks(10, fine=True)
    assert labels[0] == "$0" and "$0.01" not in labels and "$0.02" in labels
    assert all(t > close.floor + 0.25 for t in ticks[1:])
