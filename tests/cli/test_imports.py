"""`planner --help` must answer fast: the CLI module may not import the heavy libraries."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

HEAVY = ("torch", "boto3", "botocore", "pandas", "textual", "rich", "pydantic", "yaml")

PROBE = f"""
import sys
from planner.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
loaded = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))
print("LOADED", ",".join(loaded))
"""


def test_help_imports_no_heavy_library():
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert "usage: planner" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "LOADED", proc.stdout
