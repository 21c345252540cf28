"""Shared fixtures: example specs and small valid spec dicts."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

TINY_MLP = {
    "name": "tiny-mlp",
    "model": {"kind": "mlp", "input_size": 4, "hidden": [8], "outputs": 1},
    "data": {"samples": 256, "task": "regression", "location": "device"},
    "train": {"batch_size": 64, "epochs": 2, "optimizer": "adam", "learning_rate": 0.01},
}


@pytest.fixture
def tiny_mlp() -> dict:
    return copy.deepcopy(TINY_MLP)


@pytest.fixture
def write_spec(tmp_path):
    import yaml

    def write(data, name: str = "spec.yaml") -> Path:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else yaml.safe_dump(data))
        return path

    return write
