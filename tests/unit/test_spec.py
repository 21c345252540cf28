"""Workload spec validation: good specs load; every bad one is a SpecError naming path, value and fix."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ExitCode, SpecError
from planner.workload.spec import load_spec, parse_spec, parse_spec_text
from tests.conftest import EXAMPLES, TINY_MLP


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_is_valid(path):
    spec = load_spec(path)
    assert spec.batch_size > 0 and spec.total_steps > 0


def test_surface_mlp_is_the_practitioners_workload():
    spec = load_spec(EXAMPLES / "surface-mlp.yaml")
    assert (spec.model.input_size, spec.model.hidden, spec.model.outputs) == (2, [20, 5], 1)
    assert spec.batch_size == spec.data.samples == 40000  # "full" resolves to the dataset
    assert spec.steps_per_epoch == 1 and spec.train.epochs == 2000


def problems(data) -> list[str]:
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    assert info.value.exit_code == ExitCode.BAD_INPUT
    return info.value.problems


def modified(**changes):
    data = copy.deepcopy(TINY_MLP)
    for dotted, value in changes.items():
        node = data
        *parents, last = dotted.split("__")
        for p in parents:
            node = node[p]
        if value is KeyError:
            del node[last]
        else:
            node[last] = value
    return data


def test_negative_width_names_index_and_value():
    assert problems(modified(model__hidden=[8, -5])) == [
        "model.hidden[1]: must be > 0, got -5 (a whole number between 1 and 1,000,000)"
    ]


def test_typo_key_suggests_the_right_one():
    data = modified(train__batchsize=32)
    (line,) = problems(data)
    assert line.startswith("train.batchsize: unknown key") and 'did you mean "batch_size"' in line


def test_a_misspelt_required_key_is_one_problem_not_two():
    """A trial's batch_sise got 'train.batch_size: required field is missing' beside the useful 'did you mean'."""
    (line,) = problems(modified(train__batch_size=KeyError, train__batch_sise=64))
    assert line.startswith("train.batch_sise: unknown key") and 'did you mean "batch_size"' in line
    # in the wrong case too (the review: STEPS got both)
    (line,) = problems(modified(train__batch_size=KeyError, train__BATCH_SIZE=64))
    assert line.startswith("train.BATCH_SIZE: unknown key") and 'did you mean "batch_size"' in line
    # a missing key with no near miss is still said
    assert problems(modified(train__batch_size=KeyError, train__colour=1))[0] == (
        "train.batch_size: required field is missing"
    )


def test_a_value_in_the_wrong_case_suggests_the_right_one():
    (line,) = problems(modified(train__precision="FP16"))
    assert line.endswith('got "FP16" (did you mean "fp16"?)'), line


def test_a_model_kind_named_by_its_layer_suggests_the_kind_that_has_it():
    """A trial: `kind: lstm` got 'did you mean "custom"?'; an LSTM is an rnn with its cell."""
    (line,) = problems(modified(model__kind="lstm"))
    assert line.endswith('got "lstm" (did you mean "rnn" with cell: lstm?)'), line
    (line,) = problems(modified(model__kind="ConvNet"))
    assert line.endswith('got "ConvNet" (did you mean "cnn"?)'), line
    (line,) = problems(modified(model__kind="mpl"))  # a plain misspelling: difflib's
    assert line.endswith('got "mpl" (did you mean "mlp"?)'), line


def test_typo_in_model_key_uses_that_kinds_fields():
    (line,) = problems(modified(model__hiden=[3]))
    assert line.startswith("model.hiden: unknown key") and '"hidden"' in line


def test_missing_required_field():
    assert problems(modified(data__samples=KeyError)) == ["data.samples: required field is missing"]


def test_unknown_kind_lists_kinds_and_suggests():
    (line,) = problems(modified(model__kind="mpl"))
    assert line.startswith("model.kind: must be one of mlp | cnn | rnn | transformer | custom")
    assert 'did you mean "mlp"' in line


def test_bad_literal_lists_allowed_values():
    (line,) = problems(modified(train__optimizer="adamm"))
    assert (
        line
        == 'train.optimizer: must be one of sgd | adam | adamw, got "adamm" (did you mean "adam" or "adamw"?)'
    )


def test_batch_size_full_or_positive_integer():
    (line,) = problems(modified(train__batch_size="half"))
    assert (
        line
        == 'train.batch_size: must be a whole number between 1 and 1,000,000,000 or "full", got "half"'
    )


def test_gpus_auto_or_a_limit():
    assert (
        parse_spec(modified()).train.gpus == "auto"
        and parse_spec(modified()).train.max_gpus is None
    )
    assert parse_spec(modified(train__gpus=4)).train.max_gpus == 4
    (line,) = problems(modified(train__gpus="all"))
    assert line == 'train.gpus: must be a whole number between 1 and 64 or "auto", got "all"'


def test_batch_larger_than_dataset():
    (line,) = problems(modified(train__batch_size=1000))
    assert line.startswith("train.batch_size: larger than data.samples (256), got 1000")


def test_classification_needs_two_classes():
    assert problems(modified(data__task="classification")) == [
        "model.outputs: classification needs at least 2 classes, got 1"
    ]


def test_transformer_d_model_divisible_by_heads():
    data = {
        "name": "t",
        "data": {"samples": 10, "task": "language_model"},
        "train": {"batch_size": 2, "epochs": 1},
        "model": {
            "kind": "transformer",
            "vocab_size": 50,
            "d_model": 30,
            "heads": 4,
            "layers": 1,
            "seq_len": 8,
        },
    }
    assert problems(data) == ["model.d_model: must be divisible by model.heads (4), got 30"]


def test_language_model_needs_a_transformer():
    (line,) = problems(modified(data__task="language_model"))
    assert line.startswith("data.task: language_model needs model.kind transformer")


def test_several_problems_reported_together():
    lines = problems(modified(model__input_size=0, train__epochs=-1))
    assert lines == [
        "model.input_size: must be > 0, got 0 (a whole number between 1 and 1,000,000)",
        "train.epochs: must be > 0, got -1 (a whole number between 1 and 10,000,000)",
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "the file is empty"),
        ("   \n", "the file is empty"),
        (
            "name: [unclosed",
            "not valid YAML (at the end of the file): expected ',' or ']', but the file ended",
        ),
        ("a: 1\nb: c: d\n", "not valid YAML (line 2, column 5)"),
        # any end of the stream, not only '<stream end>' (a review: an unclosed quote said line 3 of 2)
        (
            'name: x\nmodel: "abc\n',
            "not valid YAML (at the end of the file): found unexpected end of stream",
        ),
        # an unclosed [ is found a line later: where it began is named too (a trial)
        ("a: [1, 2\nb: 3\n", "(while parsing a flow sequence that began at line 1)"),
        ("- just\n- a list\n", "a spec is a mapping"),
        ("42", "a spec is a mapping"),
    ],
)
def test_unreadable_text(text, expected):
    with pytest.raises(SpecError) as info:
        parse_spec_text(text, source="s.yaml")
    assert expected in info.value.message


def test_missing_file(tmp_path):
    with pytest.raises(SpecError, match="no such file"):
        load_spec(tmp_path / "nope.yaml")


def test_json_spec(tmp_path):
    import json

    path = tmp_path / "s.json"
    path.write_text(json.dumps(TINY_MLP))
    assert load_spec(path).name == "tiny-mlp"
    path.write_text("{broken")
    with pytest.raises(SpecError, match="not valid JSON"):
        load_spec(path)


def test_custom_path_is_relative_to_the_spec_file():
    spec = load_spec(EXAMPLES / "custom-policy.yaml")
    assert spec.model.path == str((EXAMPLES / "custom").resolve())


# ------------------------------------------------------------------- property-based: never a traceback
# (random values at every field of every kind: test_spec_fuzz.py)


@settings(max_examples=200, deadline=1500)
@given(st.text(max_size=200))
def test_arbitrary_text_never_crashes(text):
    try:
        parse_spec_text(text, source="random.yaml")
    except SpecError:
        pass


def test_a_yaml_specs_problems_say_their_lines():
    """A trial: an unknown key said where it was, but not on which line of a long spec."""
    text = (EXAMPLES / "small-cnn.yaml").read_text()
    text = text.replace("  batch_size: 128", "  batch_sise: 128").replace(
        "  channels: [16, 32, 64]", "  channels: [16, -32, 64]"
    )
    text = text.replace("  samples: 10000\n", "")
    with pytest.raises(SpecError) as info:
        parse_spec_text(text, source="s.yaml")
    got = info.value.problems
    numbered = {line.split(": ", 1)[1].split(":")[0]: line for line in got}
    assert numbered["train.batch_sise"].startswith("line 14: train.batch_sise: unknown key"), got
    # a list entry: its own line; a missing key: its section's
    assert numbered["model.channels[1]"].startswith("line 7: model.channels[1]: must be > 0"), got
    assert numbered["data.samples"] == "line 10: data.samples: required field is missing", got
    # the message carries them too, under the file's name
    assert "  line 14: train.batch_sise" in str(info.value)


@pytest.mark.parametrize("end", ["", "\n"])
def test_a_yaml_error_at_the_end_names_no_line_past_it(end):
    """A trial: a missing ] on the last line was said at "line 6" of a five-line file, and "got '<stream end>'"."""
    text = "name: x\nmodel:\n  kind: mlp\n  input_size: 2\n  hidden: [3, 4" + end
    with pytest.raises(SpecError) as info:
        parse_spec_text(text, source="s.yaml")
    assert "stream end" not in info.value.message and "line 6" not in str(info.value.hint)
    assert info.value.hint.startswith("fix the YAML at line 5 ")


@pytest.mark.parametrize(
    "text, hint",
    [
        # a trial: a stray Z before line 1's comment ran on into line 2, which was all the error named
        ("Z# A small spec\nname: x\n", "fix the YAML at line 2 or line 1 above it"),
        ("name: x\nmodel: kind: mlp\n", "at line 2 (a value holding ': ' needs quotes;"),
        # a review: a key under one that has a value was told of run-on text
        ("name: x\nmodel: mlp\n  input_size: 2\n", "(line 2 gives its key a value and line 3 is"),
    ],
)
def test_a_colon_yaml_refuses_says_which_line_to_look_at(text, hint):
    with pytest.raises(SpecError) as info:
        parse_spec_text(text, source="s.yaml")
    assert "mapping values are not allowed here" in info.value.message
    assert hint in info.value.hint, info.value.hint


def test_no_gpus_in_a_spec_says_how_to_plan_without_gpus():
    """A trial wrote `gpus: 0` for "no GPU" and was told only that it must be > 0."""
    (line,) = problems(modified(train__gpus=0))
    assert (
        line.startswith("train.gpus: must be a whole number between 1 and 64")
        and "`planner estimate --cpu`" in line
    ), line


def test_cross_field_problems_come_with_the_field_problems_in_one_pass():
    """A trial fixed `gpus: 0` and a misspelt key only to meet 'd_model must be divisible by heads' next, with no
    'to fix' line: the rules the raw values already break are said in the same pass, each once."""
    data = modified(train__batch_size=5000, train__gpus=0)  # TINY_MLP has fewer samples
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    found = info.value.problems
    assert found[0].startswith("train.gpus: must be a whole number"), found
    assert any(p.startswith("train.batch_size: larger than data.samples") for p in found), found
    assert info.value.hint == "see the spec format: docs/guides/specs.md"
    # a field already named keeps its own problem, not a second one
    bad_batch = modified(train__batch_size=-1, train__gpus=0)
    assert [p.split(":")[0] for p in problems(bad_batch)].count("train.batch_size") == 1
    # the cross-field problems alone keep their 'to fix' too
    with pytest.raises(SpecError) as info:
        parse_spec(modified(train__batch_size=5000))
    assert info.value.hint == "see the spec format: docs/guides/specs.md"
    transformer = {
        "name": "tx",
        "model": {
            "kind": "transformer",
            "vocab_size": 500,
            "d_model": 100,
            "heads": 12,
            "layers": 2,
            "seq_len": 16,
        },
        "data": {"samples": 100},
        "train": {"batch_size": 10, "epochs": 1, "precison": "bf16"},
    }
    found = problems(transformer)
    assert found[0].startswith("train.precison: unknown key"), found
    assert "model.d_model: must be divisible by model.heads (12), got 100" in found, found


def test_a_specs_problems_come_in_the_files_order_with_the_transformers_task_among_them():
    """A trial read its problems at lines 19, 15, 14, and met 'a transformer trains as a language_model' only after
    fixing the rest."""
    text = (
        "name: gpt-bad\nmodel:\n  kind: transformer\n  vocab_size: 500\n  d_model: 100\n  heads: 12\n"
        "  layers: 0\n  seq_len: 64\ndata:\n  samples: 1000\n  task: regression\ntrain:\n  batch_size: 10\n"
        "  epochs: 1.5\n  optimiser: adam\n"
    )
    with pytest.raises(SpecError) as info:
        parse_spec_text(text, "bad.yaml")
    found = info.value.problems
    numbers = [int(p.split(":")[0].removeprefix("line ")) for p in found]
    assert numbers == sorted(numbers), found
    assert 'line 11: data.task: a transformer trains as a language_model, got "regression"' in found
    assert any(p.startswith("line 5: model.d_model: must be divisible") for p in found), found
