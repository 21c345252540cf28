"""`planner --help` and each command's `--help` must answer fast: the parser imports neither the heavy
libraries nor the core (issue 41), only the flags' rules."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

HEAVY = ("torch", "boto3", "botocore", "pandas", "textual", "rich", "pydantic", "yaml")
BELOW = ("planner.core", "planner.workload", "planner.journal", "runner", "infra")

PROBE = f"""
import sys
from planner.cli import build_parser, main
commands = next(a for a in build_parser()._actions if a.dest == "command").choices
for argv in [["--help"]] + [[name, "--help"] for name in commands]:
    try:
        main(argv)
    except SystemExit:
        pass
loaded = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))
below = sorted(m for m in sys.modules if m.startswith({BELOW!r}))
print("COMMANDS", len(commands))
print("LOADED", ",".join(loaded + below))
"""


def test_help_of_every_command_imports_no_heavy_library_and_no_core():
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert "usage: planner" in proc.stdout
    lines = proc.stdout.strip().splitlines()
    assert int(lines[-2].split()[1]) >= 14, lines[-2]  # every command's --help was asked
    assert lines[-1] == "LOADED", lines[-1]


def test_the_service_and_the_report_load_without_the_heavy_libraries():
    """The TUI's first frame and every command load the service and the report: pydantic (the spec's models, the
    progress events, the bench job), pandas, torch and boto3 are imported where they are used (the TUI warms
    pydantic and pandas after the first frame), not when these load."""
    probe = (
        "import sys, planner.service.facade, planner.report.text, planner.report.terse\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}) - {{'rich'}}))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr
