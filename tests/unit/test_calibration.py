"""Corrections from measurements: the median ratio per device, applied to predictions."""

from __future__ import annotations

import pytest

from planner.core.predict import GpuSpec, predict_gpu
from planner.service.calibration import append_rows, corrections, gpu_model
from planner.workload.footprint import Layer


def test_median_ratio_per_device(tmp_path):
    path = tmp_path / "calibration.csv"
    append_rows(
        [
            {
                "device": "T4",
                "workload": "a",
                "measured_step_seconds": 2.0,
                "predicted_step_seconds": 1.0,
                "source": "x",
            },
            {
                "device": "T4",
                "workload": "b",
                "measured_step_seconds": 3.0,
                "predicted_step_seconds": 1.0,
                "source": "x",
            },
            {
                "device": "T4",
                "workload": "c",
                "measured_step_seconds": 10.0,
                "predicted_step_seconds": 1.0,
                "source": "x",
            },
            {
                "device": "cpu:c7i",
                "workload": "a",
                "measured_step_seconds": 1.0,
                "predicted_step_seconds": 2.0,
                "source": "x",
            },
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
