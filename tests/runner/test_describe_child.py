"""A custom model is described in a child process: a factory that exits, aborts, hangs or allocates
without bound costs a clear message naming model.factory, never the planner."""

from __future__ import annotations

import time

import pytest

from planner.workload.spec import load_spec
from runner.bench.introspect import describe
from runner.local import DescribeError, describe_model
from tests.conftest import EXAMPLES

FACTORIES = """
import os, sys, time
from torch import nn

def exits(input_shape, outputs):
    sys.exit(0)

def aborts(input_shape, outputs):
    os.abort()

def hangs(input_shape, outputs):
    time.sleep(1000)

def hog(input_shape, outputs):
    return bytearray(8 * 2**30)
"""


def model(tmp_path, function: str) -> dict:
    (tmp_path / "factories.py").write_text(FACTORIES)
    return {
        "kind": "custom",
        "factory": f"factories:{function}",
        "path": str(tmp_path),
        "input_shape": [4],
        "outputs": 2,
    }


def test_the_same_description_as_in_process():
    job = load_spec(EXAMPLES / "custom-policy.yaml").to_job()
    assert describe_model(job) == describe(job)


def test_a_factory_that_exits_is_a_message(tmp_path):
    with pytest.raises(DescribeError, match=r"model.factory: .*called sys.exit"):
        describe_model(model(tmp_path, "exits"))


def test_a_factory_that_aborts_is_a_message(tmp_path):
    with pytest.raises(DescribeError, match="model.factory: .*killed by signal SIGABRT"):
        describe_model(model(tmp_path, "aborts"))


def test_a_factory_that_hangs_is_stopped(tmp_path):
    start = time.monotonic()
    with pytest.raises(DescribeError, match="did not finish within 5 s"):
        describe_model(model(tmp_path, "hangs"), timeout=5)
    assert time.monotonic() - start < 15


def test_a_factory_that_allocates_without_bound_is_a_message(tmp_path):
    with pytest.raises(DescribeError, match="model.factory: .*MemoryError"):
        describe_model(model(tmp_path, "hog"), memory_bytes=3 * 2**30)
