"""A benchmark's report written as it prints: stdout teed into a Markdown file under a heading naming the command,
the commit, the machine and torch (benchmarks/results/*.md, which make docs includes in the site)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parent.parent


class Tee:
    """stdout, also written to a file: the report as printed, under its heading."""

    def __init__(self, out: TextIO, path: Path, heading: str) -> None:
        self.out, self.file = out, path.open("w")
        self.file.write(heading)

    def write(self, text: str) -> int:
        self.file.write(text)
        self.file.flush()
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


def heading(title: str, script: str) -> str:
    """'# TITLE (DATE)' and the command, the commit, the machine and torch."""
    import torch

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    command = " ".join([f"python benchmarks/{script}", *sys.argv[1:]])
    return (
        f"# {title} ({time.strftime('%Y-%m-%d')})\n\n"
        f"`{command}` at {commit or 'an unknown commit'}, on {os.cpu_count()} CPUs ({platform.machine()}), torch "
        f"{torch.__version__}: its report as it printed it.\n\n"
    )


def tee_stdout(path: str | None, title: str, script: str) -> None:
    """With a path (--out), stdout from here on also goes to it under heading(title, script)."""
    if path:
        sys.stdout = Tee(sys.stdout, Path(path), heading(title, script))  # type: ignore[assignment]
