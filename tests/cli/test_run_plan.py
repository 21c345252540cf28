"""`planner run` end to end on this machine, the journal, `planner plan` and `planner validate`."""

from __future__ import annotations

import json

import pytest

from planner.journal import RunJournal
from planner.report.text import worded_json
from tests.cli.helpers import planner
from tests.conftest import EXAMPLES as EXAMPLES_DIR
from tests.conftest import ROOT

SPEC = (
    "name: tiny-run\nmodel: {kind: mlp, input_size: 4, hidden: [16], outputs: 1}\n"
    "data: {samples: 2048}\ntrain: {batch_size: 256, epochs: 50}\n"
)

OPTION_KEYS = {
    "target",
    "device",
    "source",
    "step_seconds",
    "train_seconds",
    "train_seconds_low",
    "train_seconds_high",
    "price_per_hour",
    "cost_usd",
    "fits",
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("run")
    spec = base / "tiny.yaml"
    spec.write_text(SPEC)
    out = base / "journal"
    r = planner("run", spec, "--targets", "local", "--seconds", "1", "--json", "--out", out)
    assert r.code == 0, r.err
    return out, json.loads(r.out)


def test_run_json_carries_the_documented_keys(run_dir):
    _, doc = run_dir
    assert {"workload", "options", "recommendation"} <= doc.keys()
    assert doc["workload"]["total_steps"] == 8 * 50
    for option in doc["options"]:
        assert OPTION_KEYS <= option.keys()
    cpu = next(o for o in doc["options"] if o["device"] == "cpu")
    assert cpu["source"] == "measured" and cpu["fits"] is True
    assert cpu["train_seconds_low"] < cpu["train_seconds"] < cpu["train_seconds_high"]
    assert cpu["price_per_hour"] == 0.0 and cpu["cost_usd"] == 0.0
    rec = doc["recommendation"]
    assert rec["target"] == "local" and rec["reason"]


def test_journal_holds_spec_results_and_plan(run_dir):
    out, doc = run_dir
    journal = RunJournal.open(out)
    assert journal.read_spec().name == "tiny-run"
    assert (out / "spec.yaml").read_text() == SPEC
    results = journal.read_results()
    assert "local-cpu" in results and results["local-cpu"].result.status == "ok"
    assert json.loads((out / "plan.json").read_text()) == doc  # plan.json is what --json printed
    assert worded_json(journal.read_plan())["options"] == doc["options"]  # and reads back as it was


def test_plan_reproduces_run_exactly_from_the_journal(run_dir):
    out, doc = run_dir
    r = planner(
        "plan", out, "--json"
    )  # a run's plan is the plan of its journal: measured and predicted rows
    assert r.code == 0, r.err
    again = json.loads(r.out)
    assert again["options"] == doc["options"]
    assert again["recommendation"] == doc["recommendation"]


def test_plan_of_a_local_run_predicts_every_instance_as_estimate_does(run_dir):
    """A what-if on a saved run sees the whole catalog, not only what the run measured."""
    out, _ = run_dir
    r = planner("plan", out, "--json", "--region", "us-east-1")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    predicted = [o for o in doc["options"] if o["source"] == "predicted"]
    assert len(predicted) > 30 and any(o["device"] == "cuda" for o in predicted)
    assert next(o for o in doc["options"] if o["target"] == "local")["source"] == "measured"
    assert doc["answers"]["rent"]["target"].startswith("aws:") and doc["references"][
        "rent"
    ].startswith("aws:")
    deadline = json.loads(planner("plan", out, "--json", "--deadline", "1h").out)
    assert (
        deadline["recommendation"]["verdict"] != "deadline_missed"
    )  # rented instances meet it too
    text = planner("plan", out, "--region", "us-east-1", "--explain")
    assert "Predicted rows come from the device model" in text.out
    # it ran nothing, and it says the plan it printed is now the run's plan.json (its options the next plan's)
    assert "this plan saved as its plan.json" in " ".join(text.err.split())
    assert json.loads((out / "plan.json").read_text())["plan_options"]["region"] == "us-east-1"
    # a tiny MLP: training here wins clearly, so no paid benchmark is suggested (issue 27)
    assert (
        doc["recommendation"]["answer"] == "here"
        and doc["recommendation"]["choice_comparison"]["verdict"] == "clear"
    )
    assert "No paid benchmark needed: training here wins clearly" in text.out
    assert "A paid benchmark would settle" not in text.out and "--targets" not in text.out


def test_auto_benchmarks_nothing_when_training_here_wins_clearly_and_needs_no_aws(tmp_path):
    """As estimate says and the TUI picks (issue 27): a paid benchmark cannot change a clear win here."""
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    r = planner(
        "run",
        spec,
        "--targets",
        "auto",
        "--seconds",
        "1",
        "--out",
        tmp_path / "j",
        "--json",
        env=NO_AWS,
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert {o["target"] for o in doc["options"] if o["source"] == "measured"} == {"local"}
    assert doc["auto"] and all(not c["benchmark"] and c["here_wins"] for c in doc["auto"])
    assert all(
        c["reason"].startswith("not needed: training here wins clearly") for c in doc["auto"]
    )
    said = [line for line in r.err.splitlines() if line.startswith(("auto:", "  - ", "  + "))]
    assert said[-1].startswith(
        f"auto: benchmarking 0 of {len(doc['auto'])} candidate instances: training here wins "
        "clearly"
    )  # one line, not one per instance
    assert (
        json.loads((tmp_path / "j" / "run.json").read_text())["auto"][0]["here_wins"] is True
    )  # journaled


def test_a_dry_run_of_auto_measures_here_and_names_what_it_would_launch_and_launches_nothing(
    tmp_path,
):
    """As `sky launch` shows what it would start before it starts it: auto's choice needs this machine's
    measurement (free), so the dry run makes it, then lists the instances and their worst case."""
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    r = planner(
        "run",
        spec,
        "--targets",
        "auto",
        "--seconds",
        "1",
        "--local-price",
        "1000",
        "--time-value",
        "0",
        "--dry-run",
        "--json",
        env=UNREACHABLE,
        cwd=tmp_path,
    )  # credentials (never used: a call would fail), a dear machine here
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    chosen = [c["target"] for c in doc["auto_choices"] if c["benchmark"]]
    assert (
        chosen and [i["target"] for i in doc["launch"]["instances"]] == chosen
    )  # what it would launch is auto's pick
    assert doc["launch"]["worst_case_usd"] <= doc["launch"]["bench_budget_usd"]
    assert (
        "dry run: measuring here to choose what auto would benchmark (free: nothing is rented)"
        in r.err
    )
    assert f"would launch {len(chosen)} instance(s) in us-east-1" in r.err and all(
        f"  + {t}: " in r.err for t in chosen
    )
    assert r.err.rstrip().endswith("dry run: nothing launched") and not list(
        tmp_path.glob("planner-runs*")
    )
    r = planner(
        "run",
        spec,
        *("--targets", "auto", "--seconds", "1", "--local-price", "1000", "--time-value", "0"),
        "--dry-run",
        env=NO_AWS,
        cwd=tmp_path,
    )  # no credentials: what auto would choose, and its bill all the same (it said only the choice)
    assert r.code == 0, r.err
    assert "benchmark none of what auto chooses: no AWS credentials" in r.err
    assert "would launch" in r.err and "worst case in all $" in r.err


NO_AWS = {
    "AWS_ACCESS_KEY_ID": None,
    "AWS_SECRET_ACCESS_KEY": None,
    "AWS_SESSION_TOKEN": None,
    "AWS_PROFILE": None,
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials",
    "AWS_CONFIG_FILE": "/nonexistent/config",
    "AWS_EC2_METADATA_DISABLED": "true",
    "COLUMNS": "100",
}
UNREACHABLE = {
    **NO_AWS,
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
}  # credentials, and nothing listens there


def test_a_failed_gpu_target_keeps_its_device_and_its_whole_reason(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    r = planner(
        "run", spec, "--targets", "aws:g4dn.xlarge", "--out", tmp_path / "j", env=UNREACHABLE
    )
    assert r.code == 3, (
        r.err
    )  # incomplete: the plan predicts every instance, the one benchmarked failed
    assert "Traceback" not in r.err and "internal error" not in r.err
    row = next(
        line
        for line in r.out.splitlines()
        if line.lstrip().startswith("aws:g4dn.xlarge")
        or " aws:g4dn.xlarge " in line
        and "failed" in line
        and "Failed:" not in line
    )
    assert "T4" in row and " cpu " not in row  # the instance's GPU, not the bench's default device
    head = " ".join(r.out.split())
    assert "Failed: aws:g4dn.xlarge (T4): " in head and "reduce train.batch_size" not in head
    assert (
        "cannot reach AWS" in head and "to fix: AWS_ENDPOINT_URL is http://127.0.0.1:9" in head
    )  # whole, not cut
    doc = json.loads(
        planner("plan", tmp_path / "j", "--json", "--measured-only", env=UNREACHABLE).out
    )
    assert doc["recommendation"]["verdict"] == "failed" and doc["options"][0]["device"] == "cuda"


def test_plan_with_a_new_objective_and_local_price(run_dir):
    out, doc = run_dir
    r = planner("plan", out, "--objective", "fastest", "--local-price", "3.6", "--json")
    again = json.loads(r.out)
    assert again["objective"] == "fastest"
    cpu = next(o for o in again["options"] if o["device"] == "cpu")
    assert cpu["price_per_hour"] == 3.6
    assert cpu["cost_usd"] == pytest.approx(3.6 * cpu["train_seconds"] / 3600)


def test_plan_table_and_recommendation_for_people(run_dir):
    out, _ = run_dir
    r = planner("plan", out, "--deadline", "1h")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert (
        "cheapest within 1 h" in lines[0]  # as the user gave it (--deadline 1h), not "60.0 min"
        and lines[1].startswith(("Train here: ", "Rent aws:"))
        and "local" in r.out
    )
    assert (
        "Recommendation: " in planner("plan", out, "--deadline", "1h", "--explain").out
    )  # the reasoning, on demand


def test_plan_of_a_directory_that_is_not_a_run_exits_2(tmp_path):
    r = planner("plan", tmp_path)
    assert r.code == 2 and "not a run directory" in r.err


def test_unknown_instance_type_is_refused_before_anything_runs(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    r = planner("run", spec, "--targets", "local,aws:g5.xlarg", "--out", tmp_path / "j")
    assert r.code == 2 and 'did you mean "g5.xlarge"' in r.err
    assert not (tmp_path / "j").exists()


def test_bad_deadline_is_a_usage_error(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    r = planner("run", spec, "--deadline", "soon")
    assert r.code == 2 and "4h" in r.err


def test_validate_compares_prediction_with_a_real_run(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    r = planner("validate", spec, "--target", "local", "--epochs", "20", "--seconds", "1", "--json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["steps"] == 8 * 20
    assert data["actual_seconds"] > 0 and data["predicted_seconds"] > 0
    assert data["error_percent"] == pytest.approx(
        100 * (data["predicted_seconds"] - data["actual_seconds"]) / data["actual_seconds"]
    )
    # the second bench after the run says whether the machine held its speed
    drift = (
        100
        * (data["recheck_step_seconds"] - data["predicted_step_seconds"])
        / data["predicted_step_seconds"]
    )
    assert data["machine_drift_percent"] == pytest.approx(drift)
    spread = data["actual_window_spread_percent"]
    assert spread >= 0
    assert data["machine_steady"] == (abs(drift) <= 5.0 and spread <= 15.0)
    assert 0 < data["actual_one_time_seconds"] < data["actual_seconds"]

    r = planner("validate", spec, "--epochs", "2", "--seconds", "1", "--no-recheck")
    assert r.code == 0, r.err
    assert "predicted" in r.out and "actual" in r.out and "machine" not in r.out


def test_estimate_predicts_every_catalog_instance_in_the_region(tmp_path):
    from pricing.catalog import filter_instances, load_snapshot

    r = planner(
        "estimate",
        EXAMPLES_DIR / "surface-mlp.yaml",
        "--region",
        "us-east-1",
        "--seconds",
        "1",
        "--json",
        env={"PLANNER_CACHE_DIR": str(tmp_path)},
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    predicted = [o for o in doc["options"] if o["source"] == "predicted"]
    catalog = filter_instances(load_snapshot(), region="us-east-1")
    assert {o["target"] for o in predicted} == {f"aws:{t}" for t in catalog["instance_type"]}
    for o in predicted:
        assert o["train_seconds_low"] <= o["train_seconds"] <= o["train_seconds_high"], o["target"]
    local = next(o for o in doc["options"] if o["target"] == "local")
    assert local["source"] == "measured"
    assert doc["benchmark"] and doc["skipped"]
    assert len(doc["benchmark"]) < len(predicted)
    assert doc["cloud_recommendation"]["target"].startswith("aws:")


def test_window_spread_is_p10_to_p90_over_the_median():
    from planner.service.script_checks import window_spread_percent

    windows = [1.0] * 18 + [0.5, 2.0]  # one fast and one slow window: outside p10-p90 of 20
    assert window_spread_percent(windows) == pytest.approx(0.0)
    assert window_spread_percent([1.4, 1.0, 1.2, 1.1, 1.3]) == pytest.approx(
        100 * (1.36 - 1.04) / 1.2
    )  # interpolated
    assert window_spread_percent([1.0, 2.0]) is None


def test_threads_are_the_users_on_every_measuring_command(tmp_path):
    """Issue 40: --threads on run and estimate as on bench (the measurement's threads, journaled); a script is told
    to set OMP_NUM_THREADS instead, before anything runs."""
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    r = planner(
        "run",
        spec,
        "--targets",
        "local",
        "--threads",
        "1",
        "--seconds",
        "1",
        "--out",
        tmp_path / "j",
        "--json",
    )
    assert r.code == 0, r.err
    results = [json.loads(p.read_text()) for p in (tmp_path / "j" / "results").glob("*.json")]
    assert results and all(res.get("threads") == 1 for res in results)
    script = planner("estimate", EXAMPLES_DIR / "scripts" / "convnet.py", "--threads", "2")
    assert script.code == 2 and "OMP_NUM_THREADS=2" in script.err and "Traceback" not in script.err


@pytest.mark.parametrize(
    ("deadline", "tag"),
    [
        ("1s", "misses the 1 s deadline; no option is sure to meet it"),  # nothing can
        (
            "60s",
            "may miss the 1 min deadline (up to 65.0 s)",
        ),  # its point meets it, its interval not
        ("70s", None),  # met for sure
    ],
)
def test_a_deadline_answer_says_whether_it_is_missed_or_at_risk_and_no_gpu_sentence_contradicts_its_numbers(
    tmp_path, deadline, tag
):
    """From a new user's trial: under --deadline the headline said 'the deadline is not met for sure' both when it was
    certainly missed and when its point met it, 'The T4 pays off: 1.05x ..., break-even 2.97x', and a paid benchmark
    that could not change the answer was suggested."""
    import re
    import shutil

    run = tmp_path / "run"
    shutil.copytree(ROOT / "tests/tui/fixtures/run-surface-mlp", run)  # here 54.6 s (44.2-65.0 s)
    r = planner("plan", run, "--deadline", deadline)
    assert r.code == 0, r.err
    head = r.out.splitlines()[1]
    assert head.startswith("Train here: 54.6 s (44.2-65.0 s), $0")
    assert (tag in head) if tag else head.endswith("$0.")
    for line in r.out.splitlines()[2:5]:
        pays = re.search(r"pays off: ([\d.]+)x .*break-even ([\d.]+)x", line)
        assert pays is None or float(pays[1]) >= float(pays[2]), line
    explained = planner("plan", run, "--deadline", deadline, "--explain").out
    assert (
        "No paid benchmark needed" in explained and "A paid benchmark would settle" not in explained
    )


def test_explain_says_the_short_answer_first_then_the_table_and_the_reasoning(tmp_path):
    """From a new user's trial: --explain began with the table and said the answer 20 lines down."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(ROOT / "tests/tui/fixtures/run-surface-mlp", run)
    lines = planner("plan", run, "--explain").out.splitlines()
    answer = next(i for i, line in enumerate(lines) if line.startswith("Train here: 54.6 s"))
    table = next(i for i, line in enumerate(lines) if "training time" in line and "target" in line)
    reasoning = next(i for i, line in enumerate(lines) if line.startswith("Recommendation: local"))
    assert answer <= 3 and answer < table < reasoning
    assert sum(line.startswith("surface-mlp: 2,000 steps") for line in lines) == 1  # one title
