"""Pure: the spec's fields as plain descriptions, for a form generated from the pydantic models
(the TUI's Workload pane). The models in planner/workload/spec.py stay the one definition of the fields;
a form built from these descriptions holds no rule of its own."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

from planner.workload.spec import KIND_MODELS, DataSpec, TrainSpec

SECTIONS = (("data", DataSpec), ("train", TrainSpec))


@dataclass(frozen=True)
class FormField:
    section: str  # "model" | "data" | "train"
    name: str
    choices: tuple[str, ...] | None  # the allowed values of a Literal field
    is_list: bool
    required: bool
    default: Any


def _choices(annotation: Any) -> list[str] | None:
    """The allowed strings of a Literal field (also inside Optional / Annotated / unions)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return [str(a) for a in typing.get_args(annotation)]
    if origin is typing.Annotated:
        return _choices(typing.get_args(annotation)[0])
    if origin is typing.Union or str(origin) == "types.UnionType":
        found = [c for arg in typing.get_args(annotation) if (c := _choices(arg))]
        has_other = any(
            _choices(arg) is None and arg is not type(None) for arg in typing.get_args(annotation)
        )
        return None if has_other or not found else found[0]
    return None


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _is_list(typing.get_args(annotation)[0])
    return origin is list


def _fields(section: str, cls: Any, skip: tuple[str, ...] = ()) -> list[FormField]:
    out = []
    for name, info in cls.model_fields.items():
        if name in skip:
            continue
        choices = _choices(info.annotation)
        out.append(
            FormField(
                section,
                name,
                tuple(choices) if choices else None,
                _is_list(info.annotation),
                info.is_required(),
                None if info.is_required() else info.default,
            )
        )
    return out


@dataclass(frozen=True)
class SpecFields:
    """The spec's fields as a form has them: each model kind's (model.*) and the sections' (data.*, train.*)."""

    kinds: dict[str, tuple[FormField, ...]]
    sections: tuple[FormField, ...]


def form_fields() -> SpecFields:
    """The spec's fields, read from its models."""
    return SpecFields(
        {kind: tuple(_fields("model", cls, skip=("kind",))) for kind, cls in KIND_MODELS.items()},
        tuple(f for name, cls in SECTIONS for f in _fields(name, cls)),
    )
