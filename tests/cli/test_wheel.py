"""Installed from a wheel, not a checkout: the package finds every data file it needs.

Builds the wheel from this tree, unpacks it with pip into a temporary folder placed first on
PYTHONPATH (the dependencies still come from this environment), and runs the commands that read
bundled files from a folder with no checkout around it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from tests.cli.helpers import planner
from tests.conftest import ROOT

SHIPPED = [
    "pricing/data/aws_prices.csv",
    "pricing/data/gpu_specs.csv",
    "pricing/data/calibration.csv",
    "pricing/data/SOURCE.md",
    "infra/planner-stack.yaml",
    "infra/reaper.py",
    "runner/bootstrap.sh",
    "runner/bench/__main__.py",
    "planner/tui/app.tcss",
]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(base / "dist"),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    wheel = next((base / "dist").glob("cloud_planner-*.whl"))
    site = base / "site"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr
    return wheel, site, base


def test_the_wheel_ships_the_data_files(installed):
    wheel, _, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [f for f in SHIPPED if f not in names] == []


def test_commands_that_read_bundled_files_work_from_the_wheel(installed):
    _, site, base = installed
    env = {"PYTHONPATH": str(site), "PLANNER_CACHE_DIR": str(base / "cache")}
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import planner, infra; print(planner.__file__); print(infra.__file__)",
        ],
        capture_output=True,
        text=True,
        cwd=base,
        env={**os.environ, **env},
        timeout=60,
    )
    assert where.stdout.splitlines() and all(
        line.startswith(str(site)) for line in where.stdout.splitlines()
    ), where

    r = planner("infra", "template", env=env, cwd=base)
    assert r.code == 0, r.err
    assert (
        "ReaperFunction" in r.out and "def lambda_handler" in r.out
    )  # the reaper's code is inlined
    r = planner("prices", "--region", "us-east-1", "--gpu", "--json", env=env, cwd=base)
    assert r.code == 0, r.err
    assert '"instance_type"' in r.out
