"""A spec's problems as people read them: each of pydantic's errors one line, `path: what is wrong, got VALUE`, with
the allowed values or range and a "did you mean" for a misspelled key or kind (planner/workload/spec.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from typing import Any

from pydantic import ValidationError

from planner.errors import close_matches, did_you_mean
from planner.workload.limits import MAX_PROBLEMS, brief, cut


@dataclass(frozen=True)
class SpecKeys:
    """The keys a spec allows, for "did you mean": the top level's, each section's, each model kind's."""

    top: list[str]
    sections: dict[str, list[str]]
    models: dict[str, list[str]]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.models)


def _path(loc: tuple[Any, ...], kinds: tuple[str, ...]) -> str:
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif i == 1 and loc[0] == "model" and part in kinds:
            continue  # pydantic adds the union tag to the path; users never wrote it
        else:
            text = str(part)
            out += ("." if out else "") + cut(text, 40)
    return out or "(top level)"


def _suggest(word: Any, choices: Any) -> str:
    """did_you_mean for what a person may have typed: short text only (difflib on a long or
    non-text value is wasted work)."""
    return did_you_mean(word, choices) if isinstance(word, str) and len(word) <= 40 else ""


# a model kind a person may write for what a spec spells otherwise (a trial: `kind: lstm` got 'did you mean
# "custom"?')
_KIND_AS = {"lstm": "rnn", "gru": "rnn", "conv": "cnn", "convnet": "cnn", "gpt": "transformer"}


def _kind_hint(tag: Any, kinds: tuple[str, ...]) -> str:
    """' (did you mean ...?)' for a model kind: a recurrent cell as the kind says `rnn` with its `cell`."""
    kind = _KIND_AS.get(tag.lower()) if isinstance(tag, str) else None
    if kind in kinds and kind == "rnn":
        return f' (did you mean "rnn" with cell: {tag.lower()}?)'
    if kind in kinds:
        return f' (did you mean "{kind}"?)'
    return _suggest(tag, kinds)


def _fields_at(loc: tuple[Any, ...], keys: SpecKeys) -> list[str]:
    """The allowed keys of the object that holds `loc`, for "did you mean"."""
    parent = loc[:-1]
    if parent[:1] == ("model",):
        return keys.models.get(parent[1], []) if len(parent) > 1 else []
    return keys.sections.get(parent[0] if parent else "", keys.top)


# pydantic's error types whose message is "must be <what>, got <the value>"
_MUST_BE = {
    **dict.fromkeys(("int_type", "int_parsing", "int_from_float"), "a whole number"),
    **dict.fromkeys(("float_type", "float_parsing", "finite_number"), "a finite number"),
    **dict.fromkeys(("model_type", "model_attributes_type", "dict_type"), "a mapping of keys"),
    "string_type": "text",
    "list_type": "a list",
}
_COMPARISONS = {
    "greater_than": ">",
    "greater_than_equal": ">=",
    "less_than": "<",
    "less_than_equal": "<=",
}


def describe(exc: ValidationError, keys: SpecKeys) -> list[str]:
    """Each of pydantic's problems with a spec as one line: `path: what is wrong, got VALUE`."""
    lines: list[str] = []
    errors = exc.errors(include_url=False)
    # a misspelt required key is one problem, not two: its 'unknown key (did you mean "batch_size"?)' says it, and
    # the 'required field is missing' of the key it meant goes (a trial's batch_sise got both)
    meant = {
        tuple(e["loc"][:-1]) + (close[0],)
        for e in errors
        if e["type"] == "extra_forbidden"
        and isinstance(e["loc"][-1], str)
        and (close := close_matches(e["loc"][-1], _fields_at(tuple(e["loc"]), keys), 1))
    }
    errors = [e for e in errors if not (e["type"] == "missing" and tuple(e["loc"]) in meant)]
    for err in islice(errors, MAX_PROBLEMS):
        loc, etype, ctx, value = (
            tuple(err["loc"]),
            err["type"],
            err.get("ctx") or {},
            err.get("input"),
        )
        where = _path(loc, keys.kinds)
        if etype == "missing":
            msg = "required field is missing"
        elif etype == "extra_forbidden":
            allowed = _fields_at(loc, keys)
            msg = f"unknown key{_suggest(loc[-1], allowed)}; allowed keys: {', '.join(allowed)}"
        elif etype == "union_tag_invalid":
            where = _path(loc, keys.kinds) + ".kind" if not where.endswith("kind") else where
            tag = ctx.get("tag")
            msg = f"must be one of {' | '.join(keys.kinds)}, got {brief(tag)}{_kind_hint(tag, keys.kinds)}"
        elif etype == "union_tag_not_found":
            where = _path(loc, keys.kinds) + ".kind"
            msg = f"required field is missing (one of {' | '.join(keys.kinds)})"
        elif etype == "literal_error":
            allowed = re.findall(r"'([^']*)'", ctx.get("expected", ""))
            msg = f"must be one of {' | '.join(allowed)}, got {brief(value)}{_suggest(value, allowed)}"
        elif etype in _COMPARISONS:
            msg = (
                f"must be {_COMPARISONS[etype]} {next(iter(ctx.values()), '?')}, got {brief(value)}"
            )
        elif etype in _MUST_BE:
            msg = f"must be {_MUST_BE[etype]}, got {brief(value)}"
        elif etype == "string_pattern_mismatch":
            msg = _pattern_message(where, value)
        elif etype in ("too_short", "too_long", "string_too_short", "string_too_long"):
            msg = _length_message(where, etype, ctx, value)
        elif etype == "value_error":
            msg = str(ctx.get("error", err["msg"]))
        else:
            msg = f"{err['msg']}, got {brief(value)}"
        lines.append(f"{where}: {msg}")
    lines = list(dict.fromkeys(lines))
    if exc.error_count() > MAX_PROBLEMS:
        lines.append(
            f"(top level): {exc.error_count() - MAX_PROBLEMS:,} more problems not shown; fix these first"
        )
    return lines


def _length_message(where: str, etype: str, ctx: dict[str, Any], value: Any) -> str:
    if isinstance(value, str):
        if etype == "string_too_short":
            return "must not be empty"
        why = " (it names the run directory and the instances' tags)" if where == "name" else ""
        return f"must be at most {ctx.get('max_length')} characters{why}, got {len(value):,} characters: {brief(value, 30)}"
    if where == "model.input_shape" and 3 in (ctx.get("min_length"), ctx.get("max_length")):  # cnn
        return f"must be [channels, height, width] (3 whole numbers), got {brief(value)}"
    count = len(value) if hasattr(value, "__len__") else "?"
    if etype == "too_short":
        return f"must have at least {ctx.get('min_length')} entries, got {brief(value)}"
    return f"must have at most {ctx.get('max_length'):,} entries, got {count:,}"


def _pattern_message(where: str, value: Any) -> str:
    if where.endswith("factory"):
        return f'must be "module:function" (e.g. "my_model:build"), got {brief(value)}'
    if where == "name":
        return f"must be letters, digits, '.', '_' or '-' (no spaces), starting with a letter or digit, got {brief(value)}"
    return f"has the wrong format, got {brief(value)}"


def heads_problem(d_model: int, heads: int) -> str:
    return f"model.d_model: must be divisible by model.heads ({heads}), got {d_model}"


def transformer_task_problem(task: Any) -> str:
    return f"data.task: a transformer trains as a language_model, got {brief(task)}"


def classes_problem(outputs: Any) -> str:
    return f"model.outputs: classification needs at least 2 classes, got {outputs}"


def batch_problem(batch: int, samples: int) -> str:
    return f'train.batch_size: larger than data.samples ({samples}), got {batch}; use at most {samples} or "full"'


def early_consistency(data: dict[str, Any], said: list[str]) -> list[str]:
    """The cross-field rules (spec.consistency_problems) that the raw mapping already shows, for a spec whose fields
    have problems too, so all are said in one pass (a trial fixed its field errors only to meet these next). Only
    whole numbers are read; a rule whose field `said` already names is left to that problem."""
    sections = {k: v if isinstance(v, dict) else {} for k, v in data.items() if isinstance(k, str)}
    model, train, samples = (
        sections.get("model", {}),
        sections.get("train", {}),
        sections.get("data", {}),
    )

    def whole(part: dict[str, Any], key: str) -> int | None:
        value = part.get(key)
        return (
            value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
        )

    out = []
    d_model, heads = whole(model, "d_model"), whole(model, "heads")
    if model.get("kind") == "transformer" and d_model and heads and d_model % heads:
        out.append(heads_problem(d_model, heads))
    task = samples.get("task")
    if model.get("kind") == "transformer" and task not in (None, "language_model"):
        out.append(transformer_task_problem(task))
    outputs = model.get("outputs")
    if task == "classification" and isinstance(outputs, int) and 0 < outputs < 2:
        out.append(classes_problem(outputs))
    batch, n = whole(train, "batch_size"), whole(samples, "samples")
    if batch and n and batch > n:
        out.append(batch_problem(batch, n))
    named = {problem.split(": ", 1)[0] for problem in said}
    return [p for p in out if p.split(": ", 1)[0] not in named]
