"""Issue 16, specs: every bad input is a SpecError (exit 2) naming the field or line, the value and
the limit; no hang, no crash, no memory blow-up. Each case the tester found is a test here."""

from __future__ import annotations

import copy
import json
import os
import re
import socket
import sys
import threading
import time
import tracemalloc

import pytest
import yaml

from planner.errors import ExitCode, SpecError
from planner.workload import load as specio
from planner.workload.limits import (
    MAX_EPOCHS,
    MAX_GPUS,
    MAX_LAYERS,
    MAX_SAMPLES,
    MAX_SIZE,
    MAX_SPEC_BYTES,
    brief,
)
from planner.workload.spec import load_spec, parse_spec, parse_spec_text
from tests.conftest import EXAMPLES, TINY_MLP

GOOD_YAML = (EXAMPLES / "surface-mlp.yaml").read_text()
POSIX = os.name == "posix"


def refusal(call, *args, seconds: float = 5.0) -> str:
    """Run `call(*args)` in a thread: it must raise SpecError (exit 2) within `seconds`. Returns the
    rendered message. A hang fails the test instead of hanging the suite."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = call(*args)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{call.__name__} still running after {seconds} s"
    error = outcome.get("error")
    assert isinstance(error, SpecError), (
        f"expected SpecError, got {error!r} / {outcome.get('value')!r}"
    )
    assert error.exit_code == ExitCode.BAD_INPUT
    text = error.render()
    assert "Traceback" not in text and "internal error" not in text
    return text


def yaml_refusal(text: str) -> str:
    return refusal(parse_spec_text, text, "s.yaml")


def spec_yaml(**fields) -> str:
    """TINY_MLP as YAML, with `section__field=value` changes."""
    data = copy.deepcopy(TINY_MLP)
    for dotted, value in fields.items():
        *parents, last = dotted.split("__")
        target = data
        for part in parents:
            target = target[part]
        target[last] = value
    return yaml.safe_dump(data, sort_keys=False)


# ----------------------------------------------------------------------------- the file


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "spec.yaml"
    os.mkfifo(fifo)
    assert "is a named pipe (FIFO), not a spec file" in refusal(load_spec, fifo)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_swapped_in_after_stat_is_opened_without_blocking(tmp_path, monkeypatch):
    fifo, regular = tmp_path / "fifo.yaml", tmp_path / "plain.yaml"
    os.mkfifo(fifo)
    regular.write_text(GOOD_YAML)
    real_stat = os.stat
    monkeypatch.setattr(
        specio.os, "stat", lambda path: real_stat(regular)
    )  # stat sees a file, open a FIFO
    assert "is a named pipe (FIFO)" in refusal(load_spec, fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_before_reading():
    assert "/dev/zero: is a character device, not a spec file" in refusal(load_spec, "/dev/zero")


def test_directory(tmp_path):
    assert "is a directory, not a spec file" in refusal(load_spec, tmp_path)
    (tmp_path / "script.json").write_text("{}")  # a saved run's journal: planned again, not loaded
    assert "planner plan" in refusal(load_spec, tmp_path)


@pytest.mark.skipif(not POSIX or not hasattr(socket, "AF_UNIX"), reason="no unix sockets")
def test_socket(tmp_path):
    path = tmp_path / "s.yaml"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        assert "is a socket" in refusal(load_spec, path)


def test_huge_file_is_refused_by_its_size(tmp_path):
    path = tmp_path / "big.yaml"
    with open(path, "wb") as f:
        f.truncate(8 << 30)  # 8 GiB, sparse: nothing is written, nothing may be read
    text = refusal(load_spec, path)
    assert "is 8.0 GiB; a spec file is at most 256 KiB" in text


def test_a_spec_just_under_the_size_limit_loads(tmp_path):
    path = tmp_path / "padded.yaml"
    padding = "# padding\n" * ((MAX_SPEC_BYTES - len(GOOD_YAML) - 10) // 10)
    path.write_text(GOOD_YAML + padding)
    assert path.stat().st_size <= MAX_SPEC_BYTES
    assert load_spec(path).name == "surface-mlp"


@pytest.mark.parametrize(
    "content, expected",
    [
        (bytes(range(256)) * 8, "is a binary file (it contains NUL bytes)"),
        (GOOD_YAML.encode("utf-16"), "is UTF-16 text; a spec is UTF-8"),
        ("name: caf\xe9\n".encode("latin-1"), "is not UTF-8 text (byte 0xe9 on line 1)"),
    ],
)
def test_binary_and_non_utf8_files(tmp_path, content, expected):
    path = tmp_path / "s.yaml"
    path.write_bytes(content)
    assert expected in refusal(load_spec, path)


def test_utf8_bom_is_fine(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD_YAML.encode())
    assert load_spec(path).name == "surface-mlp"


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda d: d / "missing.yaml", "no such file"),
        (lambda d: d / "file.yaml" / "below", "no such file"),
        (lambda d: str(d / "a\0b.yaml"), "contains a NUL character"),
        (lambda d: d / ("n" * 5000), "cannot read it (File name too long)"),
    ],
)
def test_unusable_paths(tmp_path, make, expected):
    (tmp_path / "file.yaml").write_text(GOOD_YAML)
    text = refusal(load_spec, make(tmp_path))
    assert expected in text and "\0" not in text


@pytest.mark.skipif(not POSIX, reason="symlinks")
def test_symlink_loop(tmp_path):
    os.symlink(tmp_path / "a", tmp_path / "b")
    os.symlink(tmp_path / "b", tmp_path / "a")
    assert "cannot read it" in refusal(load_spec, tmp_path / "a")


@pytest.mark.skipif(not POSIX or os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(GOOD_YAML)
    path.chmod(0)
    assert "permission denied" in refusal(load_spec, path)


def test_text_given_directly_has_the_same_limits():
    assert "at most 256 KiB" in yaml_refusal("# x\n" * (MAX_SPEC_BYTES // 4 + 1))
    assert "contains a NUL character" in yaml_refusal(GOOD_YAML + "\0")
    assert "is not UTF-8 text" in refusal(parse_spec_text, b"name: \xff", "s.yaml")
    assert parse_spec_text(GOOD_YAML.encode(), "s.yaml").name == "surface-mlp"


# ----------------------------------------------------------------------------- YAML structure


def test_alias_bomb_in_hidden_is_refused_fast_and_small():
    """The tester's billion laughs: 9 levels of 9 aliases each inside model.hidden (9^9 values)."""
    anchors = "".join(f"  - &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 10))
    text = GOOD_YAML.replace(
        "hidden: [20, 5]", "hidden:\n  - &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + anchors
    )
    tracemalloc.start()
    try:
        started = time.perf_counter()
        message = yaml_refusal(text)
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "more than 10,000 values in the spec" in message and "line " in message
    assert elapsed < 2 and peak < 50 << 20


def test_a_big_value_within_the_budget_is_shown_cut():
    nine = "[" + ", ".join(["1"] * 9) + "]"
    text = GOOD_YAML.replace(
        "hidden: [20, 5]", f"hidden: [&a [{', '.join([nine] * 9)}], *a, *a, *a]"
    )
    # each problem after its line (line N: ...)
    lines = [re.sub(r"^  line \d+: ", "  ", line) for line in yaml_refusal(text).splitlines()]
    assert (
        "  model.hidden[3]: must be a whole number between 1 and 1,000,000, got [[1, 1, 1, 1, 1, 1, 1, 1, 1], "
        "[1, 1, 1, 1, 1, 1, 1, 1, 1]..." in lines
    )


def test_aliases_and_merge_keys_people_use_still_work():
    spec = parse_spec_text(
        GOOD_YAML.replace("hidden: [20, 5]", "hidden: [&w 16, *w, *w]"), "s.yaml"
    )
    assert spec.model.hidden == [16, 16, 16]
    merged = (
        "name: m\nmodel: {<<: {kind: mlp, input_size: 4, outputs: 1}, outputs: 3}\n"
        "data: {samples: 10}\ntrain: {batch_size: 5, epochs: 1}\n"
    )
    assert (
        parse_spec_text(merged, "s.yaml").model.outputs == 3
    )  # overriding a merged key is no duplicate


def test_recursive_alias():
    assert "alias *c is inside its own anchor (a cycle)" in yaml_refusal(
        GOOD_YAML.replace("hidden: [20, 5]", "hidden: &c [1, *c]")
    )


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 100_000 + "]" * 100_000,
        "".join("  " * i + f"k{i}:\n" for i in range(40)) + "  " * 40 + "v",
        "- " * 1000 + "x",
    ],
)
def test_deep_nesting_is_refused_without_recursion_error(text):
    message = yaml_refusal(text)
    assert (
        "nested more than 20 levels deep; a spec is 3 levels deep" in message
        and "(line " in message
    )


def test_duplicate_keys_name_the_key_and_both_lines():
    text = GOOD_YAML.replace("  epochs: 2000\n", "  epochs: 2000\n  epochs: 20\n")
    lines = text.splitlines()
    first = lines.index("  epochs: 2000") + 1
    assert (
        f's.yaml (line {first + 1}, column 3): duplicate key "epochs" (first on line {first}); '
        "each key may appear once"
    ) in yaml_refusal(text)
    assert 'duplicate key "model"' in yaml_refusal(GOOD_YAML + "model: {}\n")


@pytest.mark.parametrize(
    "value, expected",
    [
        (
            "1" + "0" * 400,
            "train.epochs: must be a whole number between 1 and 10,000,000, got 100000...(401 digits)",
        ),
        ("1e401", 'train.epochs: must be a whole number between 1 and 10,000,000, got "1e401"'),
        ("1.0e+401", "train.epochs: must be a whole number between 1 and 10,000,000, got inf"),
        (".nan", "train.epochs: must be a whole number between 1 and 10,000,000, got nan"),
        ("2.5", "train.epochs: must be a whole number between 1 and 10,000,000, got 2.5"),
        ("true", "train.epochs: must be a whole number between 1 and 10,000,000, got true"),
        ("9" * 5000, "s.yaml (line 16, column 11): a number written with 5,000 characters"),
        (
            ":".join(["59"] * 300),
            "train.epochs: must be a whole number between 1 and 10,000,000, got 2",
        ),
        ("2001-13-45", 'cannot read "2001-13-45" as timestamp (month must be in 1..12)'),
    ],
    ids=[
        "401-digits",
        "1e401-text",
        "1e401-float",
        "nan",
        "fraction",
        "bool",
        "5000-digits",
        "base-60",
        "date",
    ],
)
def test_unreadable_and_absurd_numbers(value, expected):
    assert expected in yaml_refusal(GOOD_YAML.replace("epochs: 2000", f"epochs: {value}"))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a: !!int ''", 'cannot read "" as int'),
        ("a: !!bool maybe", 'cannot read "maybe" as bool'),
        ("a: !!timestamp soon", 'cannot read "soon" as timestamp'),
        ("a: !!python/object/apply:os.system [ls]", "could not determine a constructor"),
        ("a: *nowhere", "found undefined alias"),
        ("name: \ud800", "unacceptable character"),
    ],
)
def test_yaml_tags_and_oddities(text, expected):
    assert expected in yaml_refusal(text)


def test_keys_must_be_text():
    assert (
        '(top level): key true is not text; keys are field names such as "epochs"'
        in yaml_refusal(GOOD_YAML + "on: 1\n")
    )
    assert "model: key 3 is not text" in yaml_refusal(
        GOOD_YAML.replace("  kind: mlp", "  kind: mlp\n  3: x")
    )


def test_too_many_values():
    # parsing the first 10,000 values takes 0.5 s quiet and over 5 s beside three busy test workers: the bound
    # guards against a hang (the whole 20,000 or an endless document), not a slow scan
    text = "a: [" + "1, " * 20_000 + "]"
    assert "more than 10,000 values in the spec" in refusal(
        parse_spec_text, text, "s.yaml", seconds=30
    )


# ----------------------------------------------------------------------------- JSON


def json_refusal(text: str) -> str:
    return refusal(parse_spec_text, text, "s.json")


def test_json_duplicate_keys_deep_nesting_and_long_numbers():
    assert 's.json (line 3): duplicate key "name" (first on line 1)' in json_refusal(
        '{"name": "a",\n\n "name": "b"}'
    )
    assert 'duplicate key "epochs"' in json_refusal('{"train": {"epochs": 1, "e\\u0070ochs": 2}}')
    assert "nested more than 20 levels deep" in json_refusal("[" * 100_000 + "]" * 100_000)
    assert "a number written with 5,000 characters" in json_refusal('{"a": ' + "9" * 5000 + "}")
    assert "a number written with 2,002 characters" in json_refusal('{"a": 1.' + "9" * 2000 + "}")
    data = copy.deepcopy(TINY_MLP)
    data["train"]["learning_rate"] = float("nan")
    assert "train.learning_rate: must be a number above 0 and at most 100, got nan" in json_refusal(
        json.dumps(data)
    )
    # the same key in different objects is fine
    assert parse_spec_text(json.dumps(TINY_MLP), "s.json").name == "tiny-mlp"


# ----------------------------------------------------------------------------- values and ranges

MLP_FIELDS = [
    ("model__input_size", MAX_SIZE),
    ("model__outputs", MAX_SIZE),
    ("data__samples", MAX_SAMPLES),
    ("train__epochs", MAX_EPOCHS),
    ("train__batch_size", MAX_SAMPLES),
    ("train__gpus", MAX_GPUS),
]
OTHER_KINDS = {
    "rnn": (
        {
            "kind": "rnn",
            "input_size": 3,
            "hidden_size": 8,
            "num_layers": 1,
            "seq_len": 5,
            "outputs": 1,
        },
        [
            ("hidden_size", MAX_SIZE),
            ("seq_len", MAX_SIZE),
            ("num_layers", MAX_LAYERS),
            ("input_size", MAX_SIZE),
        ],
    ),
    "transformer": (
        {
            "kind": "transformer",
            "vocab_size": 50,
            "d_model": 16,
            "heads": 2,
            "layers": 1,
            "seq_len": 8,
        },
        [
            ("vocab_size", MAX_SIZE),
            ("d_model", MAX_SIZE),
            ("heads", 1024),
            ("layers", MAX_LAYERS),
            ("seq_len", MAX_SIZE),
            ("ff_size", MAX_SIZE),
        ],
    ),
    "cnn": (
        {"kind": "cnn", "input_shape": [3, 8, 8], "channels": [4], "outputs": 2},
        [("outputs", MAX_SIZE)],
    ),
}


@pytest.mark.parametrize("field, top", MLP_FIELDS, ids=[f for f, _ in MLP_FIELDS])
@pytest.mark.parametrize("bad", ["above", "inf", "nan", "huge", "text", "zero"])
def test_every_numeric_field_states_its_range(field, top, bad):
    value = {
        "above": top + 1,
        "inf": float("inf"),
        "nan": float("nan"),
        "huge": 10**400,
        "text": "many",
        "zero": 0,
    }[bad]
    message = yaml_refusal(spec_yaml(**{field: value}))
    assert (
        f"{field.replace('__', '.')}: must be " in message and f"between 1 and {top:,}" in message
    )


@pytest.mark.parametrize("kind", OTHER_KINDS)
def test_other_kinds_fields_state_their_ranges(kind):
    model, fields = OTHER_KINDS[kind]
    task = {"transformer": "language_model", "cnn": "classification"}.get(kind, "regression")
    for field, top in fields:
        data = {
            "name": "k",
            "model": {**model, field: top + 1},
            "data": {"samples": 10, "task": task},
            "train": {"batch_size": 2, "epochs": 1},
        }
        with pytest.raises(SpecError) as info:
            parse_spec(data)
        assert (
            f"model.{field}: must be a whole number between 1 and {top:,}, got {top + 1}"
            in info.value.problems
        )


def test_lists_of_sizes():
    assert (
        "model.hidden[1]: must be > 0, got -5 (a whole number between 1 and 1,000,000)"
        in yaml_refusal(spec_yaml(model__hidden=[8, -5]))
    )
    assert "model.hidden: must have at most 1,000 entries, got 1,001" in yaml_refusal(
        spec_yaml(model__hidden=[8] * 1001)
    )
    cnn = {
        "name": "c",
        "model": {"kind": "cnn", "input_shape": [3, 8], "channels": [4], "outputs": 2},
        "data": {"samples": 4, "task": "classification"},
        "train": {"batch_size": 2, "epochs": 1},
    }
    with pytest.raises(SpecError, match=r"model.input_shape: must be \[channels, height, width\]"):
        parse_spec(cnn)


def test_learning_rate_range_and_yaml_text_numbers():
    for value, shown in [
        (0, "0"),
        (-1e-3, "-0.001"),
        (1e3, "1000.0"),
        (float("inf"), "inf"),
        (10**400, "100000...(401 digits)"),
    ]:
        message = yaml_refusal(spec_yaml(train__learning_rate=value))
        assert (
            "train.learning_rate: must be " in message
            and "at most 100" in message
            and f"got {shown}" in message
        )
    # PyYAML reads 1e-3 and 4e4 as text; they are numbers here, as people mean them
    text = GOOD_YAML.replace("learning_rate: 0.08", "learning_rate: 1e-3").replace(
        "samples: 40000", "samples: 4e4"
    )
    spec = parse_spec_text(text, "s.yaml")
    assert spec.train.learning_rate == 1e-3 and spec.data.samples == 40000


def test_name_length_and_characters():
    assert parse_spec(dict(TINY_MLP, name="n" * 64)).name == "n" * 64
    message = yaml_refusal(spec_yaml(name="n" * 300))
    assert (
        "name: must be at most 64 characters (it names the run directory and the instances' tags), got 300 characters"
        in message
    )
    assert "name: must be letters, digits" in yaml_refusal(spec_yaml(name="../../etc"))
    assert "name: must not be empty" in yaml_refusal(spec_yaml(name=""))


def test_derived_limits():
    steps = yaml_refusal(spec_yaml(data__samples=10**9, train__batch_size=1, train__epochs=10**6))
    assert (
        "train.epochs: 1,000,000 epochs x 1,000,000,000 steps per epoch = 1,000,000,000,000,000 steps; "
        "at most 1,000,000,000,000"
    ) in steps
    params = yaml_refusal(spec_yaml(model__hidden=[10**6, 10**6]))
    assert "model: 1,000,007,000,001 parameters; at most 100,000,000,000" in params
    image = {
        "name": "c",
        "model": {
            "kind": "cnn",
            "input_shape": [3, 100_000, 100_000],
            "channels": [4],
            "outputs": 2,
        },
        "data": {"samples": 4, "task": "classification"},
        "train": {"batch_size": 2, "epochs": 1},
    }
    with pytest.raises(SpecError) as info:
        parse_spec(image)
    assert info.value.problems == [
        "model.input_shape: one sample is 3 x 100,000 x 100,000 = 30,000,000,000 values; "
        "at most 1,000,000,000 (4 GB in fp32)"
    ]


def test_custom_model_strings():
    base = {"name": "c", "data": {"samples": 4}, "train": {"batch_size": 2, "epochs": 1}}
    for model, expected in [
        ({"factory": "m:" + "f" * 300}, "model.factory: must be at most 200 characters"),
        (
            {"factory": "m:f", "path": "a\0b"},
            "model.path: must be a directory path without NUL characters",
        ),
        ({"factory": "m:f", "path": "p" * 2000}, "model.path: must be at most 1024 characters"),
        (
            {"factory": "m:f", "input_shape": [2] * 9},
            "model.input_shape: must have at most 8 entries, got 9",
        ),
    ]:
        with pytest.raises(SpecError) as info:
            parse_spec(
                {**base, "model": {"kind": "custom", "input_shape": [4], "outputs": 1, **model}}
            )
        assert any(p.startswith(expected) for p in info.value.problems), info.value.problems


def test_many_problems_are_counted_not_listed():
    message = yaml_refusal(spec_yaml(model__hidden=["x"] * 500))
    assert (
        message.count("must be a whole number") == 20 and "480 more problems not shown" in message
    )


# ----------------------------------------------------------------------------- data given directly


def test_parse_spec_bounds_what_did_not_come_from_a_file():
    cyclic = copy.deepcopy(TINY_MLP)
    cyclic["model"]["hidden"] = loop = [1]
    loop.append(loop)
    with pytest.raises(SpecError, match="nested more than 20 levels deep"):
        parse_spec(cyclic)
    shared = [1] * 100
    with pytest.raises(SpecError, match="more than 10,000 values"):
        parse_spec(dict(TINY_MLP, extra=[[shared] * 100] * 100))  # a million values by reference
    with pytest.raises(SpecError, match=r"\(top level\): key 1 is not text"):
        parse_spec({**TINY_MLP, 1: 2})


def test_brief_is_bounded_whatever_it_is_given():
    loop: list = [1]
    loop.append(loop)
    huge = [[list(range(1000))] * 1000] * 1000  # a billion values by reference
    started = time.perf_counter()
    for value in (
        huge,
        loop,
        "x" * 10**6,
        10**5000,
        {"k" * 100: huge},
        b"\0" * 100,
        object(),
        {1, 2},
    ):
        assert len(brief(value)) <= 60
    assert time.perf_counter() - started < 0.5
    assert brief(10**5000).startswith("a number of about 5,000 digits")
    assert brief([1, [2, [3, [4, [5]]]]]) == "[1, [2, [3, [...]]]]"
    assert brief(None) == "null" and brief(True) == "true" and brief("a\nb") == '"a\\nb"'


def test_no_module_but_the_loader_imports_yaml_at_import_time():
    """specio keeps `planner --help` light: yaml is imported on first use, not at import."""
    import subprocess

    code = "import sys, planner.workload.spec; print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
