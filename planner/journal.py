"""The run directory: everything a run learned, on disk the moment it is known. Design notes:
docs/reference/modules.md (planner/journal.py)."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.core.candidates import Target
from planner.core.document import PlanDocument, PlanOptions
from planner.core.document_json import from_json
from planner.core.script import ScriptJob
from planner.errors import InputError, JournalError, RunError
from planner.journal_checks import (
    MAX_JOURNAL_BYTES,
    MAX_RESULTS,
    json_kind,
    plan_option_problems,
    result_problems,
)
from planner.report.text import worded_json
from planner.units import path_problem, shown_path
from planner.workload.load import read_regular_file, read_spec_file
from runner.bench.result import BenchResult, finite_json

if TYPE_CHECKING:  # the spec's models (pydantic) load when a spec is read
    from planner.workload.spec import WorkloadSpec

DEFAULT_BASE = Path("planner-runs")

# a value of run.json's "bench" (the bench's options: device, seconds, sweep, threads, processes)
BenchOption = str | float | int | bool | None


def _of(value: Any, kind: type) -> Any:
    """`value` when it is a `kind` (what run.json's readers take), else None: the record stays readable."""
    return value if isinstance(value, kind) else None


@dataclass
class RunRecord:
    """run.json: what a run was asked (its targets, plan options and bench options) and what it learnt on the
    way (the instances `auto` chose, the notices of a fallback). Written again as each of these arrives."""

    run_id: str = ""
    targets: list[str] = field(default_factory=list)
    plan_options: PlanOptions = field(default_factory=PlanOptions)
    bench: dict[str, BenchOption] | None = None  # a spec's; a script's bench options are its job
    footprint_bytes: int | None = None  # a spec's: what the real run holds (replans check it)
    auto: list[dict[str, object]] | None = None  # `auto`'s choice of instances (choice_words)
    notices: list[dict[str, str]] = field(default_factory=list)  # {"label", "text"}

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "run_id": self.run_id,
            "targets": self.targets,
            "plan_options": asdict(self.plan_options),
        }
        for name in ("bench", "footprint_bytes", "auto"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.notices:
            out["notices"] = self.notices
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        """run.json as read (its plan options checked by plan_option_problems; an older run's may lack any)."""
        known = {f.name for f in fields(PlanOptions)}
        options = data.get("plan_options", {})
        return cls(
            run_id=str(data.get("run_id", "")),
            targets=[str(t) for t in _of(data.get("targets"), list) or []],
            plan_options=PlanOptions(**{k: v for k, v in options.items() if k in known}),
            bench=_of(data.get("bench"), dict),
            footprint_bytes=_of(data.get("footprint_bytes"), int),
            auto=_of(data.get("auto"), list),
            notices=_of(data.get("notices"), list) or [],
        )


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
            data.update(
                instance_type=self.target.instance_type, region=self.region, purchase=self.purchase
            )
        return data

    @classmethod
    def from_dict(cls, label: str, data: dict[str, Any]) -> Measured:
        target = Target.parse(data["target"]) if data.get("target") else Target.from_label(label)
        return cls(target, BenchResult.from_dict(data), data.get("region"), data.get("purchase"))


def _dumps(data: Any) -> str:
    return json.dumps(finite_json(data), indent=2, allow_nan=False) + "\n"


# ----------------------------------------------------------------------------- what a journal may hold


def _edited(path: Path, problems: list[str]) -> JournalError:
    shown = shown_path(str(path))
    message = (
        f"{shown}: {problems[0]}"
        if len(problems) == 1
        else "\n".join([shown, *(f"  {p}" for p in problems[:10])])
    )
    return JournalError(
        message,
        hint="the journal was edited or cut short: fix or remove this file (a result "
        "file removed is a target not planned), or run `planner run` again",
    )


def _read_json(path: Path, problems_of: Callable[[Any], list[str]] = lambda data: []) -> Any:
    """The JSON in a journal file, read bounded: a regular file of at most MAX_JOURNAL_BYTES (a FIFO
    or a directory in its place is refused without blocking), UTF-8, not empty, not cut short, and
    without the problems `problems_of` finds in it (each a line of the JournalError)."""
    try:
        info, data = read_regular_file(path, MAX_JOURNAL_BYTES)
    except OSError as exc:
        raise JournalError(
            f"{shown_path(str(path))}: cannot read it ({exc.strerror or exc})",
            hint="check the run directory",
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise _edited(path, ["is not a regular file"])
    if info.st_size > MAX_JOURNAL_BYTES:
        raise _edited(
            path, [f"is {info.st_size:,} bytes; a journal file is at most {MAX_JOURNAL_BYTES:,}"]
        )
    if len(data) > MAX_JOURNAL_BYTES:  # it grew since fstat
        raise _edited(
            path, [f"is more than {MAX_JOURNAL_BYTES:,} bytes; a journal file is at most that"]
        )
    if not data.strip():
        raise _edited(path, ["is empty (the run may have been stopped while writing it)"])
    try:
        found = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise _edited(path, ["is not UTF-8 text"]) from None
    except json.JSONDecodeError as exc:
        raise _edited(
            path, [f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"]
        ) from None
    except (
        ValueError,
        RecursionError,
    ):  # a number past 4,300 digits, nesting deeper than the parser goes
        raise _edited(
            path, ["is not a journal's JSON (a number too long or nesting too deep)"]
        ) from None
    problems = problems_of(found)
    if problems:
        raise _edited(path, problems)
    return found


def check_run_dir(path: str | os.PathLike[str], flag: str = "--out") -> Path:
    """A run directory that `RunJournal.create` can make and fill: a new or empty directory whose
    nearest existing parent is a writable directory. Checked before a run starts."""
    text = os.fspath(path)
    shown = f"{flag} {shown_path(text)}"
    hint = "give a new directory for the run journal, or leave --out out"
    problem = path_problem(text)
    if problem:
        raise InputError(f"{shown}: the path {problem}", hint=hint)
    out = probe = Path(text)
    try:
        while not os.path.lexists(probe) and probe.parent != probe:
            probe = probe.parent
        mode = os.stat(probe).st_mode
        empty = True
        if probe == out and stat.S_ISDIR(mode):
            with os.scandir(out) as found:
                empty = next(found, None) is None
    except OSError as exc:
        raise InputError(
            f"{shown}: cannot use this path ({exc.strerror or exc})", hint=hint
        ) from None
    if not stat.S_ISDIR(mode):
        where = "is a file" if probe == out else f"{shown_path(str(probe))} is a file"
        raise InputError(f"{shown}: {where}, not a directory", hint=hint)
    if not empty:
        raise InputError(f"{shown}: the directory exists and is not empty", hint=hint)
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(
            f"{shown}: cannot write in {shown_path(str(probe))} (permission denied)", hint=hint
        )
    return out


def new_run_dir(
    name: str, folder: str | Path | None = None, now: dt.datetime | None = None
) -> Path:
    """Where a run of `name` journals in `folder` (None: planner-runs/) without --out: <UTC time>-<name>."""
    return (
        Path(folder or DEFAULT_BASE)
        / f"{(now or dt.datetime.now(dt.timezone.utc)):%Y%m%dT%H%M%SZ}-{name}"
    )


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # the directory itself is what failed
            pass
        raise RunError(
            f"cannot write {shown_path(str(path))}: {exc.strerror or exc}",
            hint="free some disk space or fix the directory's permissions; what was written before is kept",
        ) from None


class RunJournal:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    @classmethod
    def create(
        cls, name: str, out: str | Path | None = None, now: dt.datetime | None = None
    ) -> RunJournal:
        path = check_run_dir(out if out is not None else new_run_dir(name, now=now))
        try:
            (path / "results").mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(
                f"--out {shown_path(str(path))}: cannot create it ({exc.strerror or exc})",
                hint="give a new directory for the run journal, or leave --out out",
            ) from None
        return cls(path)

    @classmethod
    def open(cls, path: str | Path) -> RunJournal:
        """A run directory to read; JournalError unless it is one (a directory with spec.json)."""
        text = os.fspath(path)
        hint = "give a directory written by `planner run` (planner-runs/<time>-<name>)"
        problem = path_problem(text)
        if problem:
            raise JournalError(f"{shown_path(text)}: the path {problem}", hint=hint)
        try:
            mode = os.stat(text).st_mode
            has_spec = stat.S_ISDIR(mode) and any(
                os.path.lexists(os.path.join(text, name)) for name in ("spec.json", "script.json")
            )
        except FileNotFoundError:
            raise JournalError(f"{shown_path(text)}: no such directory", hint=hint) from None
        except OSError as exc:
            raise JournalError(
                f"{shown_path(text)}: cannot read it ({exc.strerror or exc})", hint=hint
            ) from None
        if not stat.S_ISDIR(mode):
            raise JournalError(f"{shown_path(text)}: is a file, not a run directory", hint=hint)
        if not has_spec:
            raise JournalError(
                f"{shown_path(text)}: not a run directory (no spec.json), nor a script's run (no script.json)",
                hint=hint,
            )
        return cls(path)

    # ------------------------------------------------------------------ write

    def write_spec(self, spec: WorkloadSpec, original_text: str | None = None) -> None:
        _write_atomic(self.path / "spec.json", _dumps(spec.model_dump(mode="json")))
        if original_text is not None:
            _write_atomic(self.path / "spec.yaml", original_text)

    def write_run(self, record: RunRecord) -> None:
        _write_atomic(self.path / "run.json", _dumps(record.to_json()))

    def write_result(self, label: str, measured: Measured) -> Path:
        path = self.path / "results" / f"{label}.json"
        _write_atomic(path, _dumps(measured.to_dict()))
        return path

    def write_plan(self, plan: PlanDocument) -> None:
        _write_atomic(self.path / "plan.json", _dumps(worded_json(plan)))  # as --json prints it

    # ------------------------------------------------------------------ read

    def read_spec(self) -> WorkloadSpec:
        """spec.json through the spec's own safe loader: a SpecError names the file and the field."""
        path = self.path / "spec.json"
        from planner.workload.spec import parse_spec_text

        return parse_spec_text(read_spec_file(path), source=str(path))

    def read_run(self) -> RunRecord:
        """run.json (an empty record when the run has none)."""
        path = self.path / "run.json"
        if not os.path.lexists(path):
            return RunRecord()
        return RunRecord.from_json(_read_json(path, plan_option_problems))

    def read_results(self) -> dict[str, Measured]:
        try:
            paths = sorted((self.path / "results").glob("*.json"))
        except OSError as exc:
            raise JournalError(
                f"{shown_path(str(self.path / 'results'))}: cannot list it ({exc.strerror or exc})"
            ) from None
        if len(paths) > MAX_RESULTS:
            raise JournalError(
                f"{shown_path(str(self.path / 'results'))}: {len(paths):,} result files; a run has at most "
                f"{MAX_RESULTS:,}",
                hint="give a directory written by `planner run`",
            )
        results = {}
        for path in paths:
            data = _read_json(path, lambda found: result_problems(path.stem, found))  # noqa: B023 - called at once
            results[path.stem] = Measured.from_dict(path.stem, data)
        return results

    def read_plan(self) -> PlanDocument | None:
        """plan.json through the document's one converter (any version the planner wrote); None before
        the run has planned; JournalError naming the file and the field when it is damaged."""
        path = self.path / "plan.json"
        if not os.path.lexists(path):
            return None
        data = _read_json(path)
        if not isinstance(data, dict):
            raise _edited(path, [f"must be a JSON object (a plan), got {json_kind(data)}"])
        try:
            return from_json(data, shown_path(str(path)))
        except InputError as exc:
            raise _edited(path, [str(exc).split(": ", 1)[-1]]) from None

    # ------------------------------------------------------------------ a run of the user's training script

    @property
    def is_script(self) -> bool:
        return (self.path / "script.json").exists()

    def write_script(self, job: ScriptJob) -> None:
        _write_atomic(self.path / "script.json", _dumps(asdict(job)))

    def read_script(self) -> ScriptJob:
        path = self.path / "script.json"
        return typed(path, _read_json(path), ScriptJob.from_json)


def typed(path: Path, data: Any, read: Callable[[Any], Any]) -> Any:
    """`data` (read from the journal file `path`) by its dataclass's own types; a JournalError naming the file and
    the field when it is not one."""
    from pydantic import ValidationError

    try:
        return read(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise _edited(
            path, [f"{'.'.join(str(p) for p in first['loc']) or 'the file'}: {first['msg']}"]
        ) from None
