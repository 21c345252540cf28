"""Property-based (issue 16): whatever text or data a user gives, `parse_spec_text` / `parse_spec`
return a spec or raise SpecError — never another exception — quickly (hypothesis' deadline), and a
spec that passes can be planned without overflow (steps, footprint, job JSON all finite)."""

from __future__ import annotations

import copy
import json
import math
import os

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import SpecError
from planner.workload.footprint import footprint
from planner.workload.limits import (
    MAX_EPOCHS,
    MAX_LAYERS,
    MAX_SAMPLES,
    MAX_SIZE,
    MAX_TOTAL_STEPS,
    brief,
)
from planner.workload.spec import WorkloadSpec, parse_spec, parse_spec_text
from tests.conftest import EXAMPLES, TINY_MLP


def fast(examples: int):
    """`examples` cases, each within 1.5 s (a hang or a blow-up fails as a deadline)."""
    return settings(
        max_examples=examples * int(os.environ.get("FUZZ_SCALE", "1")),
        deadline=1500,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


EXAMPLE_TEXTS = [p.read_text() for p in sorted(EXAMPLES.glob("*.yaml"))]


def outcome(call, *args) -> WorkloadSpec | None:
    """The spec, or None for a SpecError with lines that say where; anything else fails the test."""
    try:
        spec = call(*args)
    except SpecError as exc:
        assert exc.message.strip()
        assert all(": " in line for line in exc.problems), exc.problems  # every problem says where
        assert len(exc.render()) < 20_000  # bounded, whatever the input
        return None
    assert_plannable(spec)
    return spec


def assert_plannable(spec: WorkloadSpec) -> None:
    """What `run` does next with a valid spec must not overflow (the 401-digit epochs bug)."""
    assert 0 < spec.total_steps <= MAX_TOTAL_STEPS
    json.dumps(spec.to_job(), allow_nan=False)
    if spec.model.kind != "custom":
        fp = footprint(spec)
        assert 0 < fp.total_bytes and math.isfinite(fp.train_flops_per_sample)
        assert math.isfinite(float(fp.total_bytes)) and math.isfinite(
            spec.total_steps * fp.train_flops_per_sample
        )


# ----------------------------------------------------------------------------- texts

YAML_PIECES = [
    "&a ",
    "*a",
    "<<: ",
    "!!int ",
    "!!binary ",
    "!!set ",
    "? ",
    "- ",
    ": ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    "\n",
    "\n  ",
    "\t",
    "'",
    '"',
    "#",
    "|",
    ">",
    "1e999",
    ".nan",
    "-.inf",
    "0x1F",
    "1:30",
    "2001-13-45",
    "9" * 30,
    "~",
    "yes",
    "name",
    "model",
    "kind",
    "mlp",
    "hidden",
    "epochs",
    "train",
    "\\u0000",
    "%YAML 1.1\n",
    "---\n",
    "...\n",
    "\ufeff",
    "\x85",
    "é",
]
yaml_texts = st.lists(st.sampled_from(YAML_PIECES) | st.text(max_size=4), max_size=40).map("".join)


@fast(250)
@given(yaml_texts)
def test_any_yaml_text_gives_a_spec_or_a_spec_error(text):
    outcome(parse_spec_text, text, "fuzz.yaml")


@fast(150)
@given(
    st.sampled_from(EXAMPLE_TEXTS),
    st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 8), st.sampled_from(YAML_PIECES)),
        min_size=1,
        max_size=4,
    ),
)
def test_edited_examples_give_a_spec_or_a_spec_error(text, edits):
    for at, cut, piece in edits:
        at %= len(text) + 1
        text = text[:at] + piece + text[at + cut :]
    outcome(parse_spec_text, text, "fuzz.yaml")


JSON_PIECES = [
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    '"name"',
    '"train"',
    '"epochs"',
    '"a"',
    '"\\u00',
    '"\\"',
    "1",
    "-0",
    "1e400",
    "NaN",
    "Infinity",
    "true",
    "null",
    " ",
    "\n",
    "9" * 50,
    '"\\ud800"',
]
json_texts = st.lists(st.sampled_from(JSON_PIECES), max_size=60).map("".join)


@fast(200)
@given(
    json_texts
    | st.builds(json.dumps, st.just(TINY_MLP)).flatmap(
        lambda good: st.tuples(st.integers(0, len(good)), st.sampled_from(JSON_PIECES)).map(
            lambda edit: good[: edit[0]] + edit[1] + good[edit[0] :]
        )
    )
)
def test_any_json_text_gives_a_spec_or_a_spec_error(text):
    outcome(parse_spec_text, text, "fuzz.json")


# ----------------------------------------------------------------------------- values at every field

numbers = (
    st.integers()
    | st.integers(-(10**500), 10**500)
    | st.floats()
    | st.sampled_from([0, 1, 2, 10**6, 10**9, 10**12])
)
leaves = (
    numbers
    | st.none()
    | st.booleans()
    | st.text(max_size=12)
    | st.sampled_from(
        ["full", "1e-3", "4e4", "nan", "-inf", "mlp", "relu", "classification", "n" * 300]
    )
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(max_size=6) | st.integers() | st.none(), inner, max_size=4)
    ),
    max_leaves=20,
)

MODELS = [
    TINY_MLP["model"],
    {"kind": "cnn", "input_shape": [3, 8, 8], "channels": [4, 8], "outputs": 2},
    {
        "kind": "rnn",
        "cell": "gru",
        "input_size": 3,
        "hidden_size": 8,
        "num_layers": 2,
        "seq_len": 5,
        "outputs": 1,
    },
    {
        "kind": "transformer",
        "vocab_size": 50,
        "d_model": 16,
        "heads": 2,
        "layers": 1,
        "seq_len": 8,
        "ff_size": 32,
    },
    {"kind": "custom", "factory": "m:f", "input_shape": [4], "outputs": 1, "path": "."},
]
FIELDS = sorted(
    {f"model.{k}" for m in MODELS for k in m}
    | {f"{s}.{k}" for s in ("data", "train") for k in TINY_MLP[s]}
    | {
        "name",
        "model",
        "data",
        "train",
        "extra",
        "model.extra",
        "train.precision",
        "train.learning_rate",
    }
)


def edited_spec(model: dict, edits: list[tuple[str, object]]) -> dict:
    """TINY_MLP with `model` in place of its model, then each (field path, value) written in,
    whatever the value: what the fuzz tests here and in tests/cli throw at the spec."""
    data = copy.deepcopy(TINY_MLP)
    data["model"] = copy.deepcopy(model)
    if model["kind"] == "transformer":
        data["data"]["task"] = "language_model"
    for path, value in edits:
        section, *field = path.split(".")
        if not field:
            data[section] = value
        elif isinstance(data.get(section), dict):
            data[section][field[0]] = value
    return data


@fast(300)
@given(
    st.sampled_from(MODELS),
    st.lists(st.tuples(st.sampled_from(FIELDS), values), min_size=1, max_size=4),
)
def test_any_values_at_any_fields_give_a_spec_or_a_spec_error(model, edits):
    data = edited_spec(model, edits)
    outcome(parse_spec, data)
    try:
        text = yaml.safe_dump(data)
    except yaml.YAMLError:
        return
    outcome(parse_spec_text, text, "fuzz.yaml")


def sized(top: int):
    return st.integers(1, top) | st.sampled_from([1, top])


in_range_models = st.one_of(
    st.fixed_dictionaries(
        {
            "kind": st.just("mlp"),
            "input_size": sized(MAX_SIZE),
            "outputs": sized(MAX_SIZE),
            "hidden": st.lists(sized(MAX_SIZE), max_size=4),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("cnn"),
            "input_shape": st.lists(sized(MAX_SIZE), min_size=3, max_size=3),
            "channels": st.lists(sized(MAX_SIZE), min_size=1, max_size=4),
            "outputs": sized(MAX_SIZE),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("rnn"),
            "input_size": sized(MAX_SIZE),
            "hidden_size": sized(MAX_SIZE),
            "num_layers": sized(MAX_LAYERS),
            "seq_len": sized(MAX_SIZE),
            "outputs": sized(MAX_SIZE),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("transformer"),
            "vocab_size": sized(MAX_SIZE),
            "heads": st.sampled_from([1, 2, 1024]),
            "d_model": st.sampled_from([1024, 2048 * 488]),
            "layers": sized(MAX_LAYERS),
            "seq_len": sized(MAX_SIZE),
            "ff_size": sized(MAX_SIZE),
        }
    ),
)


@fast(200)
@given(
    in_range_models,
    sized(MAX_SAMPLES),
    sized(MAX_SAMPLES) | st.just("full"),
    sized(MAX_EPOCHS),
    st.floats(min_value=1e-300, max_value=100),
)
def test_every_in_range_spec_is_plannable_or_refused_by_a_derived_limit(
    model, samples, batch, epochs, lr
):
    """Each field at any value in its range: the spec either passes and plans without overflow, or
    is refused (batch > samples, too many steps, parameters or values per sample)."""
    task = {"transformer": "language_model", "cnn": "classification"}.get(
        model["kind"], "regression"
    )
    if task == "classification":
        model = {**model, "outputs": max(2, model["outputs"])}
    data = {
        "name": "edge",
        "model": model,
        "data": {"samples": samples, "task": task},
        "train": {"batch_size": batch, "epochs": epochs, "learning_rate": lr},
    }
    outcome(parse_spec, data)


@fast(200)
@given(values)
def test_brief_is_short_for_anything(value):
    assert len(brief(value)) <= 60
