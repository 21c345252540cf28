"""What a plan says beside its rows, as facts: each remark is a kind with its numbers;
planner.report.remarks words it. Design notes: docs/reference/modules.md
(planner/core/remarks/base.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

KINDS: dict[str, type[Remark]] = {}  # kind -> class, filled as each kind is defined


@dataclass(frozen=True)
class Remark:
    """A fact the plan says beside its rows. Subclasses set `kind` and hold the numbers and names the words need."""

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind:
            KINDS[cls.kind] = cls


@dataclass(frozen=True)
class Worded(Remark):
    """A remark whose words came with it: read from a document written before remarks were facts (schema <= 5), or
    of a kind this planner does not know."""

    kind: ClassVar[str] = "worded"
    text: str


@dataclass(frozen=True)
class Unknown(Remark):
    """A remark of a kind this planner does not know, or of a shape it does not read (a newer planner's or bench's):
    its `name` (the kind it was written as), its `facts` (name, value) and its words when it came with them."""

    kind: ClassVar[str] = ""  # written back as `name`: see remark_json
    name: str
    facts: tuple[tuple[str, Any], ...] = ()
    text: str = ""


@dataclass(frozen=True)
class Said:
    """What a plan says beside its rows, kept apart so a caveat is not buried among facts: `warnings`
    (a busy machine, a drifting step, time the estimate leaves out, an emulated precision) and `notes`
    (how it was made: the step boundary found, what the GPU rows rest on, a modelled dataset)."""

    warnings: list[Remark] = field(default_factory=list)
    notes: list[Remark] = field(default_factory=list)

    def __add__(self, other: Said) -> Said:
        return Said([*self.warnings, *other.warnings], [*self.notes, *other.notes])


Word = Callable[[Remark], str]  # planner.report.remarks.word, handed in by the report layer


def remark_json(remark: Remark, word: Word | None = None) -> dict[str, Any]:
    """The remark as JSON data: its kind, then its fields (a remark within one as its own JSON), then, given `word`
    (the report's), its words as `text`; an `Unknown` one as it was read."""
    if isinstance(remark, Unknown):
        data = {"kind": remark.name, **dict(remark.facts)}
        if remark.text:
            data["text"] = remark.text
    else:
        data = {
            "kind": remark.kind,
            **{
                f.name: remark_json(v) if isinstance(v := getattr(remark, f.name), Remark) else v
                for f in fields(remark)
            },
        }
    if word is not None:
        data["text"] = word(remark)
    return data


def remark_from_json(data: Any) -> Remark:
    """A remark as any version wrote it: a string (schema <= 5), or {"kind", fields...}. A kind not known here, or
    fields that do not fit it (a newer planner's or bench's), is `Unknown`: its kind, its fields and its words (the
    `text` the JSON carries beside them, when it does)."""
    if isinstance(data, Remark):
        return data
    if not isinstance(data, dict):
        return Worded(str(data))
    kind, text = str(data.get("kind")), str(data.get("text") or "")
    cls = KINDS.get(kind)
    if cls is Worded:
        return Worded(text)
    if cls is not None:
        names = {f.name for f in fields(cls)}
        try:
            return cls(**{k: _frozen(v) for k, v in data.items() if k in names})
        except TypeError:  # a field missing: a newer planner's shape of the kind
            pass
    facts = tuple((str(k), _frozen(v)) for k, v in data.items() if k not in ("kind", "text"))
    return Unknown(kind, facts, text)


def _frozen(value: Any) -> Any:
    """JSON lists back as the tuples the remarks hold, a remark within one as its remark."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict) and "kind" in value:
        return remark_from_json(value)
    return value


@dataclass(frozen=True)
class AtTarget(Remark):
    """What a measurement on `target` ("local", "aws:g5.xlarge") said."""

    kind: ClassVar[str] = "at_target"
    target: str
    remark: Remark


@dataclass(frozen=True)
class DataModelled(Remark):
    """The step was measured on a pool of `pool_samples` (`pool_bytes`) cycled; the whole dataset (`dataset_bytes`)
    is modelled, its materialising (~`seconds`) in the one-time cost."""

    kind: ClassVar[str] = "data_modelled"
    pool_samples: int
    pool_bytes: float
    dataset_bytes: float
    seconds: float
