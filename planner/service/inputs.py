"""What each flag accepts, and the output paths, checked before any work (issue 16), for both
fronts. Design notes: docs/reference/modules.md (planner/service/inputs.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from planner.errors import InputError
from planner.journal import check_run_dir as check
from planner.service.flags import flag_range, parse_flag
from planner.units import path_problem, shown_path
from planner.workload.limits import MAX_TOTAL_STEPS
from planner.workload.load import read_spec_file

# ----------------------------------------------------------------------------- paths


def _mode(path: Path) -> int | None:
    """The file type of `path` (None: nothing there); OSError for what stat cannot answer."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # a/b where a is a file: nothing there either
        return None


def _fifo_has_reader(path: Path) -> bool:
    """Whether writing to this named pipe would go somewhere now (opening one without a reader
    blocks for ever; non-blocking, it fails at once instead)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return False
    os.close(fd)
    return True


def check_out_file(path: str, flag: str = "--out", example: str = "bench.json") -> Path:
    """A file a command writes when it is done (`bench --out`): its directory exists and is
    writable, and it is not a directory, before any work. A pipe with a reader (`/dev/stdout`)
    and a device (`/dev/null`) are fine."""
    shown = f"{flag} {shown_path(path)}"
    problem = path_problem(path)
    if problem:
        raise InputError(f"{shown}: the path {problem}", hint="give a shorter path to a file")
    out = Path(path)
    parent = out.parent
    try:
        mode, parent_mode = _mode(out), _mode(parent)
    except OSError as exc:
        raise InputError(
            f"{shown}: cannot use this path ({exc.strerror or exc})", hint="give another path"
        ) from None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(
            f"{shown}: is a directory",
            hint=f"give a file name, e.g. {flag} {shown_path(str(out / example))}",
        )
    if mode is not None and stat.S_ISFIFO(mode) and not _fifo_has_reader(out):
        raise InputError(f"{shown}: is a named pipe nothing reads from", hint="give a regular file")
    if mode is not None and stat.S_ISSOCK(mode):
        raise InputError(f"{shown}: is a socket", hint="give a regular file")
    if parent_mode is None or not stat.S_ISDIR(parent_mode):
        what = "does not exist" if parent_mode is None else "is not a directory"
        raise InputError(
            f"{shown}: the directory {shown_path(str(parent))} {what}",
            hint="create the directory first, or write the file somewhere else",
        )
    if mode is None and not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(
            f"{shown}: cannot create a file in {shown_path(str(parent))} (permission denied)",
            hint="write the file somewhere you may write",
        )
    if mode is not None and not os.access(out, os.W_OK):
        raise InputError(
            f"{shown}: the file exists and is not writable (permission denied)",
            hint="give another file",
        )
    return out


def check_epochs(spec: Any, epochs: int | None, flag: str = "--epochs") -> None:
    """`validate --epochs N` trains N epochs of `spec`: the spec's limit on total steps applies to
    them as it does to its own train.epochs (planner/workload/limits.py)."""
    if epochs is None:
        return
    steps = spec.steps_per_epoch * epochs
    if steps > MAX_TOTAL_STEPS:
        raise InputError(
            f"{flag} {epochs:,}: {epochs:,} epochs x {spec.steps_per_epoch:,} steps per epoch = {steps:,} "
            f"steps; at most {MAX_TOTAL_STEPS:,}",
            hint="train fewer epochs, or give the spec a larger train.batch_size",
        )


def check_spec_file(path: str) -> str:
    """The text of a spec file an editor will read whole (`planner tui SPEC`, the TUI's editor): the
    spec loader's own file rules (a regular UTF-8 file of at most 256 KiB), so a FIFO or /dev/zero
    is refused before it opens. Its content may be invalid: the editor shows why."""
    return read_spec_file(path)


def check_run_dir(path: str) -> Path:
    """`run --out RUN_DIR`: a new or empty directory that can be made, before anything runs."""
    return check(path)


__all__ = [
    "check_epochs",
    "check_out_file",
    "check_run_dir",
    "check_spec_file",
    "flag_range",
    "parse_flag",
    "path_problem",
    "shown_path",
]
