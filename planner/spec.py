"""The workload spec: pydantic models, loading from YAML/JSON, and user-facing validation messages.

This is the only place pydantic validates user input. Field names are fixed by DESIGN.md (tools and
tests read them). Every problem is reported as one line `path: what is wrong, got VALUE` with the
allowed values or range, e.g. `model.hidden[1]: must be > 0, got -5`; unknown keys get a
"did you mean". Structural checks come from pydantic; cross-field checks (classification with one
class, `d_model` not divisible by `heads`, a batch larger than the dataset) run after it, on a
valid object, so their paths are exact.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from planner.errors import SpecError, did_you_mean

PositiveInt = Annotated[int, Field(gt=0)]
Activation = Literal["relu", "tanh", "gelu"]
MODEL_KINDS = ("mlp", "cnn", "rnn", "transformer", "custom")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class MLPModel(_Strict):
    kind: Literal["mlp"]
    input_size: PositiveInt
    hidden: list[PositiveInt] = []
    outputs: PositiveInt
    activation: Activation = "relu"


class CNNModel(_Strict):
    """Conv(3x3, same padding) -> activation -> 2x2 max-pool per entry of `channels`, then global
    average pooling and a linear head. Pooling is skipped once a side is below 2 pixels."""

    kind: Literal["cnn"]
    input_shape: Annotated[list[PositiveInt], Field(min_length=3, max_length=3)]
    channels: Annotated[list[PositiveInt], Field(min_length=1)]
    outputs: PositiveInt
    activation: Activation = "relu"


class RNNModel(_Strict):
    kind: Literal["rnn"]
    cell: Literal["lstm", "gru", "rnn"] = "lstm"
    input_size: PositiveInt
    hidden_size: PositiveInt
    num_layers: PositiveInt = 1
    seq_len: PositiveInt
    outputs: PositiveInt


class TransformerModel(_Strict):
    """Decoder-only (causal) pre-norm transformer: token + learned position embeddings, `layers`
    encoder blocks with a causal mask, final LayerNorm, linear head over the vocabulary."""

    kind: Literal["transformer"]
    vocab_size: PositiveInt
    d_model: PositiveInt
    heads: PositiveInt
    layers: PositiveInt
    seq_len: PositiveInt
    ff_size: PositiveInt | None = None  # default 4 * d_model

    @property
    def ff(self) -> int:
        return self.ff_size or 4 * self.d_model


class CustomModel(_Strict):
    """`factory` is "module:function"; the function returns an nn.Module taking a batch of
    `input_shape` tensors. It is called with `input_shape=` and `outputs=` when it accepts them."""

    kind: Literal["custom"]
    factory: Annotated[str, Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")]
    input_shape: Annotated[list[PositiveInt], Field(min_length=1)]
    outputs: PositiveInt
    path: str | None = None


ModelSpec = Annotated[
    Union[MLPModel, CNNModel, RNNModel, TransformerModel, CustomModel], Field(discriminator="kind")
]


class DataSpec(_Strict):
    samples: PositiveInt
    task: Literal["regression", "classification", "language_model"] | None = None
    location: Literal["device", "host"] = "device"


class TrainSpec(_Strict):
    batch_size: int | Literal["full"]
    epochs: PositiveInt
    optimizer: Literal["sgd", "adam", "adamw"] = "adam"
    learning_rate: Annotated[float, Field(gt=0)] = 1e-3
    # What the bench runs (runner/bench/workloads.py sets the flags on every run, the device model
    # assumes the same): fp32 = PyTorch's defaults (cuDNN convolutions in TF32 on Ampere and later,
    # matmuls in fp32); tf32 = TF32 tensor cores for matmuls and convolutions (fp32 storage);
    # bf16 / fp16 = autocast mixed precision (fp32 master weights; fp16 adds a gradient scaler).
    # On CPU, tf32 runs as fp32 (there are no TF32 units).
    precision: Literal["fp32", "tf32", "bf16", "fp16"] = "fp32"

    @field_validator("batch_size", mode="before")
    @classmethod
    def _batch_size(cls, value: Any) -> Any:
        if value == "full":
            return value
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f'must be a positive integer or "full", got {_show(value)}')
        return value


class WorkloadSpec(_Strict):
    name: Annotated[str, Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")]
    model: ModelSpec
    data: DataSpec
    train: TrainSpec

    @property
    def task(self) -> str:
        """The data task, inferred when omitted: language_model for transformers, else regression."""
        if self.data.task:
            return self.data.task
        return "language_model" if self.model.kind == "transformer" else "regression"

    @property
    def batch_size(self) -> int:
        """The resolved batch size ("full" = the whole dataset)."""
        bs = self.train.batch_size
        return self.data.samples if bs == "full" else int(bs)

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(self.data.samples / self.batch_size)

    @property
    def total_steps(self) -> int:
        return self.steps_per_epoch * self.train.epochs

    def to_job(self) -> dict[str, Any]:
        """The plain dict the self-contained bench reads (standard library only on its side)."""
        job = self.model_dump(mode="json")
        job["data"]["task"] = self.task
        job["train"]["batch_size"] = self.batch_size
        return job


# ----------------------------------------------------------------------------- loading


def load_spec(path: str | os.PathLike[str]) -> WorkloadSpec:
    """Read a YAML or JSON spec file. Every failure is a SpecError with a one-line reason."""
    p = Path(path)
    if not p.exists():
        raise SpecError(f"{p}: no such file", hint="give the path of a workload spec, e.g. examples/surface-mlp.yaml")
    if p.is_dir():
        raise SpecError(f"{p}: is a directory, not a spec file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{p}: cannot read it ({exc})") from None
    return parse_spec_text(text, source=str(p), base_dir=p.parent)


def parse_spec_text(text: str, source: str = "<spec>", base_dir: Path | None = None) -> WorkloadSpec:
    if not text.strip():
        raise SpecError(f"{source}: the file is empty", hint="see examples/ for complete specs")
    data: Any
    if source.endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    else:
        import yaml  # lazy: keeps `planner --help` light

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise SpecError(f"{source}: not valid YAML{where}: {problem}") from None
    return parse_spec(data, source=source, base_dir=base_dir)


def parse_spec(data: Any, source: str = "<spec>", base_dir: Path | None = None) -> WorkloadSpec:
    if not isinstance(data, dict):
        raise SpecError(
            f"{source}: a spec is a mapping with keys name, model, data, train; got {type(data).__name__}",
            hint="see examples/surface-mlp.yaml",
        )
    try:
        spec = WorkloadSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(source, _describe(exc), hint="see the spec format in README.md") from None
    problems = consistency_problems(spec)
    if problems:
        raise SpecError(source, problems)
    if isinstance(spec.model, CustomModel) and spec.model.path and base_dir is not None:
        # A relative `path` is relative to the spec file, not to wherever the planner runs.
        resolved = (base_dir / spec.model.path).resolve()
        spec = spec.model_copy(update={"model": spec.model.model_copy(update={"path": str(resolved)})})
    return spec


def consistency_problems(spec: WorkloadSpec) -> list[str]:
    """Cross-field rules that pydantic's per-field validation cannot see."""
    m, problems = spec.model, []
    task = spec.task
    if task == "classification" and getattr(m, "outputs", 2) < 2:
        problems.append(f"model.outputs: classification needs at least 2 classes, got {m.outputs}")
    if isinstance(m, TransformerModel):
        if m.d_model % m.heads:
            problems.append(
                f"model.d_model: must be divisible by model.heads ({m.heads}), got {m.d_model}"
            )
        if task != "language_model":
            problems.append(f"data.task: a transformer trains as a language_model, got {_show(task)}")
    elif task == "language_model":
        problems.append(f"data.task: language_model needs model.kind transformer, got kind {_show(m.kind)}")
    if spec.train.batch_size != "full" and spec.train.batch_size > spec.data.samples:
        problems.append(
            f"train.batch_size: larger than data.samples ({spec.data.samples}), got {spec.train.batch_size};"
            f' use at most {spec.data.samples} or "full"'
        )
    return problems


# ----------------------------------------------------------------------------- messages


def _show(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif i == 1 and loc[0] == "model" and part in MODEL_KINDS:
            continue  # pydantic adds the union tag to the path; users never wrote it
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _fields_at(loc: tuple[Any, ...], data_kind: Any = None) -> list[str]:
    """The allowed keys of the object that holds `loc`, for "did you mean"."""
    parent = loc[:-1]
    if not parent:
        return list(WorkloadSpec.model_fields)
    by_kind = {"mlp": MLPModel, "cnn": CNNModel, "rnn": RNNModel, "transformer": TransformerModel, "custom": CustomModel}
    if parent[0] == "model":
        cls = by_kind.get(parent[1] if len(parent) > 1 else data_kind)
        return list(cls.model_fields) if cls else []
    return list({"data": DataSpec, "train": TrainSpec}.get(parent[0], WorkloadSpec).model_fields)


def _describe(exc: ValidationError) -> list[str]:
    lines: list[str] = []
    for err in exc.errors():
        loc, etype, ctx, value = tuple(err["loc"]), err["type"], err.get("ctx") or {}, err.get("input")
        where = _path(loc)
        if etype == "missing":
            msg = "required field is missing"
        elif etype == "extra_forbidden":
            allowed = _fields_at(loc)
            msg = f"unknown key{did_you_mean(loc[-1], allowed)}; allowed keys: {', '.join(allowed)}"
        elif etype == "union_tag_invalid":
            where = _path(loc) + ".kind" if not where.endswith("kind") else where
            msg = f"must be one of {' | '.join(MODEL_KINDS)}, got {_show(ctx.get('tag'))}{did_you_mean(ctx.get('tag'), MODEL_KINDS)}"
        elif etype == "union_tag_not_found":
            where = _path(loc) + ".kind"
            msg = f"required field is missing (one of {' | '.join(MODEL_KINDS)})"
        elif etype == "literal_error":
            allowed = re.findall(r"'([^']*)'", ctx.get("expected", ""))
            msg = f"must be one of {' | '.join(allowed)}, got {_show(value)}{did_you_mean(value, allowed)}"
        elif etype in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
            op = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}[etype]
            bound = next(iter(ctx.values()), "?")
            msg = f"must be {op} {bound}, got {_show(value)}"
        elif etype in ("int_type", "int_parsing", "int_from_float"):
            msg = f"must be a whole number, got {_show(value)}"
        elif etype in ("float_type", "float_parsing", "finite_number"):
            msg = f"must be a finite number, got {_show(value)}"
        elif etype in ("string_type",):
            msg = f"must be text, got {_show(value)}"
        elif etype == "string_pattern_mismatch":
            msg = _pattern_message(where, value)
        elif etype in ("too_short", "too_long"):
            msg = f"{err['msg'].lower()}, got {_show(value)}"
        elif etype in ("list_type",):
            msg = f"must be a list, got {_show(value)}"
        elif etype in ("model_type", "model_attributes_type", "dict_type"):
            msg = f"must be a mapping of keys, got {_show(value)}"
        elif etype == "value_error":
            msg = str(ctx.get("error", err["msg"]))
        else:
            msg = f"{err['msg']}, got {_show(value)}"
        lines.append(f"{where}: {msg}")
    return list(dict.fromkeys(lines))


def _pattern_message(where: str, value: Any) -> str:
    if where.endswith("factory"):
        return f'must be "module:function" (e.g. "my_model:build"), got {_show(value)}'
    if where == "name":
        return f"must be letters, digits, '.', '_' or '-' (no spaces), starting with a letter or digit, got {_show(value)}"
    return f"has the wrong format, got {_show(value)}"
