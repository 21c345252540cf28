"""The run directory: everything a run learned, on disk the moment it is known.

    planner-runs/<UTC timestamp>-<name>/
        spec.yaml          the spec as the user wrote it (for people)
        spec.json          the validated spec (what `planner plan` re-reads)
        run.json           targets and plan options of the run
        results/<label>.json   one bench result per target, written atomically as it arrives
        plan.json          the plan (options + recommendation), rewritten by `planner plan`

Nothing is lost: a run killed halfway keeps every result measured before it died, and
`planner plan RUN_DIR` plans from whatever is there.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.errors import InputError
from planner.options import Target
from planner.spec import WorkloadSpec, parse_spec
from runner.bench.result import BenchResult, finite_json

DEFAULT_BASE = Path("planner-runs")


@dataclass(frozen=True)
class Measured:
    """One journaled bench result and where it was measured (an AWS result: in which region and
    purchase option, which the plan prices)."""

    target: Target
    result: BenchResult
    region: str | None = None
    purchase: str | None = None

    @property
    def label(self) -> str:
        return self.target.label(self.result.device)

    def to_dict(self) -> dict[str, Any]:
        data = {**self.result.to_dict(), "target": self.target.name}
        if self.target.cloud:
            data.update(instance_type=self.target.instance_type, region=self.region, purchase=self.purchase)
        return data

    @classmethod
    def from_dict(cls, label: str, data: dict[str, Any]) -> "Measured":
        target = Target.parse(data["target"]) if data.get("target") else Target.from_label(label)
        return cls(target, BenchResult.from_dict(data), data.get("region"), data.get("purchase"))


def _dumps(data: Any) -> str:
    return json.dumps(finite_json(data), indent=2, allow_nan=False) + "\n"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class RunJournal:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    @classmethod
    def create(cls, name: str, out: str | Path | None = None, now: dt.datetime | None = None) -> "RunJournal":
        if out is None:
            stamp = (now or dt.datetime.now(dt.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
            out = DEFAULT_BASE / f"{stamp}-{name}"
        path = Path(out)
        if path.exists() and any(path.iterdir()):
            raise InputError(f"--out {path}: the directory exists and is not empty", hint="give a new directory, or leave --out out")
        (path / "results").mkdir(parents=True, exist_ok=True)
        return cls(path)

    @classmethod
    def open(cls, path: str | Path) -> "RunJournal":
        journal = cls(path)
        if not (journal.path / "spec.json").exists():
            raise InputError(f"{path}: not a run directory (no spec.json)", hint="give a directory written by `planner run`")
        return journal

    # ------------------------------------------------------------------ write

    def write_spec(self, spec: WorkloadSpec, original_text: str | None = None) -> None:
        _write_atomic(self.path / "spec.json", _dumps(spec.model_dump(mode="json")))
        if original_text is not None:
            _write_atomic(self.path / "spec.yaml", original_text)

    def write_run(self, data: dict[str, Any]) -> None:
        _write_atomic(self.path / "run.json", _dumps(data))

    def write_result(self, label: str, measured: Measured) -> Path:
        path = self.path / "results" / f"{label}.json"
        _write_atomic(path, _dumps(measured.to_dict()))
        return path

    def write_plan(self, plan: dict[str, Any]) -> None:
        _write_atomic(self.path / "plan.json", _dumps(plan))

    # ------------------------------------------------------------------ read

    def read_spec(self) -> WorkloadSpec:
        return parse_spec(json.loads((self.path / "spec.json").read_text()), source=str(self.path / "spec.json"))

    def read_run(self) -> dict[str, Any]:
        path = self.path / "run.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def read_results(self) -> dict[str, Measured]:
        results = {}
        for path in sorted((self.path / "results").glob("*.json")):
            results[path.stem] = Measured.from_dict(path.stem, json.loads(path.read_text()))
        return results

    def read_plan(self) -> dict[str, Any] | None:
        path = self.path / "plan.json"
        return json.loads(path.read_text()) if path.exists() else None
