"""The bench's workloads: every kind trains on CPU for both data locations, and the pure footprint
(planner/workload/footprint.py) describes exactly the networks the bench builds."""

from __future__ import annotations

import copy
import math

import pytest
import torch

from planner.workload.footprint import footprint, layers_of
from planner.workload.spec import load_spec, parse_spec
from runner.bench.introspect import describe
from runner.bench.workloads import WorkloadError, build, build_model
from tests.conftest import EXAMPLES

BUILTIN = ["surface-mlp", "small-cnn", "lstm-classifier", "tiny-transformer"]


def small(spec_name: str, location: str) -> dict:
    """The example, shrunk so a few steps take milliseconds."""
    job = load_spec(EXAMPLES / f"{spec_name}.yaml").to_job()
    job = copy.deepcopy(job)
    job["data"]["samples"] = 32
    job["data"]["location"] = location
    job["train"]["batch_size"] = 8
    return job


@pytest.mark.parametrize("location", ["device", "host"])
@pytest.mark.parametrize("name", BUILTIN + ["custom-policy"])
def test_every_kind_trains_on_cpu(name, location):
    job = small(name, location)
    w = build(job, torch.device("cpu"))
    before = [p.detach().clone() for p in w.model.parameters()]
    losses = [float(w.step().detach()) for _ in range(3)]
    assert all(math.isfinite(x) for x in losses)
    assert w.steps_per_epoch == 4
    changed = any(not torch.equal(a, b.detach()) for a, b in zip(before, w.model.parameters()))
    assert changed, "the optimizer step must update the weights"


def test_bf16_autocast_runs_on_cpu():
    job = small("surface-mlp", "device")
    job["train"]["precision"] = "bf16"
    assert math.isfinite(float(build(job, torch.device("cpu")).step().detach()))


@pytest.mark.parametrize("name", BUILTIN)
def test_footprint_params_equal_torch(name):
    spec = load_spec(EXAMPLES / f"{name}.yaml")
    model = build_model(spec.to_job()["model"])
    assert footprint(spec).params == sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("name", ["surface-mlp", "small-cnn", "tiny-transformer"])
def test_footprint_flops_agree_with_torch_flop_counter(name):
    spec = load_spec(EXAMPLES / f"{name}.yaml")
    counted = sum(r["forward_flops"] for r in describe(spec.to_job()["model"]))
    # torch counts matrix products, convolutions and attention (traced on the meta device, SDPA
    # decomposes into batched matmuls it has formulas for); ours also counts element-wise work.
    layers = layers_of(spec)
    matmuls = sum(
        layer.forward_flops for layer in layers if layer.op in ("gemm", "conv", "attention")
    )
    assert matmuls == pytest.approx(counted, rel=1e-6)
    if name == "tiny-transformer":
        m = spec.model
        attention = sum(
            layer.forward_flops for layer in layers if layer.name.startswith("attention")
        )
        assert attention == m.layers * 4 * m.seq_len**2 * m.d_model  # QK^T and AV


def test_custom_model_is_described_by_introspection():
    spec = load_spec(EXAMPLES / "custom-policy.yaml")
    rows = describe(spec.to_job()["model"])
    assert sum(r["params"] for r in rows) == 8 * 64 + 64 + 64 * 64 + 64 + 64 * 4 + 4
    assert sum(r["forward_flops"] for r in rows) == 2 * (8 * 64 + 64 * 64 + 64 * 4)


def test_data_on_device_counts_the_whole_dataset():
    on_device = load_spec(EXAMPLES / "surface-mlp.yaml")
    host = parse_spec(
        {
            **on_device.model_dump(mode="json"),
            "data": {"samples": 40000, "task": "regression", "location": "host"},
            "train": {"batch_size": 1000, "epochs": 1},
        }
    )
    assert footprint(on_device).data_bytes == 40000 * (2 * 4 + 4)
    assert footprint(host).data_bytes == 1000 * (2 * 4 + 4)


def custom_job(tmp_path, source: str, factory: str = "m:build") -> dict:
    (tmp_path / "m.py").write_text(source)
    return {
        "name": "c",
        "kind": "custom",
        "factory": factory,
        "input_shape": [4],
        "outputs": 2,
        "path": str(tmp_path),
    }


def test_custom_import_failure_is_a_clear_message(tmp_path):
    with pytest.raises(WorkloadError, match='cannot import module "missing_mod"'):
        build_model(
            {
                "kind": "custom",
                "factory": "missing_mod:build",
                "input_shape": [4],
                "outputs": 2,
                "path": str(tmp_path),
            }
        )


def test_custom_call_failure_is_a_clear_message(tmp_path):
    job = custom_job(tmp_path, "def build():\n    raise ValueError('boom')\n")
    with pytest.raises(WorkloadError, match=r'calling "m:build" failed \(ValueError: boom\)'):
        build_model(job)


def test_custom_factory_must_return_a_module(tmp_path):
    job = custom_job(tmp_path, "def build():\n    return 42\n")
    with pytest.raises(WorkloadError, match="returned int, not a torch.nn.Module"):
        build_model(job)


def test_custom_missing_function(tmp_path):
    job = custom_job(tmp_path, "x = 1\n", factory="m:nothing")
    with pytest.raises(WorkloadError, match='has no function "nothing"'):
        build_model(job)
