"""The plan document's one converter (planner/core/document.py's PlanDocument as JSON, and back).

`to_json` writes the document as `planner ... --json` prints it and a run's plan.json holds it (strict JSON: an
infinite number is null with a `<key>_note` beside it); `from_json` reads any version this planner ever wrote (the
versions: planner/core/document.py and docs/reference/json.md). Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from planner.core.decide import TOO_CLOSE_MARGIN, BenchmarkChoice, Plan, RankedOption
from planner.core.document import (
    SCHEMA_VERSION,
    SCRIPT_KIND,
    LeftRunning,
    PlanDocument,
    PlanOptions,
    PriceSource,
    ScriptSummary,
    TaskChoice,
    WorkloadSummary,
)
from planner.core.remarks import Word, remark_from_json, remark_json
from planner.errors import InputError

UNBOUNDED_NOTES = {
    "break_even_speedup": "infinite: the CPU option it is compared with costs nothing per hour",
}


def strict_json(value: Any) -> Any:
    """`value` ready for strict JSON (allow_nan=False): every infinite or NaN number becomes null,
    with a `<key>_note` beside it saying why (an interval with no usable end, a break-even against
    a free option)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if isinstance(v, float) and not math.isfinite(v):
                out[k] = None
                out[f"{k}_note"] = UNBOUNDED_NOTES.get(
                    k,
                    "unbounded: no usable interval (see interval_note)"
                    if v > 0
                    else "not a number",
                )
            else:
                out[k] = strict_json(v)
        return out
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _restore_infinities(value: Any) -> Any:
    """strict_json's inverse: a null with an 'unbounded'/'infinite' `<key>_note` beside it is math.inf."""
    if isinstance(value, dict):
        out = {k: _restore_infinities(v) for k, v in value.items()}
        for k, v in value.items():
            note = value.get(f"{k}_note")
            if v is None and isinstance(note, str) and note.startswith(("unbounded", "infinite")):
                out[k] = math.inf
                del out[f"{k}_note"]
        return out
    if isinstance(value, list):
        return [_restore_infinities(v) for v in value]
    return value


def plan_json(plan: Plan, word: Word | None = None) -> dict[str, Any]:
    """The plan's part of the document (not yet strict: infinities stay until to_json)."""
    return {
        "objective": plan.objective,
        "deadline_seconds": plan.deadline_seconds,
        "time_value_per_hour": plan.time_value_per_hour,
        "options": [_option_json(o, word) for o in plan.options],
        "recommendation": asdict(plan.recommendation),
        "answers": {k: asdict(v) for k, v in plan.answers.items()},
        "headline": {
            "time_value_per_hour": plan.headline_time_value,
            "time_value_is_default": plan.time_value_per_hour is None,
        },
        "references": dict(plan.references),
        "too_close_margin": TOO_CLOSE_MARGIN,
        "warnings": [remark_json(w, word) for w in plan.warnings],
        "notes": [remark_json(n, word) for n in plan.notes],
    }


def _option_json(option: RankedOption, word: Word | None) -> dict[str, Any]:
    """An option's facts, its remarks each as {"kind", fields} (asdict would drop their kinds)."""
    data = asdict(option)
    data["note"] = [remark_json(n, word) for n in option.note]
    for key in ("caveat", "interval_note"):
        remark = getattr(option, key)
        data[key] = remark_json(remark, word) if remark is not None else None
    return data


def to_json(doc: PlanDocument, word: Word | None = None) -> dict[str, Any]:
    """The document as strict JSON data, keys in the order every version has printed them; given `word` (the
    report's), each remark with its words (`text`)."""
    workload = asdict(doc.workload)  # a spec's has no script fields (as 3 wrote it)
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "workload": workload,
        **plan_json(doc.plan, word),
        "plan_options": doc.options.as_dict(),
    }
    if doc.prices is not None:  # an estimate
        out["cloud_recommendation"] = (
            asdict(doc.plan.answers["rent"]) if "rent" in doc.plan.answers else None
        )
        out["prices"] = asdict(doc.prices)
        out["benchmark"] = [choice_json(c, word) for c in doc.benchmark or []]
        out["skipped"] = [choice_json(c, word) for c in doc.skipped or []]
    if doc.run_dir is not None:
        out["run_dir"] = doc.run_dir
    if doc.failed_targets is not None:  # a run
        out["failed_targets"] = list(doc.failed_targets)
        # only when a reclaim cut one short (documents written before lack it)
        if doc.interrupted_targets:
            out["interrupted_targets"] = list(doc.interrupted_targets)
        out["unterminated_instances"] = [
            {k: v for k, v in asdict(x).items() if v is not None} for x in doc.unterminated or []
        ]
        if doc.bench_cost_usd is not None:
            out["bench_cost_usd"] = doc.bench_cost_usd
        if doc.auto is not None:
            out["auto"] = [choice_json(c, word) for c in doc.auto]
    # the task's own pick, and the row the plan prices it by (null: none here)
    if doc.task_choice is not None:
        chosen = doc.task_option
        out["task_choice"] = {
            **asdict(doc.task_choice),
            "target": chosen.target if chosen else None,
        }
    strict: dict[str, Any] = strict_json(out)
    return strict


def _option_of_json(o: Any) -> Any:
    """An option as any version wrote it: its note a list of remarks, its caveat and interval note a remark or none
    (before 6, words: "; "-joined notes kept whole as one, "" none)."""
    if not isinstance(o, dict):
        return o
    out = dict(o)
    for key in ("caveat", "interval_note"):
        if key in o:
            out[key] = remark_from_json(o[key]) if o[key] else None
    if "note" in o:
        note = o["note"]
        out["note"] = tuple(
            remark_from_json(n)
            for n in (note if isinstance(note, list) else [note] if note else [])
        )
    return out


def _choices_of_json(choices: Any) -> Any:
    return [_choice_of_json(c) for c in choices] if isinstance(choices, list) else choices


def _choice_of_json(c: Any) -> Any:
    """A paid benchmark's choice as any version wrote it: its option's notes as remarks (none before 6)."""
    if isinstance(c, dict) and "notes" in c:
        return {**c, "notes": tuple(remark_from_json(n) for n in c["notes"] or [])}
    return c


def choice_json(choice: BenchmarkChoice, word: Word | None = None) -> dict[str, Any]:
    """A paid benchmark's choice: its target, whether to benchmark it, and the facts of why that are set (a document
    written before the reasons were facts is written back as it was: its words in `reason`)."""
    data = {**asdict(choice), "notes": [remark_json(n, word) for n in choice.notes]}
    return {
        k: v
        for k, v in data.items()
        if k in ("target", "benchmark") or v not in (None, "", False, [])
    }


def _script_workload_of_3(w: dict[str, Any]) -> dict[str, Any]:
    """A script's workload as schema 3 wrote it (zeros for what a script does not state, its arguments joined as
    `data_location`, its step boundary as `task`), as 4 writes it."""
    location = w.get("data_location")
    return {
        **w,
        "task": None,
        "samples": None,
        "batch_size": None,
        "data_location": None,
        "epochs": w.get("epochs") or None,
        "steps_per_epoch": w.get("steps_per_epoch") or None,
        "script_args": location.split() if isinstance(location, str) and location else [],
        "step_boundary": w.get("task"),
    }


def _shaped(d: Any, version: int) -> dict[str, Any]:
    """A document of any version in the shape PlanDocument validates (older versions' fields renamed, filled in)."""
    answers = d.get("answers")
    # the oldest documents: the cloud answer alone
    if not answers and d.get("cloud_recommendation"):
        answers = {"rent": d["cloud_recommendation"]}
    references = d.get("references")
    # before plans named their reference CPUs: the one every GPU row of a place names
    if references is None:
        references = {
            ("here" if o.get("billing") == "local" else "rent"): o["reference"]
            for o in reversed(d.get("options") or [])
            if isinstance(o, dict) and o.get("reference")
        }
    headline = d.get("headline") or {}
    workload = d.get("workload")
    script = isinstance(workload, dict) and workload.get("kind") == SCRIPT_KIND
    if version < 4 and script:
        workload = _script_workload_of_3(workload)
    shaped = {
        "workload": workload,
        "plan": {
            "objective": d.get("objective"),
            "options": [_option_of_json(o) for o in d.get("options") or []],
            "recommendation": d.get("recommendation"),
            "deadline_seconds": d.get("deadline_seconds"),
            "time_value_per_hour": d.get("time_value_per_hour"),
            "warnings": [remark_from_json(w) for w in d.get("warnings") or []],
            "answers": answers or {},
            "headline_time_value": headline.get("time_value_per_hour"),
            "references": references,
            "notes": [remark_from_json(n) for n in d.get("notes") or []],
        },
        "options": d.get("plan_options", {}),
        "run_dir": d.get("run_dir"),
        "prices": d.get("prices"),
        "benchmark": _choices_of_json(d.get("benchmark")),
        "skipped": _choices_of_json(d.get("skipped")),
        "failed_targets": d.get("failed_targets"),
        "interrupted_targets": d.get("interrupted_targets"),
        "unterminated": d.get("unterminated_instances"),
        "bench_cost_usd": d.get("bench_cost_usd"),
        "auto": _choices_of_json(d.get("auto")),
        "task_choice": {k: v for k, v in d["task_choice"].items() if k != "target"}
        if isinstance(d.get("task_choice"), dict)
        else d.get("task_choice"),
    }
    if shaped["failed_targets"] is None and shaped["unterminated"] is not None:
        shaped["failed_targets"] = []
    return shaped


def from_json(data: Any, source: str = "the plan") -> PlanDocument:
    """A document as any version of the planner wrote it (to_json's, or plan.json of a run made before
    SCHEMA_VERSION was stated); InputError naming `source` and the field when it is not one."""
    from pydantic import TypeAdapter, ValidationError

    if not isinstance(data, dict):
        raise InputError(
            f"{source}: not a plan document (a JSON object)",
            hint="give a plan.json or `--json` output",
        )
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise InputError(
            f"{source}: schema_version {version!r} is newer than this planner reads ({SCHEMA_VERSION})",
            hint="upgrade cloud-planner to read it",
        )
    shaped = _shaped(_restore_infinities(data), version)
    workload = shaped["workload"]
    try:
        # its kind's summary (a script's, a spec's): the union does not guess
        if isinstance(workload, dict):
            script = workload.get("kind") == SCRIPT_KIND
            summary = TypeAdapter(ScriptSummary if script else WorkloadSummary)
            shaped["workload"] = summary.validate_python(workload)
        return TypeAdapter(PlanDocument).validate_python(shaped)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = first["loc"] if exc.title == "PlanDocument" else ("workload", *first["loc"])
        # the union's member a value was tried as is not a place in the document
        loc = tuple(p for p in loc if p not in ("ScriptSummary", "WorkloadSummary"))
        where = ".".join(str(p) for p in loc)
        raise InputError(
            f"{source}: {where}: {first['msg']}",
            hint="the document was edited or cut short; `planner plan RUN_DIR` writes it again",
        ) from None


__all__ = [
    "LeftRunning",
    "PlanDocument",
    "PlanOptions",
    "PriceSource",
    "SCHEMA_VERSION",
    "SCRIPT_KIND",
    "TaskChoice",
    "WorkloadSummary",
    "from_json",
    "plan_json",
    "strict_json",
    "to_json",
]
