"""Per-device corrections of the device model, learned from measurements and stored as data. Design
notes: docs/reference/modules.md (planner/service/calibration.py)."""

from __future__ import annotations

import csv
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path

from planner.errors import RunError

BUNDLED = Path(__file__).resolve().parent.parent / "pricing" / "data" / "calibration.csv"
COLUMNS = ["device", "workload", "measured_step_seconds", "predicted_step_seconds", "source"]


@dataclass(frozen=True)
class CalibrationPoint:
    """One measured device of a run against the device model's prediction for it (a row of the file)."""

    device: str  # a GPU model ("T4") or a CPU instance family ("cpu:c7i")
    workload: str
    measured_step_seconds: float
    predicted_step_seconds: float
    source: str  # the run's directory

    @property
    def ratio(self) -> float:
        """measured / predicted: the correction this point asks for."""
        return self.measured_step_seconds / self.predicted_step_seconds


@dataclass(frozen=True)
class Calibration:
    """`planner calibrate`'s outcome: the points of the runs, the file they were appended to (None: a dry run, or
    no point), and the corrections now in force per device."""

    points: list[CalibrationPoint]
    saved_to: Path | None
    corrections: dict[str, float]


def user_file() -> Path:
    from pricing.catalog import cache_dir

    return cache_dir() / "calibration.csv"


def read_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return [row for row in csv.DictReader(f) if row.get("device")]


def corrections(paths: list[Path] | None = None) -> dict[str, float]:
    """device -> median(measured / predicted) over all rows of all sources."""
    ratios: dict[str, list[float]] = {}
    for path in paths if paths is not None else [BUNDLED, user_file()]:
        for row in read_rows(path):
            try:
                ratio = float(row["measured_step_seconds"]) / float(row["predicted_step_seconds"])
            except (ValueError, ZeroDivisionError):
                continue
            ratios.setdefault(row["device"], []).append(ratio)
    return {device: statistics.median(values) for device, values in ratios.items()}


def append_rows(rows: list[CalibrationPoint], path: Path | None = None) -> Path:
    path = path or user_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        new = not path.exists()
        with path.open("a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            if new:
                writer.writeheader()
            writer.writerows(asdict(row) for row in rows)
    except OSError as exc:
        raise RunError(
            f"cannot save the calibration to {path} ({exc.strerror or exc})",
            hint="set PLANNER_CACHE_DIR to a writable directory, or use --dry-run",
        ) from None
    return path


def gpu_model(device_name: str, known: list[str]) -> str | None:
    """'NVIDIA A10G' -> 'A10G', 'Tesla V100-SXM2-16GB' -> 'V100' (longest match: L40S before L4)."""
    return next(
        (
            name
            for name in sorted(known, key=len, reverse=True)
            if name.lower() in device_name.lower()
        ),
        None,
    )
