"""Corrections from measurements: the median ratio per device, applied to predictions."""

from __future__ import annotations

import pytest

from planner.core.predict import GpuSpec, predict_gpu
from planner.service.calibration import CalibrationPoint, append_rows, corrections, gpu_model
from planner.workload.footprint import Layer


def test_median_ratio_per_device(tmp_path):
    path = tmp_path / "calibration.csv"
    append_rows(
        [
            CalibrationPoint("T4", "a", 2.0, 1.0, "x"),
            CalibrationPoint("T4", "b", 3.0, 1.0, "x"),
            CalibrationPoint("T4", "c", 10.0, 1.0, "x"),
            CalibrationPoint("cpu:c7i", "a", 1.0, 2.0, "x"),
        ],
        path,
    )
    assert corrections([path]) == {"T4": 3.0, "cpu:c7i": 0.5}
    assert corrections([tmp_path / "missing.csv"]) == {}


def test_a_correction_scales_the_prediction_and_narrows_its_interval():
    t4 = GpuSpec("T4", 16, 320, 8.1, {"fp16": 65})
    layers = [Layer("l", 1000, 1e9, 1e4)]
    raw = predict_gpu(layers, t4, 64, "fp32", "adam")
    fixed = predict_gpu(layers, t4, 64, "fp32", "adam", calibration=1.3)
    assert fixed.step_seconds == pytest.approx(1.3 * raw.step_seconds)
    assert (fixed.high - fixed.low) / fixed.step_seconds == pytest.approx(0.4)
    # uncalibrated: the model's cross-validated error band (no longer a fixed +-50%)
    assert (raw.high - raw.low) / raw.step_seconds > 0.4


def test_gpu_model_names():
    known = ["T4", "A10G", "L4", "L40S", "V100", "A100", "H100"]
    assert gpu_model("NVIDIA L40S", known) == "L40S"
    assert gpu_model("NVIDIA L4", known) == "L4"
    assert gpu_model("Tesla V100-SXM2-16GB", known) == "V100"
    assert gpu_model("NVIDIA H100 80GB HBM3", known) == "H100"
    assert gpu_model("NVIDIA GeForce RTX 4090", known) is None


def test_planner_calibrate_compares_a_runs_rented_cpu_with_its_prediction_and_saves_it(tmp_path):
    """A run with this machine's step and a rented CPU instance's: one point (the instance family's, predicted from
    the local step as estimate predicts it), printed; --dry-run saves nothing, a plain run appends it to the user's
    file and says the correction now in force."""
    import json
    import shutil

    from tests.cli.helpers import planner
    from tests.conftest import ROOT

    run = tmp_path / "run"
    shutil.copytree(ROOT / "tests/tui/fixtures/run-surface-mlp", run)
    local = json.loads((run / "results" / "local-cpu.json").read_text())
    rented = {**local, "target": "aws:c6i.xlarge", "region": "us-east-1", "purchase": "on-demand"}
    rented["step_seconds"] = 0.02
    (run / "results" / "aws-c6i.xlarge-cpu.json").write_text(json.dumps(rented))
    env = {"PLANNER_CACHE_DIR": str(tmp_path / "cache")}
    dry = planner("calibrate", run, "--dry-run", env=env)
    assert dry.code == 0, dry.err
    (line,) = dry.out.splitlines()
    device, workload, *_, ratio = line.split()
    assert (device, workload) == ("cpu:c6i", "surface-mlp")
    predicted = float(line.split("predicted")[1].split()[0]) / 1e3
    assert float(ratio.removeprefix("x")) == pytest.approx(0.02 / predicted, rel=0.01)
    assert not (tmp_path / "cache" / "calibration.csv").exists()
    saved = planner("calibrate", run, env=env)
    assert saved.code == 0 and saved.out == dry.out
    assert (tmp_path / "cache" / "calibration.csv").read_text().count("cpu:c6i") == 1
    assert f"cpu:c6i {ratio}" in " ".join(saved.err.split())
