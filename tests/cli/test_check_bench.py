"""`planner check` and `planner bench` as a user meets them: exit codes, messages, JSON keys."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES

BAD_SPECS = {
    "typo key": (
        "name: x\nmodel: {kind: mlp, input_size: 2, outputs: 1}\ndata: {samples: 10}\n"
        "train: {batch_size: 5, epochs: 1, optimiser: adam}\n",
        'train.optimiser: unknown key (did you mean "optimizer"?)',
    ),
    "negative width": (
        "name: x\nmodel: {kind: mlp, input_size: 2, hidden: [4, -5], outputs: 1}\ndata: {samples: 10}\n"
        "train: {batch_size: 5, epochs: 1}\n",
        "model.hidden[1]: must be > 0, got -5",
    ),
    "missing field": (
        "name: x\nmodel: {kind: mlp, input_size: 2, outputs: 1}\ndata: {samples: 10}\ntrain: {epochs: 1}\n",
        "train.batch_size: required field is missing",
    ),
    "empty file": ("", "the file is empty"),
    "broken yaml": ("name: x\nmodel: {kind: mlp\n", "not valid YAML"),
}


@pytest.mark.parametrize("command", ["check", "bench"])
@pytest.mark.parametrize("case", sorted(BAD_SPECS))
def test_bad_spec_exits_2_with_a_short_message(tmp_path, command, case):
    text, expected = BAD_SPECS[case]
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    r = planner(command, path)
    assert r.code == 2, r.err
    assert expected in r.err
    assert "Traceback" not in r.err and r.out == ""


@pytest.mark.parametrize("command", ["check", "bench"])
def test_missing_file_exits_2(tmp_path, command):
    r = planner(command, tmp_path / "nope.yaml")
    assert r.code == 2 and "no such file" in r.err and "Traceback" not in r.err


def test_usage_error_exits_2():
    r = planner("bench", EXAMPLES / "surface-mlp.yaml", "--seconds", "-3")
    assert r.code == 2 and "--seconds" in r.err


def test_check_json_summary():
    r = planner("check", EXAMPLES / "surface-mlp.yaml", "--json")
    assert r.code == 0
    data = json.loads(r.out)
    assert data["memory"]["params"] == 2 * 20 + 20 + 20 * 5 + 5 + 5 + 1
    assert data["batch_size"] == 40000 and data["total_steps"] == 2000
    assert data["memory"]["total_bytes"] > data["memory"]["activations_bytes"] > 0


def test_check_custom_model_with_a_broken_module_exits_2(tmp_path):
    (tmp_path / "m.py").write_text("import does_not_exist\n")
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "name: x\nmodel: {kind: custom, factory: 'm:build', path: ., input_shape: [3], outputs: 2}\n"
        "data: {samples: 10, task: classification}\ntrain: {batch_size: 5, epochs: 1}\n"
    )
    r = planner("check", spec)
    assert r.code == 2 and 'cannot import module "m"' in r.err and "Traceback" not in r.err


REQUIRED_BENCH_KEYS = {
    "device",
    "device_name",
    "step_seconds",
    "step_seconds_median",
    "step_seconds_p10",
    "step_seconds_p90",
    "samples_per_second",
    "steps_measured",
    "warmup_seconds",
    "peak_memory_bytes",
    "torch_version",
    "batch_size",
}


def test_bench_json_keys_and_full_batch_resolved(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "name: tiny\nmodel: {kind: mlp, input_size: 2, hidden: [8], outputs: 1}\n"
        "data: {samples: 500}\ntrain: {batch_size: full, epochs: 1}\n"
    )
    out = tmp_path / "full.json"
    r = planner("bench", spec, "--device", "cpu", "--seconds", "1", "--json", "--out", out)
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert REQUIRED_BENCH_KEYS <= data.keys()
    assert data["device"] == "cpu" and data["batch_size"] == 500
    assert data["step_seconds_p10"] <= data["step_seconds_median"] <= data["step_seconds_p90"]
    assert json.loads(out.read_text())["step_seconds"] == data["step_seconds"]


def test_bench_cuda_without_cuda_exits_2():
    import torch

    r = planner("bench", EXAMPLES / "surface-mlp.yaml", "--device", "cuda", "--seconds", "1")
    if torch.cuda.is_available():
        assert r.code == 0
    else:
        assert r.code == 2 and "no CUDA GPU" in r.err and "Traceback" not in r.err


def test_bench_table_is_readable(tmp_path):
    r = planner("bench", EXAMPLES / "custom-policy.yaml", "--device", "cpu", "--seconds", "1")
    assert r.code == 0, r.err
    assert "step time (mean)" in r.out and "samples/s" in r.out


def test_check_refuses_a_script_that_does_not_parse_as_bad_input_and_repeats_the_arguments_it_was_given(
    tmp_path,
):
    """A script with a syntax error is bad input (exit 2, as a spec that does not parse; it exited 1), and a script
    that parses is pointed to its bench with the arguments given to check (it said `-- ARGS`)."""
    bad = tmp_path / "train.py"
    bad.write_text("import torch\ndef f(:\n")
    r = planner("check", bad)
    assert r.code == 2 and "does not parse as Python" in r.err and "Traceback" not in r.err
    # every command that takes a script refuses it the same way, before anything runs (estimate said 'run failed',
    # exit 1, after starting it)
    for command in ("estimate", "bench", "validate"):
        r = planner(command, bad, "--total-steps", "10")
        assert r.code == 2 and "line 2: invalid syntax" in r.err, (command, r.err)
        assert "Running" not in r.err and "run failed" not in r.err, (command, r.err)
    r = planner("check", EXAMPLES / "scripts" / "reinforce.py", "--", "--episodes", "3000")
    assert r.code == 0, r.err
    assert "reinforce.py -- --episodes 3000" in " ".join(r.out.split())
