"""The plan document: one typed value from the decision to the screen, and its one converter.

`PlanDocument` is what every use case returns (estimate, run, replan, a what-if, a saved run): the
workload, the plan options, the typed `Plan` (ranked options, the headline and both answers with the
comparisons they rest on, the reference CPUs, its warnings and notes) and, by use case, the prices it used and
the paid benchmarks it suggests (an estimate) or the failed targets, what could not be terminated and
the bench's bill (a run). The fronts render it; none looks a field up by string key.

JSON only at the edges: `to_json` writes the document as `planner ... --json` prints it and a run's
plan.json holds it (strict JSON: an infinite number is null with a `<key>_note` beside it);
`from_json` reads any version this planner ever wrote. SCHEMA_VERSION 1 is every document written
before the version was stated (no `schema_version` key); 2 adds the key, nothing else; 3 splits `notes` (how the
plan was made) from `warnings` (caveats), which held both before (an older document's are read as warnings); 4 gives
a script's workload its own fields (`script_args`, `step_boundary`; null samples, batch size, data location and
task, and null epochs when no epoch was seen), where 3 wrote zeros, its arguments as `data_location` and its step
boundary as `task` (read as 4 writes them). A plan of a SkyPilot task whose resources pick instances also carries
`task_choice` (its source, its pick as written, the instances it allows and the `target` the plan prices it by): a key
added within 4, absent elsewhere and read as none. 6 writes each warning and note (and an option's `interval_note`) as a
fact: {"kind", its numbers, "text"} (planner.core.remarks), where 5 wrote the words alone (read as a `worded` remark).
Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from planner.core.decide import (
    TOO_CLOSE_MARGIN,
    BenchmarkChoice,
    Plan,
    RankedOption,
    Recommendation,
)
from planner.core.kinds import AnswerName, Objective, Purchase
from planner.core.remarks import Word, remark_from_json, remark_json
from planner.errors import InputError

if TYPE_CHECKING:
    from planner.workload.spec import WorkloadSpec

SCHEMA_VERSION = 6  # docs/reference/json.md: the versions
SCRIPT_KIND = "script"  # WorkloadSummary.kind of a user's training script
SCRIPT_FIELDS = ("script_args", "step_boundary")  # WorkloadSummary's fields only a script has


@dataclass(frozen=True)
class PlanOptions:
    """What a user chose for a plan (flags, the TUI's what-if): the objective and its terms, the price
    of this machine, where and how AWS instances are priced."""

    objective: Objective = "cheapest"
    deadline_seconds: float | None = None
    time_value_per_hour: float | None = None
    local_price_per_hour: float = 0.0
    region: str = "us-east-1"
    purchase: Purchase = "on-demand"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class WorkloadSummary:
    """The workload a plan is for, as its title states it."""

    name: str
    kind: str
    task: str | None  # a spec's task; None: a script
    samples: int | None  # None: a script (it sets its own data and batch)
    batch_size: int | None
    epochs: (
        int | float | None
    )  # a script's: its steps over the steps of a DataLoader epoch seen (None: none seen)
    steps_per_epoch: int | None
    total_steps: int
    precision: str
    data_location: str | None  # a spec's; None: a script
    script_args: list[str] | None = (
        None  # a script's own arguments (after --), as it runs with them
    )
    step_boundary: str | None = (
        None  # a script's: what its steps were found by (optimizer | backward)
    )

    @classmethod
    def of(cls, spec: WorkloadSpec) -> WorkloadSummary:
        return cls(
            spec.name,
            spec.model.kind,
            spec.task,
            spec.data.samples,
            spec.batch_size,
            spec.train.epochs,
            spec.steps_per_epoch,
            spec.total_steps,
            spec.train.precision,
            spec.data.location,
        )


@dataclass(frozen=True)
class PriceSource:
    source: str
    as_of: str


@dataclass(frozen=True)
class TaskChoice:
    """What the workload's SkyPilot task asks for (its `resources`: planner.core.task.TaskAsks), as the plan prices it:
    the task file, its choice as written, and the catalog instances in the plan's region it allows (none: no instance
    there has it). The plan is of every instance; this is the task's own pick among them, compared with the answer."""

    source: str
    written: str
    targets: list[str]


@dataclass(frozen=True)
class LeftRunning:
    """An instance a run could not terminate, with the command that will (the reaper's)."""

    label: str
    instance_id: str | None = None
    instance_type: str | None = None
    region: str | None = None
    run_id: str | None = None
    expires_at: str | None = None
    reap_command: str | None = None
    error: str | None = None  # why it could not even be looked for


@dataclass(frozen=True)
class ManagedInstance:
    """A planner-managed instance that bills or could (`planner ls`, the TUI's Instances pane): its tags read, its
    age and its cost so far at the catalog's price (None: the catalog lacks the type)."""

    instance_id: str
    instance_type: str
    state: str
    run_id: str | None
    age_seconds: float
    expires_at: str | None
    expired: bool
    cost_so_far_usd: float | None


@dataclass(frozen=True)
class PlanDocument:
    workload: WorkloadSummary
    plan: Plan
    options: PlanOptions
    run_dir: str | None = None
    # an estimate (None: not one): the prices it used, the paid benchmarks that would settle it and the rest
    prices: PriceSource | None = None
    benchmark: list[BenchmarkChoice] | None = None
    skipped: list[BenchmarkChoice] | None = None
    # a run (None: not one): targets that failed, instances not terminated, the bench's bill, `auto`'s choice
    failed_targets: list[str] | None = None
    interrupted_targets: list[str] | None = (
        None  # spot benches cut short by a reclaim (those with steps enough: planned)
    )
    unterminated: list[LeftRunning] | None = None
    bench_cost_usd: float | None = None
    auto: list[BenchmarkChoice] | None = None
    task_choice: TaskChoice | None = (
        None  # a SkyPilot task's resources (None: not a task, or it chose none)
    )

    # ------------------------------------------------------------------ what the fronts ask of a plan

    @property
    def recommendation(self) -> Recommendation:
        return self.plan.recommendation

    @property
    def recommended(self) -> RankedOption | None:
        """The row the headline names."""
        return self.plan.option_of(self.plan.recommendation)

    def is_recommended(self, o: RankedOption) -> bool:
        chosen = self.recommended
        return chosen is not None and o.key == chosen.key

    def answer(self, name: AnswerName) -> Recommendation | None:
        return self.plan.answers.get(name)

    @property
    def spans_regions(self) -> bool:
        """Priced over several regions (--region all, or a list): each instance in its cheapest, named with it."""
        from pricing.facts import is_many_regions

        return is_many_regions(self.options.region)

    @property
    def task_option(self) -> RankedOption | None:
        """The task's choice as the plan ranks it: the best usable option on an instance its resources allow (else the
        best of them, unusable); None when it chose none or no instance has it."""
        if self.task_choice is None:
            return None
        allowed = set(self.task_choice.targets)
        rows = [o for o in self.plan.options if o.target in allowed]
        return next((o for o in rows if o.usable), rows[0] if rows else None)

    @property
    def has_both_answers(self) -> bool:
        return self.plan.answers.keys() >= {"here", "rent"}

    def reference(self, name: AnswerName = "rent") -> RankedOption | None:
        """The reference CPU row a GPU row of `name`'s kind of place compares with (rule 4)."""
        return self.plan.reference(name)

    @property
    def break_even_cost(self) -> float | None:
        """Where a GPU breaks even: the objective value (cost, plus waiting at the time value) of the
        reference CPU its speedup compares with — speedup = break-even exactly when the GPU's run costs
        what the CPU's does. The rented reference, else this machine's when a GPU of its own has a
        speedup; None when no GPU row has one."""
        for name in ("rent", "here"):
            ref = self.reference(name)
            if ref is not None and any(
                o.speedup is not None and o.reference == ref.target for o in self.plan.options
            ):
                return ref.point_cost
        return None

    @property
    def trains_here_clearly(self) -> bool:
        """The headline is to train here and no paid benchmark of an instance would change it: it beats renting
        clearly (or renting is no answer); under a deadline, no rented option could meet it even at the optimistic
        end of its interval unless it meets it already, and here meets it for sure or the comparison of the two is
        clear. A document from
        before the comparison was kept says so only when renting was no answer."""
        rec = self.recommendation
        if rec.answer != "here" or rec.target is None:
            return False
        deadline = self.plan.deadline_seconds if self.plan.objective == "deadline" else None
        if deadline is not None and any(  # not sure to meet it: measured, it might
            not o.here
            and o.usable
            and (o.train_seconds_low or math.inf) <= deadline < (o.train_seconds_high or math.inf)
            for o in self.plan.options
        ):
            return False
        if (
            rec.choice_basis == "deadline"
        ):  # here meets the deadline for sure, and nothing rented can
            return True
        cmp = rec.choice_comparison
        if cmp is None:
            return not self.has_both_answers
        # a deadline nothing meets for sure: here against rent, as compared (measuring cannot meet it)
        return (cmp.verdict if rec.verdict == "deadline_missed" else rec.verdict) == "clear"

    @property
    def suggested_benchmarks(self) -> list[BenchmarkChoice]:
        """The paid benchmarks the fronts suggest (and the TUI picks): those that would settle the plan,
        none when training here wins clearly (`benchmark` still lists which would settle renting)."""
        return [] if self.trains_here_clearly else list(self.benchmark or [])

    @property
    def failed(self) -> list[RankedOption]:
        return [o for o in self.plan.options if o.failed]

    @property
    def headline_time_value_is_default(self) -> bool:
        return self.plan.time_value_per_hour is None


# ----------------------------------------------------------------------------- the converter

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
    workload = {
        k: v
        for k, v in asdict(doc.workload).items()  # a spec's has no script fields (as 3 wrote it)
        if doc.workload.kind == SCRIPT_KIND or k not in SCRIPT_FIELDS
    }
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
        if (
            doc.interrupted_targets
        ):  # only when a reclaim cut one short (documents written before lack it)
            out["interrupted_targets"] = list(doc.interrupted_targets)
        out["unterminated_instances"] = [
            {k: v for k, v in asdict(x).items() if v is not None} for x in doc.unterminated or []
        ]
        if doc.bench_cost_usd is not None:
            out["bench_cost_usd"] = doc.bench_cost_usd
        if doc.auto is not None:
            out["auto"] = [choice_json(c, word) for c in doc.auto]
    if (
        doc.task_choice is not None
    ):  # the task's own pick, and the row the plan prices it by (null: none here)
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
    d = _restore_infinities(data)
    answers = d.get("answers")
    if not answers and d.get(
        "cloud_recommendation"
    ):  # the oldest documents: the cloud answer alone
        answers = {"rent": d["cloud_recommendation"]}
    references = d.get("references")
    if (
        references is None
    ):  # before plans named their reference CPUs: the one every GPU row of a place names
        references = {
            ("here" if o.get("billing") == "local" else "rent"): o["reference"]
            for o in reversed(d.get("options") or [])
            if isinstance(o, dict) and o.get("reference")
        }
    headline = d.get("headline") or {}
    workload = d.get("workload")
    if version < 4 and isinstance(workload, dict) and workload.get("kind") == SCRIPT_KIND:
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
    try:
        return TypeAdapter(PlanDocument).validate_python(shaped)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
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
