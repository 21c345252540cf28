"""`planner estimate` on big and small workloads: a bounded bench, honest intervals, the two
answers and a headline a user would take, a table that fits, strict JSON (issue 13)."""

from __future__ import annotations

import json
import re

import pytest

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES, note_of


def strict(text: str):
    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def surface(tmp_path_factory):
    r = planner(
        "estimate",
        EXAMPLES / "surface-mlp.yaml",
        "--seconds",
        "2",
        "--json",
        env={"PLANNER_CACHE_DIR": str(tmp_path_factory.mktemp("cache"))},
    )
    assert r.code == 0, r.err
    return strict(r.out)


def test_a_small_mlp_stays_on_the_cpu_here(surface):
    rec = surface["recommendation"]
    assert (rec["target"], rec["device"], rec["answer"]) == ("local", "cpu", "here")
    assert surface["answers"]["here"]["target"] == "local"
    assert surface["answers"]["rent"]["device"] == "cpu"  # in the cloud too, a CPU instance
    assert surface["headline"] == {"time_value_per_hour": 5.0, "time_value_is_default": True}


def test_rented_gpus_are_compared_with_the_best_rented_cpu(surface):
    gpus = [o for o in surface["options"] if o["device"] == "cuda" and o["speedup"] is not None]
    assert gpus and all(o["reference"].startswith("aws:") for o in gpus)
    assert all(o["break_even_speedup"] is not None and o["break_even_speedup"] > 1 for o in gpus)
    for o in surface["options"]:
        for key in (
            "device_name",
            "gpus_used",
            "step_seconds",
            "step_seconds_low",
            "step_seconds_high",
            "one_time_seconds",
        ):
            assert key in o


def test_a_big_convnet_rents_a_gpu(tmp_path):
    spec = tmp_path / "big.yaml"
    spec.write_text(
        "name: convnet\nmodel: {kind: cnn, input_shape: [3, 64, 64], channels: [32, 64], outputs: 100}\n"
        "data: {samples: 100000, task: classification}\n"
        "train: {batch_size: 128, epochs: 30, optimizer: sgd, learning_rate: 0.05}\n"
    )
    r = planner(
        "estimate", spec, "--seconds", "2", "--json", env={"PLANNER_CACHE_DIR": str(tmp_path)}
    )
    assert r.code == 0, r.err
    doc = strict(r.out)
    rec = doc["recommendation"]
    assert rec["answer"] == "rent" and rec["device"] == "cuda", rec
    assert "Why rent: at $5/h of your waiting" in rec["reason"] and rec["comparison"][
        "verdict"
    ] in ("clear", "likely")
    local = next(o for o in doc["options"] if o["target"] == "local")
    assert (
        local["train_seconds_low"]
        <= local["train_seconds"]
        <= local["train_seconds_high"]
        <= 2 * local["train_seconds"]
    )
    # waiting worth nothing: the free machine is the answer again
    r = planner(
        "estimate",
        spec,
        "--seconds",
        "1",
        "--json",
        "--time-value",
        "0",
        env={"PLANNER_CACHE_DIR": str(tmp_path)},
    )
    assert strict(r.out)["recommendation"]["answer"] == "here"


def test_a_workload_that_does_not_fit_here_is_still_planned(tmp_path):
    spec = (
        tmp_path / "huge.yaml"
    )  # 37 GiB of images on the training device: not here, but on a 48 GB L40S, an 80 GB H100 or A100, an H200
    spec.write_text(
        "name: huge\nmodel: {kind: cnn, input_shape: [3, 64, 64], channels: [16], outputs: 10}\n"
        "data: {samples: 800000, task: classification, location: device}\n"
        "train: {batch_size: 256, epochs: 1, optimizer: sgd, learning_rate: 0.05}\n"
    )
    r = planner(
        "estimate", spec, "--seconds", "1", "--json", env={"PLANNER_CACHE_DIR": str(tmp_path)}
    )
    assert r.code == 0, r.err
    doc = strict(r.out)
    local = next(o for o in doc["options"] if o["target"] == "local")
    assert not local["fits"] and "does not fit here" in note_of(local) and "GiB" in note_of(local)
    assert (
        local["step_seconds"] > 0
    )  # measured anyway: the bench held a pool of batches, not the dataset
    said = [
        w["text"] for w in doc["notes"] if "measured on a pool of" in w["text"]
    ]  # and the plan says what it modelled
    assert (
        len(said) == 1 and "the whole dataset (36.6 GiB)" in said[0] and "is modelled" in said[0]
    ), doc["notes"]
    assert local["data_seconds"] > 0 and local["one_time_seconds"] >= local["data_seconds"]
    fitting = [
        o
        for o in doc["options"]
        if o["fits"] and o["train_seconds"] is not None and o["device"] == "cuda"
    ]
    assert fitting and {o["device_name"].split(" ")[0] for o in fitting} <= {
        "H100",
        "L40S",
        "A100-80GB",
        "H200",
    }
    assert doc["recommendation"]["answer"] == "rent" and doc["recommendation"]["target"]


def test_the_table_fits_100_columns_without_cutting_numbers(tmp_path):
    r = planner(
        "estimate",
        EXAMPLES / "custom-policy.yaml",
        "--seconds",
        "1",
        env={"COLUMNS": "100", "PLANNER_CACHE_DIR": str(tmp_path)},
    )
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    # the table's rows ("✔   1   local ...", "    2   aws:c6i.xlarge ..."): not the footer's "2 warnings: ..." (shortened
    # with "…" on a busy machine) nor the answer's "Renting aws:..." line
    table = [line for line in lines if re.match(r"\s*(✔\s+)?\d+\s+(local|aws:)", line)]
    assert table and all(len(line.rstrip()) <= 100 for line in lines)
    assert "…" not in "".join(table)  # no number cut
    assert (
        "measured on a pool of" not in r.out
    )  # a dataset the bench held whole: nothing modelled to say
    assert "✔" in r.out and "more column" in r.out
    wide = planner("plan", "--help")
    assert "--wide" in wide.out


def test_check_json_on_a_bad_spec_is_a_json_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: x\nmodel: {kind: mlp, input_size: 0, outputs: 1}\ndata: {samples: 10}\ntrain: {batch_size: 4, epochs: 1}\n"
    )
    r = planner("check", bad, "--json")
    assert r.code == 2
    error = strict(r.out)["error"]
    assert error["exit_code"] == 2 and "model.input_size" in error["message"]


def test_a_region_without_cpu_prices_says_the_gpu_rule_has_nothing_to_compare_with(tmp_path):
    """The bundled snapshot prices GPUs but no CPU instance in some regions: the GPU rule's line vanished silently
    (a new user's trial); it says why, and where to compare."""
    r = planner(
        "estimate",
        EXAMPLES / "small-cnn.yaml",
        *("--predict-only", "--region", "ap-south-1"),
        env={"PLANNER_CACHE_DIR": str(tmp_path)},
    )
    assert r.code == 0, r.err
    assert (
        "No CPU instance is priced in ap-south-1: nothing to hold a GPU's speedup against" in r.out
    )
    r = planner(
        "estimate",
        EXAMPLES / "small-cnn.yaml",
        *("--predict-only", "--region", "us-east-1"),
        env={"PLANNER_CACHE_DIR": str(tmp_path)},
    )
    assert r.code == 0 and "No CPU instance is priced" not in r.out
    r = planner(
        "estimate",
        EXAMPLES / "small-cnn.yaml",
        *("--predict-only", "--gpu", "-v"),
        env={"PLANNER_CACHE_DIR": str(tmp_path)},
    )  # no CPU instance because --gpu left them out: not said to be unpriced; the note says why
    assert r.code == 0 and "No CPU instance is priced" not in r.out
    assert "GPU instances only (--gpu)" in r.out


def test_predict_only_measures_nothing_and_predicts_every_instance(tmp_path):
    r = planner(
        "estimate",
        EXAMPLES / "resnet50-imagenet.yaml",
        "--predict-only",
        "--json",
        env={"PLANNER_CACHE_DIR": str(tmp_path)},
    )
    assert r.code == 0, r.err
    doc = strict(r.out)
    assert all(o["source"] == "predicted" for o in doc["options"])  # no local row: nothing ran here
    gpus = [o for o in doc["options"] if o["device"] == "cuda" and o["step_seconds"] is not None]
    assert {o["device_name"] for o in gpus} >= {"T4", "A10G", "L4", "L40S", "V100", "A100", "H100"}
    for o in gpus:  # multi-GPU instances also at 2, 4, 8 of their GPUs (issue 18)
        assert (
            o["gpus_used"] >= 1
            and o["step_seconds_low"] < o["step_seconds"] < o["step_seconds_high"]
        )
    assert {o["target"] for o in gpus if o["gpus_used"] == 1} == {
        o["target"] for o in gpus
    }  # each at one GPU too
    cpus = [
        o
        for o in doc["options"]
        if o["device"] == "cpu" and o["step_seconds"] is not None and o["fits"]
    ]
    assert cpus and all("nothing measured here" in note_of(o) for o in cpus)
