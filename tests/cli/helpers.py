"""Run `planner` as a user does: a real subprocess, exit code, stdout and stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

from tests.conftest import ROOT


@dataclass
class Completed:
    code: int
    out: str
    err: str


def planner(*args: str, timeout: float = 300, env: dict | None = None, cwd=None) -> Completed:
    """`env` values of None remove the variable."""
    full_env = {**os.environ, "COLUMNS": "120", **(env or {})}
    full_env = {k: v for k, v in full_env.items() if v is not None}
    proc = subprocess.run(
        [sys.executable, "-m", "planner.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or ROOT,
        env=full_env,
    )
    return Completed(proc.returncode, proc.stdout, proc.stderr)
