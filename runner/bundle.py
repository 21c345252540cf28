"""The instance's contract: what ships to it (the bench bundle, the user-data that runs it) and
what comes back (a result file, checked before it is believed). Design notes:
docs/reference/modules.md (runner/bundle.py)."""

from __future__ import annotations

import copy
import io
import os
import zipfile
from pathlib import Path
from typing import Any

from planner.errors import InputError

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
BOOTSTRAP = Path(__file__).resolve().parent / "bootstrap.sh"
USER_DATA_LIMIT = 16 * 1024
RESULT_MAX_BYTES = 4 * 2**20  # a bench result is a few KB; anything near this is not one
USER_DIR = "user"  # the user's code inside the bundle; the job's model.path on the instance
USER_CODE_MAX_BYTES = 20 * 2**20
USER_CODE_MAX_FILES = 1000
SKIPPED_DIRS = frozenset(
    {
        "__pycache__",
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "env",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ipynb_checkpoints",
        ".tox",
    }
)

UserFiles = list[tuple[Path, str]]  # (file here, its name in the bundle)


def _walk(folder: Path, prefix: str, field: str) -> UserFiles:
    files: UserFiles = []
    total = 0
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(names):
            path = Path(root) / name
            if name.endswith((".pyc", ".pyo")) or name.startswith(".") or not path.is_file():
                continue
            total += path.stat().st_size
            files.append((path, f"{prefix}/{path.relative_to(folder).as_posix()}"))
            if total > USER_CODE_MAX_BYTES or len(files) > USER_CODE_MAX_FILES:
                raise InputError(
                    f"{field}: {folder} holds more than {USER_CODE_MAX_BYTES // 2**20} MiB or {USER_CODE_MAX_FILES} "
                    f"files; all of it would ship to the instance with the model",
                    hint="keep the model's code in a folder of its own (data, checkpoints and virtualenvs elsewhere) "
                    "and point model.path at it",
                )
    return files


def user_code(model: dict[str, Any], cwd: Path | None = None) -> UserFiles:
    """The files of a custom model that must ship with the bench ([] when there are none)."""
    if model.get("kind") != "custom":
        return []
    if model.get("path"):
        path = Path(model["path"])
        folder = path.parent if path.suffix == ".py" else path
        if not folder.is_dir():
            raise InputError(
                f"model.path: {folder} is not a folder",
                hint="point model.path at the folder of the model's module",
            )
        return _walk(folder, USER_DIR, "model.path")
    top = str(model.get("factory", "")).partition(":")[0].split(".")[0]
    here = Path(cwd or Path.cwd())
    if top and (here / f"{top}.py").is_file():
        return [(here / f"{top}.py", f"{USER_DIR}/{top}.py")]
    if top and (here / top / "__init__.py").is_file():
        return _walk(here / top, f"{USER_DIR}/{top}", "model.factory")
    return []  # an installed module: the instance's Python must have it too


def job_for_instance(job: dict[str, Any], files: UserFiles) -> dict[str, Any]:
    """The job as the instance reads it: a shipped model's path is the bundle's `user/` folder
    (relative: the bench runs in the unpacked bundle), never this machine's absolute path."""
    if not files:
        return job
    out = copy.deepcopy(job)
    out["spec"]["model"]["path"] = USER_DIR
    return out


def bench_bundle(files: UserFiles | None = None) -> bytes:
    """runner/__init__.py + runner/bench/*.py + the script launcher, and the user's files: all the instance needs."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(PACKAGE_ROOT / "runner" / "__init__.py", "runner/__init__.py")
        for name in (
            "script.py",
            "script_job.py",
            "standin.py",
        ):  # a user's training script as a bench job
            zf.write(PACKAGE_ROOT / "runner" / name, f"runner/{name}")
        for path in sorted((PACKAGE_ROOT / "runner" / "bench").glob("*.py")):
            zf.write(path, f"runner/bench/{path.name}")
        for path, name in files or ():
            zf.write(path, name)
    return buf.getvalue()


def render_bootstrap(
    run_id: str,
    label: str,
    urls: dict[str, str],
    deadman_minutes: int,
    bench_timeout: int,
    spot: bool = False,
) -> str:
    """The instance's user-data (runner/bootstrap.sh) for one target; `spot`: watch for the interruption notice."""
    text = BOOTSTRAP.read_text()
    values = {
        "__SPOT__": "1" if spot else "0",
        "__RUN_ID__": run_id,
        "__LABEL__": label,
        "__BUNDLE_URL__": urls["bundle"],
        "__JOB_URL__": urls["job"],
        "__RESULT_URL__": urls["result"],
        "__LOG_URL__": urls["log"],
        "__DEADMAN_MINUTES__": str(deadman_minutes),
        "__BENCH_TIMEOUT__": str(bench_timeout),
    }
    for key, value in values.items():
        if "'" in value:
            raise ValueError(f"unexpected quote in {key}")
        text = text.replace(key, value)
    if len(text.encode()) > USER_DATA_LIMIT:
        raise ValueError(f"user-data is {len(text.encode())} bytes, over EC2's 16 KB limit")
    return text
