"""`planner COMMAND task.yaml`: a SkyPilot task planned as the training script it runs (examples/scripts/
sky-convnet.yaml): its workdir, its python command with its envs put in, said on stderr with what of the task is
not used; what cannot be planned refused by field. None of these measure: `check` parses, `run --dry-run` lists."""

from __future__ import annotations

import json

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES, ROOT

SCRIPTS = EXAMPLES / "scripts"


def test_a_skypilot_task_is_the_script_it_runs_in_its_workdir():
    r = planner("check", "sky-convnet.yaml", cwd=SCRIPTS)
    assert r.code == 0, r.err
    assert (
        "sky-convnet.yaml: SkyPilot task convnet: runs `python convnet.py --epochs 20` in its workdir ."
        in r.err
    )
    assert (
        "resources (accelerators: {T4: 1, L4: 1, A10G: 1}) do not narrow the plan" in r.err
    )  # said, not dropped
    assert (
        "ok: convnet.py parses as Python (checked, not run)" in r.out
        and "planner bench sky-convnet.yaml" in r.out
    )
    checked = json.loads(
        planner("check", "sky-convnet.yaml", "--json", cwd=SCRIPTS).out
    )  # what was read, for a program
    assert (
        checked["script"] == "convnet.py"
        and checked["args"] == ["--epochs", "20"]
        and checked["parses"]
    )
    task = checked["skypilot_task"]
    assert (
        task["source"] == "sky-convnet.yaml"
        and task["workdir"] == "."
        and task["name"] == "convnet"
        and task["notes"]
    )
    r = planner(
        "run",
        "sky-convnet.yaml",
        "--targets",
        "local,aws:g4dn.xlarge",
        "--dry-run",
        "--json",
        cwd=SCRIPTS,
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert (
        doc["targets"] == ["local", "aws:g4dn.xlarge"]
        and "user/convnet.py" in doc["ships"]["files"]
    )


def test_a_relative_workdir_is_where_the_planner_runs_as_for_sky_launch():
    r = planner(
        "estimate", SCRIPTS / "sky-convnet.yaml", cwd=ROOT
    )  # refused before anything is measured
    assert r.code == 2 and "run: convnet.py: no such file in the workdir (.)" in r.err
    assert "run it from examples/scripts" in r.err.replace(str(ROOT) + "/", "")


def test_what_a_task_cannot_give_is_refused_by_field(tmp_path):
    (tmp_path / "train.py").write_text("print('hi')\n")
    task = tmp_path / "task.yaml"
    task.write_text("workdir: .\nrun: |\n  torchrun --nproc_per_node 2 train.py\n")
    r = planner("estimate", "task.yaml", cwd=tmp_path)
    assert (
        r.code == 2 and "starts several processes (torchrun)" in r.err and "Traceback" not in r.err
    )
    task.write_text("workdir: .\nrun: python train.py\n")
    r = planner("bench", "task.yaml", "--workdir", ".", cwd=tmp_path)
    assert r.code == 2 and "--workdir .: task.yaml has its own (workdir: .)" in r.err
    task.write_text("workdir: nowhere\nrun: python train.py\n")
    r = planner("validate", "task.yaml", cwd=tmp_path)
    assert r.code == 2 and "workdir: nowhere: no such folder here" in r.err
    (tmp_path / "spec.yaml").write_text(
        "name: x\nrun: [1]\nmodel: {kind: mlp}\n"
    )  # a spec (a model): a spec's errors
    r = planner("check", tmp_path / "spec.yaml")
    assert r.code == 2 and "SkyPilot" not in r.err


def test_env_and_secret_flags_set_the_scripts_environment_over_the_tasks_and_a_secret_is_never_printed():
    r = planner(
        "run",
        "sky-convnet.yaml",
        "--env",
        "EPOCHS=3",
        "--secret",
        "HF_TOKEN=hf_never_printed",
        "--targets",
        "local",
        "--dry-run",
        cwd=SCRIPTS,
    )
    assert r.code == 0, r.err
    assert (
        "runs `python convnet.py --epochs 3`" in r.err
    )  # --env over the task's envs, as sky launch --env
    assert (
        "the script's environment: EPOCHS set here and on instances; HF_TOKEN set here only"
        in r.err
    )
    assert "hf_never_printed" not in r.err + r.out
    checked = planner(
        "check", "sky-convnet.yaml", "--json", "--secret", "HF_TOKEN=hf_never_printed", cwd=SCRIPTS
    )
    doc = json.loads(checked.out)
    assert (
        doc["env"] == {"EPOCHS": "20"}
        and doc["secrets"] == ["HF_TOKEN"]
        and doc["skypilot_task"]["secrets"] == ["HF_TOKEN"]
    )
    assert "hf_never_printed" not in checked.out + checked.err
    r = planner("estimate", SCRIPTS / "convnet.py", "--env", "1LR=0.1")
    assert r.code == 2 and "--env 1LR=0.1: 1LR is not an environment variable's name" in r.err
    r = planner(
        "estimate",
        SCRIPTS / "convnet.py",
        "--secret",
        "PLANNER_TEST_NEVER_SET",
        env={"PLANNER_TEST_NEVER_SET": None},
    )
    assert r.code == 2 and "--secret PLANNER_TEST_NEVER_SET: not set in your environment" in r.err
    # a spec takes no secret at all: that is said first, not what the secret names (a trial)
    for flag in ("--secret", "--env"):
        r = planner(
            "estimate",
            EXAMPLES / "surface-mlp.yaml",
            flag,
            "PLANNER_TEST_NEVER_SET",
            env={"PLANNER_TEST_NEVER_SET": None},
        )
        assert r.code == 2 and f"{flag}: is for a training script (.py) or a SkyPilot task" in r.err
        assert "not set in your environment" not in r.err
        # the hint is of the flag given (it spoke of run lengths and --workdir, which check does not take)
        assert "its job takes no environment" in r.err and f"train.py {flag} NAME" in r.err
    # a task takes one: what it names is checked
    r = planner(
        "check",
        "sky-convnet.yaml",
        "--secret",
        "PLANNER_TEST_NEVER_SET",
        cwd=SCRIPTS,
        env={"PLANNER_TEST_NEVER_SET": None},
    )
    assert r.code == 2 and "--secret PLANNER_TEST_NEVER_SET: not set in your environment" in r.err
    r = planner(
        "estimate", SCRIPTS / "convnet.py", "--secret", "T=tok_12345", "--", "--token", "tok_12345"
    )
    assert (
        r.code == 2 and "one holds the value of the secret T" in r.err and "tok_12345" not in r.err
    )  # before it runs
    r = planner("estimate", EXAMPLES / "surface-mlp.yaml", "--env", "LR=0.1")
    assert r.code == 2 and "--env: is for a training script (.py)" in r.err


def test_a_tasks_region_and_spot_price_the_run_unless_the_command_line_says_otherwise(tmp_path):
    (tmp_path / "train.py").write_text("print('hi')\n")
    (tmp_path / "task.yaml").write_text(
        "workdir: .\nresources:\n  infra: aws/us-west-2\n  use_spot: true\n"
        "  accelerators: L4:1\nrun: python train.py\n"
    )
    r = planner(
        "run", "task.yaml", "--targets", "local,aws:g6.xlarge", "--dry-run", "--json", cwd=tmp_path
    )
    assert r.code == 0, r.err
    launch = json.loads(r.out)["launch"]
    assert (launch["region"], launch["purchase"]) == (
        "us-west-2",
        "spot",
    )  # as sky launch would buy it
    assert (
        "priced in us-west-2, the task's region (--region overrides it)" in r.err
        and "priced spot" in r.err
    )
    r = planner(
        "run",
        "task.yaml",
        "--targets",
        "local,aws:g6.xlarge",
        "--dry-run",
        "--json",
        "--region",
        "us-east-1",
        "--purchase=on-demand",
        cwd=tmp_path,
    )
    launch = json.loads(r.out)["launch"]
    assert (launch["region"], launch["purchase"]) == (
        "us-east-1",
        "on-demand",
    ) and "priced in" not in r.err
    (tmp_path / "task.yaml").write_text(
        "workdir: .\nresources:\n  region: mars-1\nrun: python train.py\n"
    )
    r = planner("run", "task.yaml", "--dry-run", cwd=tmp_path)
    assert r.code == 2 and "task.yaml: resources.region:" in r.err and "Traceback" not in r.err
