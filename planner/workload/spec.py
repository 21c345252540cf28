"""The workload spec: pydantic models, loading from YAML/JSON, and user-facing validation messages.
Design notes: docs/reference/modules.md (planner/workload/spec.py)."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from planner.errors import SpecError
from planner.workload.footprint import layers_of
from planner.workload.limits import (
    MAX_EPOCHS,
    MAX_GPUS,
    MAX_HEADS,
    MAX_LAYERS,
    MAX_NAME,
    MAX_PARAMS,
    MAX_SAMPLE_VALUES,
    MAX_SAMPLES,
    MAX_SIZE,
    MAX_TOTAL_STEPS,
    brief,
    learning_rate,
    whole_number,
)
from planner.workload.load import (
    check_text,
    decode_spec_bytes,
    load_yaml,
    read_spec_file,
    structure_problem,
)
from planner.workload.load_json import load_json
from planner.workload.spec_messages import (
    SpecKeys,
    batch_problem,
    classes_problem,
    describe,
    early_consistency,
    heads_problem,
    transformer_task_problem,
)

# Whole numbers in a range (planner.workload.limits.whole_number names the range in its message).
Size = Annotated[int, BeforeValidator(lambda value: whole_number(value, MAX_SIZE))]
LayerCount = Annotated[int, BeforeValidator(lambda value: whole_number(value, MAX_LAYERS))]
Heads = Annotated[int, BeforeValidator(lambda value: whole_number(value, MAX_HEADS))]
Samples = Annotated[int, BeforeValidator(lambda value: whole_number(value, MAX_SAMPLES))]
Epochs = Annotated[int, BeforeValidator(lambda value: whole_number(value, MAX_EPOCHS))]
LearningRate = Annotated[float, BeforeValidator(learning_rate)]
Sizes = Annotated[list[Size], Field(max_length=MAX_LAYERS)]
Activation = Literal["relu", "tanh", "gelu"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class MLPModel(_Strict):
    kind: Literal["mlp"]
    input_size: Size
    hidden: Sizes = []
    outputs: Size
    activation: Activation = "relu"


class CNNModel(_Strict):
    """Conv(3x3, same padding) -> activation -> 2x2 max-pool per entry of `channels`, then global
    average pooling and a linear head. Pooling is skipped once a side is below 2 pixels."""

    kind: Literal["cnn"]
    input_shape: Annotated[list[Size], Field(min_length=3, max_length=3)]
    channels: Annotated[list[Size], Field(min_length=1, max_length=MAX_LAYERS)]
    outputs: Size
    activation: Activation = "relu"


class RNNModel(_Strict):
    kind: Literal["rnn"]
    cell: Literal["lstm", "gru", "rnn"] = "lstm"
    input_size: Size
    hidden_size: Size
    num_layers: LayerCount = 1
    seq_len: Size
    outputs: Size


class TransformerModel(_Strict):
    """Decoder-only (causal) pre-norm transformer: token + learned position embeddings, `layers`
    encoder blocks with a causal mask, final LayerNorm, linear head over the vocabulary."""

    kind: Literal["transformer"]
    vocab_size: Size
    d_model: Size
    heads: Heads
    layers: LayerCount
    seq_len: Size
    ff_size: Size | None = None  # default 4 * d_model

    @property
    def ff(self) -> int:
        return self.ff_size or 4 * self.d_model


class CustomModel(_Strict):
    """`factory` is "module:function"; the function returns an nn.Module taking a batch of
    `input_shape` tensors. It is called with `input_shape=` and `outputs=` when it accepts them."""

    kind: Literal["custom"]
    factory: Annotated[str, Field(max_length=200, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")]
    input_shape: Annotated[list[Size], Field(min_length=1, max_length=8)]
    outputs: Size
    path: Annotated[str, Field(min_length=1, max_length=1024)] | None = None

    @field_validator("path")
    @classmethod
    def _no_nul_in_path(cls, value: str | None) -> str | None:
        if value is not None and "\x00" in value:
            raise ValueError(f"must be a directory path without NUL characters, got {brief(value)}")
        return value


KIND_MODELS: dict[str, type[BaseModel]] = {
    "mlp": MLPModel,
    "cnn": CNNModel,
    "rnn": RNNModel,
    "transformer": TransformerModel,
    "custom": CustomModel,
}
MODEL_KINDS = tuple(KIND_MODELS)
ModelSpec = Annotated[
    MLPModel | CNNModel | RNNModel | TransformerModel | CustomModel, Field(discriminator="kind")
]


class DataSpec(_Strict):
    samples: Samples
    task: Literal["regression", "classification", "language_model"] | None = None
    location: Literal["device", "host"] = "device"


class TrainSpec(_Strict):
    batch_size: int | Literal["full"]
    epochs: Epochs
    optimizer: Literal["sgd", "adam", "adamw"] = "adam"
    learning_rate: LearningRate = 1e-3
    # What the bench runs (runner/bench/workloads.py sets the flags on every run, the device model
    # assumes the same): fp32 = PyTorch's defaults (cuDNN convolutions in TF32 on Ampere and later,
    # matmuls in fp32); tf32 = TF32 tensor cores for matmuls and convolutions (fp32 storage);
    # bf16 / fp16 = autocast mixed precision (fp32 master weights; fp16 adds a gradient scaler).
    # On CPU, tf32 runs as fp32 (there are no TF32 units).
    precision: Literal["fp32", "tf32", "bf16", "fp16"] = "fp32"
    # Data-parallel options (DistributedDataParallel): batch_size stays the global batch, split evenly
    # over the GPUs an option uses; "auto" considers 1, 2, 4, 8 GPUs of an instance and 2 or 4
    # instances, N only options with at most N GPUs in all (1: no data parallelism).
    gpus: int | Literal["auto"] = "auto"

    @field_validator("batch_size", "gpus", mode="before")
    @classmethod
    def _count_or_word(cls, value: Any, info: ValidationInfo) -> Any:
        """A whole number in range, or the field's one word ("full" batch, "auto" GPUs)."""
        word, top = {"batch_size": ("full", MAX_SAMPLES), "gpus": ("auto", MAX_GPUS)}[
            info.field_name or ""
        ]
        if value == word:
            return value
        if info.field_name == "gpus" and value == 0 and not isinstance(value, bool):
            # a newcomer's 'no GPU' (a trial): the spec says how many a data-parallel option may use, not whether
            raise ValueError(
                f'must be a whole number between 1 and {MAX_GPUS} or "auto", got 0: the most GPUs an option may '
                "train on (1: one GPU, no data parallelism); to plan CPU instances only: `planner estimate --cpu`, "
                "or CPU --targets for a run"
            )
        return whole_number(value, top, f' or "{word}"')

    @property
    def max_gpus(self) -> int | None:
        """The most GPUs an option may use in all; None: no limit."""
        return None if self.gpus == "auto" else int(self.gpus)


class WorkloadSpec(_Strict):
    name: Annotated[
        str, Field(min_length=1, max_length=MAX_NAME, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    ]
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
    """Read a YAML or JSON spec file. Every failure is a SpecError with a one-line reason; the file
    is checked (regular, at most 256 KiB, UTF-8) before it is read (see specio)."""
    return read_spec(path)[0]


def read_spec(path: str | os.PathLike[str]) -> tuple[WorkloadSpec, str]:
    """load_spec's spec and the text it was parsed from (read once: a run journals the same text)."""
    text = read_spec_file(path)
    spec = parse_spec_text(text, source=os.fsdecode(path), base_dir=Path(os.fsdecode(path)).parent)
    return spec, text


def parse_spec_text(
    text: str, source: str = "<spec>", base_dir: Path | None = None
) -> WorkloadSpec:
    """A spec from YAML (or JSON when `source` ends in .json). Any text gives a spec or a SpecError."""
    if isinstance(text, (bytes, bytearray)):
        text = decode_spec_bytes(bytes(text), source)
    if not isinstance(text, str):
        raise SpecError(f"{source}: a spec is YAML or JSON text, got {type(text).__name__}")
    check_text(text, source)
    if not text.strip():
        raise SpecError(f"{source}: the file is empty", hint="see examples/ for complete specs")
    if source.endswith(".json"):
        return parse_spec(load_json(text, source), source=source, base_dir=base_dir)
    data = load_yaml(text, source)
    try:
        return parse_spec(data, source=source, base_dir=base_dir)
    except SpecError as exc:
        raise with_lines(exc, text) from None


SPEC_HINT = "see the spec format: docs/guides/specs.md"


def with_lines(exc: SpecError, text: str) -> SpecError:
    """`exc` with each problem's line in the YAML `text` before it (`line 7: train.batch_sise: unknown key`): the
    line of the key it names, or of the nearest key above it that is there (a missing key: its section's)."""
    from planner.workload.yaml_loader import key_lines

    lines = key_lines(text)
    out: list[tuple[int, str]] = []
    for problem in exc.problems:
        where = problem.split(": ", 1)[0]
        while where and where not in lines:
            where = where[: max(where.rfind("."), where.rfind("["), 0)]
        out.append((lines[where], f"line {lines[where]}: {problem}") if where else (0, problem))
    # in the file's order (a trial read lines 19, 15, 14); stable: one line's problems keep theirs
    return SpecError(exc.source, [said for _, said in sorted(out, key=lambda x: x[0])], exc.hint)


def parse_spec(data: Any, source: str = "<spec>", base_dir: Path | None = None) -> WorkloadSpec:
    if not isinstance(data, dict):
        raise SpecError(
            f"{source}: a spec is a mapping with keys name, model, data, train; got {type(data).__name__}",
            hint="give a workload spec (YAML or JSON, as examples/surface-mlp.yaml), a training script (train.py) or a "
            "SkyPilot task (task.yaml, with a run)",
        )
    problem = structure_problem(data)  # depth, size and key types, before pydantic walks it
    if problem:
        raise SpecError(source, [problem], hint="see examples/surface-mlp.yaml")
    try:
        spec = WorkloadSpec.model_validate(data)
    except ValidationError as exc:
        said = describe(exc, _KEYS)
        raise SpecError(source, said + early_consistency(data, said), hint=SPEC_HINT) from None
    problems = consistency_problems(spec)
    if problems:
        raise SpecError(source, problems, hint=SPEC_HINT)
    if isinstance(spec.model, CustomModel) and spec.model.path and base_dir is not None:
        # A relative `path` is relative to the spec file, not to wherever the planner runs.
        try:
            resolved = (base_dir / spec.model.path).resolve()
        except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a name too long
            raise SpecError(
                source,
                [f"model.path: cannot resolve {brief(spec.model.path)} ({brief(str(exc), 80)})"],
            ) from None
        spec = spec.model_copy(
            update={"model": spec.model.model_copy(update={"path": str(resolved)})}
        )
    return spec


def consistency_problems(spec: WorkloadSpec) -> list[str]:
    """Cross-field rules that pydantic's per-field validation cannot see, and the derived limits (their words in
    spec_messages, shared with early_consistency)."""
    m, problems = spec.model, []
    task = spec.task
    if task == "classification" and getattr(m, "outputs", 2) < 2:
        problems.append(classes_problem(getattr(m, "outputs", None)))
    if isinstance(m, TransformerModel):
        if m.d_model % m.heads:
            problems.append(heads_problem(m.d_model, m.heads))
        if task != "language_model":
            problems.append(transformer_task_problem(task))
    elif task == "language_model":
        problems.append(
            f"data.task: language_model needs model.kind transformer, got kind {brief(m.kind)}"
        )
    if spec.train.batch_size != "full" and spec.train.batch_size > spec.data.samples:
        problems.append(batch_problem(spec.train.batch_size, spec.data.samples))
    return problems + size_problems(spec)


def size_problems(spec: WorkloadSpec) -> list[str]:
    """Limits on what the fields multiply to: each field can be sane and the product absurd."""
    m, problems = spec.model, []
    if spec.total_steps > MAX_TOTAL_STEPS:
        problems.append(
            f"train.epochs: {spec.train.epochs:,} epochs x {spec.steps_per_epoch:,} steps per epoch = "
            f"{spec.total_steps:,} steps; at most {MAX_TOTAL_STEPS:,} (fewer epochs or a larger train.batch_size)"
        )
    shape = {"rnn": ("model.seq_len", [getattr(m, "seq_len", 1), getattr(m, "input_size", 1)])}.get(
        m.kind, ("model.input_shape", list(getattr(m, "input_shape", [])))
    )
    if math.prod(shape[1]) > MAX_SAMPLE_VALUES:
        problems.append(
            f"{shape[0]}: one sample is {' x '.join(f'{n:,}' for n in shape[1])} = "
            f"{math.prod(shape[1]):,} values; at most {MAX_SAMPLE_VALUES:,} (4 GB in fp32)"
        )
    params = sum(layer.params for layer in layers_of(spec) or [])
    if params > MAX_PARAMS:
        problems.append(
            f"model: {params:,} parameters; at most {MAX_PARAMS:,} (1.6 TB to train with "
            "Adam, more than any instance holds): use smaller widths or fewer layers"
        )
    return problems


# the keys each part of a spec allows, for "did you mean" in its messages
_KEYS = SpecKeys(
    list(WorkloadSpec.model_fields),
    {"data": list(DataSpec.model_fields), "train": list(TrainSpec.model_fields)},
    {kind: list(cls.model_fields) for kind, cls in KIND_MODELS.items()},
)
