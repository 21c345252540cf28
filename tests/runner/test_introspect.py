"""Introspection describes a custom module as precisely as a built-in kind: the published models
written as custom modules have the published parameter counts, a real backward, op classes and
kernel counts; rows stay JSON-able with their historical keys; the CLI prints one row per line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from planner.workload.footprint import layer_from_row
from planner.workload.spec import load_spec
from runner.bench.introspect import describe
from tests.conftest import EXAMPLES, ROOT

PUBLISHED = {
    "resnet50-imagenet": 25_557_032,
    "bert-large-squad": 335_150_082,
    "resnet9-cifar10": 6_573_120,
}


@pytest.fixture(scope="module")
def described():
    return {name: describe(load_spec(EXAMPLES / f"{name}.yaml").to_job()) for name in PUBLISHED}


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_models_have_the_published_parameter_counts(described, name):
    assert sum(r["params"] for r in described[name]) == PUBLISHED[name]


def test_rows_are_json_with_the_historical_keys(described):
    for row in described["resnet9-cifar10"]:
        assert {"name", "params", "forward_flops", "activation_elems", "kernels"} <= row.keys()
        assert json.loads(json.dumps(row)) == row
        layer_from_row(row)
    old = layer_from_row(
        {"name": "x", "params": 3, "forward_flops": 6.0, "activation_elems": 2.0, "kernels": 1}
    )
    assert old.op == "" and old.backward_flops is None  # rows from an older bench still load


def test_resnet50_is_described_kernel_by_kernel(described):
    rows = described["resnet50-imagenet"]
    by_op = {}
    for r in rows:
        by_op.setdefault(r["op"], []).append(r)
    assert sum(r["kernels"] for r in by_op["conv"]) == 53  # 16 blocks x 3, 4 projections, the stem
    assert sum(r["kernels"] for r in by_op["norm"]) == 53
    forward = sum(r["forward_flops"] for r in by_op["conv"])
    assert forward == pytest.approx(2 * 4.09e9, rel=0.02)  # ~4.1 GMACs per 224x224 image
    backward = sum(r["backward_flops"] for r in by_op["conv"])
    # a real backward: the stem needs no input gradient, so a little less than 2 x forward
    assert 1.9 * forward < backward < 2.0 * forward
    assert {"elementwise", "pool", "gemm", "loss"} <= by_op.keys()


def test_bert_attention_and_embeddings_have_their_classes(described):
    rows = described["bert-large-squad"]
    attention = sum(r["forward_flops"] for r in rows if r["op"] == "attention")
    assert attention == pytest.approx(24 * 4 * 384 * 384 * 1024, rel=1e-6)  # QK^T and AV per layer
    assert any(r["op"] == "embedding" for r in rows) and any(r["op"] == "norm" for r in rows)
    assert sum(r["param_tensors"] for r in rows) == 393


def test_recurrent_models_are_traced_on_the_cpu_when_meta_cannot_run_them():
    rows = describe(load_spec(EXAMPLES / "lstm-classifier.yaml").to_job())
    recurrent = [r for r in rows if r["op"] == "recurrent"]
    assert recurrent and sum(r["forward_flops"] for r in recurrent) > 0


def test_the_child_process_entry_point_prints_the_rows(tmp_path):
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"spec": load_spec(EXAMPLES / "custom-policy.yaml").to_job()}))
    proc = subprocess.run(
        [sys.executable, "-m", "runner.bench.describe", str(job)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout.splitlines()[-1])["rows"]
    assert sum(r["params"] for r in rows) == 8 * 64 + 64 + 64 * 64 + 64 + 64 * 4 + 4
