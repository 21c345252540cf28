"""A script's run measured without a length keeps its measurement (journaled before it is planned), and
`planner plan RUN_DIR` answers per 1,000 steps; `--total-steps N | --epochs N` plans it without measuring again: the first length given is
kept as the run's, a later one is a what-if. Fixture: tests/cli/fixtures/run-reinforce-no-length (the RL
agent measured here with no --total-steps: no DataLoader, so no epochs either)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES, ROOT

NO_LENGTH = ROOT / "tests/cli/fixtures/run-reinforce-no-length"


@pytest.fixture()
def run_dir(tmp_path):
    run = shutil.copytree(NO_LENGTH, tmp_path / "run")
    job = json.loads((run / "script.json").read_text())
    (run / "script.json").write_text(
        json.dumps({**job, "path": str(EXAMPLES / "scripts" / "reinforce.py")})
    )
    return run


def length_of(run) -> tuple:
    job = json.loads((run / "script.json").read_text())
    return job["total_steps"], job["epochs"]


def test_a_run_without_a_length_answers_per_1000_steps_then_keeps_the_first_length_given(run_dir):
    r = planner("plan", run_dir, "--json")  # issue 39: an answer without the length, not a refusal
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["workload"]["total_steps"] == 1000
    said = [w["text"] for w in doc["warnings"]]
    assert any("planned for a run of 1,000 steps" in t and "--total-steps N" in t for t in said), (
        said
    )
    assert length_of(run_dir) == (None, None)  # the answer per 1,000 steps is not the run's length
    r = planner(
        "plan", run_dir, "--deadline", "10m"
    )  # only the whole run meets or misses a deadline
    assert r.code == 2 and "met or missed by the whole run" in r.err and "Traceback" not in r.err
    r = planner(
        "plan", run_dir, "--epochs", "3"
    )  # no DataLoader epoch was seen: epochs cannot be counted in steps
    assert r.code == 2 and "iterated no DataLoader" in r.err and "Traceback" not in r.err
    assert length_of(run_dir) == (None, None)  # nothing kept from a length that cannot plan it
    r = planner("plan", run_dir, "--total-steps", "2000", "--json")
    assert r.code == 0, r.err
    assert "note: 2,000 steps kept as the run's length" in r.err  # said, not only done
    doc = json.loads(r.out)
    assert doc["workload"]["total_steps"] == 2000 and doc["workload"]["script_args"] == [
        "--episodes",
        "100000",
    ]
    assert length_of(run_dir) == (2000, None)  # the run's length now
    assert json.loads((run_dir / "plan.json").read_text())["workload"]["total_steps"] == 2000
    again = json.loads(planner("plan", run_dir, "--json").out)  # no flag: the kept length
    assert again["workload"]["total_steps"] == 2000
    r = planner("plan", run_dir, "--total-steps", "8000", "--json")  # a what-if on top
    assert (
        "a what-if: the run's own length is 2,000 steps; a plan without a length plans that"
        in r.err
    )
    longer = json.loads(r.out)
    assert longer["workload"]["total_steps"] == 8000 and length_of(run_dir) == (2000, None)
    # the what-if is not written over the run's own plan (a trial lost it to one)
    assert "its plan.json stays that plan" in r.err
    assert json.loads((run_dir / "plan.json").read_text())["workload"]["total_steps"] == 2000
    assert "planned for 8,000 steps, a what-if: the run's own length is 2,000 steps" in [
        n["text"] for n in longer["notes"]
    ]
    assert not any("what-if" in n for n in again["notes"])
    listed = planner("plan", run_dir, "--total-steps", "8000", "--verbose")
    said = listed.out + listed.err  # the notes name the what-if once (--verbose said it twice)
    assert said.count("a what-if: the run's own length is 2,000 steps") == 1, said
    assert "a plan without a length plans the run's own, and its plan.json stays that plan" in said
    # the title's arguments are the run's own: the title says the plan is a what-if (a trial read them as its)
    assert "8,000 optimizer steps (a what-if: its run is 2,000 steps)" in listed.out.splitlines()[0]
    here = {
        d["workload"]["total_steps"]: next(o for o in d["options"] if o["target"] == "local")
        for d in (again, longer)
    }
    assert (
        here[8000]["train_seconds"]
        > 3 * here[2000]["train_seconds"] - here[2000]["one_time_seconds"] * 3
    )  # ~4x the steps
    r = planner("plan", run_dir, "--total-steps", "2000", "--epochs", "2")
    assert r.code == 2 and "give one length" in r.err


def test_a_length_for_a_specs_run_is_refused_by_name(tmp_path):
    run = shutil.copytree(ROOT / "tests/tui/fixtures/run-surface-mlp", tmp_path / "run")
    r = planner("plan", run, "--total-steps", "100")
    assert r.code == 2 and "re-plan a script's run" in r.err and "train.epochs" in r.err


def test_the_run_a_replan_suggests_sets_the_scripts_envs_again_and_names_its_secrets_without_their_values(
    run_dir,
):
    job = json.loads((run_dir / "script.json").read_text())
    (run_dir / "script.json").write_text(
        json.dumps({**job, "env": {"LR": "0.1"}, "secret_names": ["HF_TOKEN"]})
    )
    r = planner(
        "plan", run_dir, "--total-steps", "2000", "--local-price", "50"
    )  # here dear: renting is worth a benchmark
    assert r.code == 0, r.err
    said = " ".join(r.out.split())
    assert (
        "--total-steps 2000 --env LR=0.1 --secret HF_TOKEN --targets" in said
    )  # the secret's value: the user's own


def test_an_estimate_without_a_length_answers_per_1000_steps_and_names_where_the_answer_changes(
    tmp_path,
):
    """No --total-steps and no DataLoader epoch: instead of refusing after the measurement, the plan is of 1,000
    steps and names the run length at which the pick changes (there is one: a rented instance's boot is one-time
    work, so a short run stays here)."""
    (tmp_path / "train.py").write_text(
        "import torch\nmodel = torch.nn.Linear(256, 256)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for i in range(10**9):\n    model(torch.randn(256, 256)).square().mean().backward(); opt.step(); opt.zero_grad()\n"
    )
    r = planner("estimate", tmp_path / "train.py", "--seconds", "2", "--json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["workload"]["total_steps"] == 1000
    said = next(w["text"] for w in doc["warnings"] if "length was not given" in w["text"])
    assert "planned for a run of 1,000 steps" in said and "--total-steps N" in said
    assert (
        "the answer changes with the length: train here below ~" in said
        or "the same at every length" in said
    )


def test_a_script_run_without_a_length_answers_per_1000_steps_and_a_deadline_asks_for_it_first(
    tmp_path,
):
    """Issue 39: `planner run train.py` with no length measures, journals and answers per 1,000 steps with where the
    answer changes (it exited 2 after measuring); a deadline, which only the whole run can meet, asks for the length
    before anything is measured or journaled."""
    script = EXAMPLES / "scripts" / "reinforce.py"
    r = planner(
        "run", script, "--deadline", "10m", "--out", tmp_path / "d", "--", "--episodes", "5000"
    )
    assert r.code == 2 and "Traceback" not in r.err
    assert "--deadline: a deadline of 10.0 min is met or missed by the whole run" in r.err
    assert "give --total-steps N" in r.err and "Running" not in r.err  # said before measuring
    assert not (tmp_path / "d").exists()  # nothing journaled
    r = planner(
        "run",
        script,
        "--seconds",
        "2",
        "--out",
        tmp_path / "r",
        "--json",
        "--",
        "--episodes",
        "5000",
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["workload"]["total_steps"] == 1000
    said = [w["text"] for w in doc["warnings"]]
    assert any("planned for a run of 1,000 steps" in t for t in said), said
    assert (tmp_path / "r" / "plan.json").is_file() and length_of(tmp_path / "r") == (None, None)


def test_a_run_measured_whole_keeps_its_own_length_and_a_length_given_is_a_what_if(tmp_path):
    """A trial: `run convnet.py --seconds 3` finished while measured (64 steps, its whole run); `plan RUN
    --total-steps 200000` then said '200,000 steps kept as the run's length', and every later plan was of 200,000.
    Fixture: tests/cli/fixtures/run-convnet-finished (that run, journaled)."""
    run = shutil.copytree(ROOT / "tests/cli/fixtures/run-convnet-finished", tmp_path / "run")
    job = json.loads((run / "script.json").read_text())
    (run / "script.json").write_text(
        json.dumps({**job, "path": str(EXAMPLES / "scripts" / "convnet.py")})
    )
    r = planner("plan", run, "--total-steps", "200000", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["workload"]["total_steps"] == 200_000
    assert "a what-if: the run's own length is 64 steps" in r.err and "kept as" not in r.err
    assert length_of(run) == (None, None)  # nothing kept
    again = json.loads(planner("plan", run, "--json").out)
    assert again["workload"]["total_steps"] == 64  # its own again


def test_the_run_a_replan_suggests_runs_from_another_folder_with_its_arguments_quoted_and_its_purchase(
    run_dir, tmp_path
):
    """A trial: from another folder `planner plan RUN_DIR` suggested the script's relative path (no such file
    there); an argument with a space was split in two; a spot plan's command left --purchase spot out (and went
    over the bench budget on demand). The suggested command names the script from here, quotes each argument, and
    keeps the purchase."""
    job = json.loads((run_dir / "script.json").read_text())
    (run_dir / "script.json").write_text(
        json.dumps({**job, "args": [*job["args"], "--tag", "a b"]})
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = planner(
        "plan",
        run_dir,
        "--total-steps",
        "2000",
        "--local-price",
        "50",
        "--purchase",
        "spot",
        cwd=elsewhere,
    )
    assert r.code == 0, r.err
    said = " ".join(r.out.split())
    script = str(ROOT / "examples/scripts/reinforce.py")
    assert f"planner run {script} --total-steps 2000 --targets" in said, said
    assert "--purchase spot -- --episodes 100000 --tag 'a b'" in said, said


def test_planner_tui_refuses_what_a_saved_run_keeps_and_says_where_its_length_changes(run_dir):
    """A trial: `planner tui SCRIPT_RUN --total-steps N` said the flag was for a training script, not this run
    (which is one) and to leave it out for a spec."""
    r = planner("tui", run_dir, "--total-steps", "5000")
    assert r.code == 2, r.err
    assert (
        "is a saved run: it keeps what it was run with" in r.err and "planner plan RUN_DIR" in r.err
    )
    assert "for a spec" not in r.err
