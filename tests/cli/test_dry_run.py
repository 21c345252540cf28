"""`planner run --dry-run` shows what it would launch and launches nothing; on a terminal a launch asks
"Proceed? [y/N]" first (-y skips it); without a terminal it never waits for input."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

from tests.cli.helpers import planner
from tests.conftest import EXAMPLES, ROOT

NO_AWS = {
    "AWS_ACCESS_KEY_ID": None,
    "AWS_SECRET_ACCESS_KEY": None,
    "AWS_PROFILE": None,
    "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    "AWS_CONFIG_FILE": "/nonexistent",
    "AWS_EC2_METADATA_DISABLED": "true",
}
UNREACHABLE = {
    **NO_AWS,
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}  # credentials, no AWS


def test_dry_run_names_the_instances_the_guards_and_the_worst_case_and_launches_nothing(tmp_path):
    r = planner(
        "run",
        EXAMPLES / "surface-mlp.yaml",
        "--targets",
        "local,aws:g4dn.xlarge,aws:c7i.xlarge",
        "--dry-run",
        "--out",
        tmp_path / "run",
        env=NO_AWS,
    )  # no AWS reachable: nothing may be called
    assert r.code == 0, r.err
    assert "would launch 2 instance(s) in us-east-1, on-demand" in r.err
    assert (
        "aws:g4dn.xlarge  $0.526/h  worst case $0.27" in r.err
        and "of the --bench-budget $2.00" in r.err
    )
    assert "dead-man timer" in r.err and "dry run: nothing launched" in r.err
    assert not (tmp_path / "run").exists()  # not even a journal
    r = planner(
        "run",
        EXAMPLES / "scripts" / "convnet.py",
        "--targets",
        "aws:g4dn.xlarge",
        "--dry-run",
        env=NO_AWS,
    )
    assert r.code == 0 and "shipping 5 file(s)" in r.err  # what of the script's folder would ship
    r = planner(
        "run",
        EXAMPLES / "scripts" / "convnet.py",
        "--targets",
        "local,aws:g4dn.xlarge",
        "--dry-run",
        "--json",
        env=NO_AWS,
    )  # the same for a program, on stdout
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert (
        doc["dry_run"]
        and doc["targets"] == ["local", "aws:g4dn.xlarge"]
        and doc["launch"]["region"] == "us-east-1"
    )
    assert [i["target"] for i in doc["launch"]["instances"]] == ["aws:g4dn.xlarge"]
    assert doc["launch"]["worst_case_usd"] == doc["launch"]["instances"][0]["worst_case_usd"] > 0
    assert sorted(doc["ships"]["files"]) == [
        "user/convnet.py",
        "user/gpt.py",
        "user/lbfgs.py",
        "user/reinforce.py",
        "user/sky-convnet.yaml",
    ]
    assert doc["ships"]["total_bytes"] > 0
    assert doc["credentials_problem"].startswith(
        "no AWS credentials found; to fix: run `aws configure`"
    )
    assert (
        "a run would refuse these instances: no AWS credentials found" in r.err
    )  # said, not a refusal: it is a preview
    r = planner(
        "run",
        EXAMPLES / "surface-mlp.yaml",
        "--targets",
        "aws:p5.48xlarge",
        "--dry-run",
        env=NO_AWS,
    )
    assert r.code == 2 and "over --bench-budget $2.00" in r.err  # refused as the launch would be


def test_without_credentials_a_run_that_names_instances_is_refused_before_anything_runs(tmp_path):
    """As the AWS CLI does: the credentials boto3 would sign with are looked for first, without calling AWS; a run
    that could only measure here and fail every instance is bad input, before the local measurement."""
    for target in ("local,aws:g5.xlarge", "aws:g5.xlarge"):
        for spec in (EXAMPLES / "scripts" / "convnet.py", EXAMPLES / "surface-mlp.yaml"):
            r = planner(
                "run", spec, "--targets", target, "-y", "--out", tmp_path / "run", env=NO_AWS
            )
            assert r.code == 2 and "internal error" not in r.err and "Traceback" not in r.err
            assert (
                "--targets aws:g5.xlarge: no AWS credentials found" in r.err
                and "--targets local" in r.err
            )
            assert (
                "would launch" not in r.err and "running" not in r.err
            )  # before the preview and any measurement
            assert not (tmp_path / "run").exists()


def _on_a_terminal(answer: bytes, *args: str) -> tuple[int, str]:
    leader, follower = pty.openpty()
    env = {**os.environ, **{k: v for k, v in UNREACHABLE.items() if v is not None}}
    for k in [k for k, v in UNREACHABLE.items() if v is None]:
        env.pop(k, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner.cli", *args],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        text=True,
    )
    os.close(follower)
    os.write(leader, answer)
    _, err = proc.communicate(timeout=120)
    os.close(leader)
    return proc.returncode, err


def test_on_a_terminal_a_paid_launch_asks_first_and_no_means_nothing_launched(tmp_path):
    code, err = _on_a_terminal(
        b"n\n",
        "run",
        str(EXAMPLES / "surface-mlp.yaml"),
        "--targets",
        "aws:c7i.xlarge",
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 1 and "would launch 1 instance(s)" in err and "aborted: nothing launched" in err
    assert not (tmp_path / "run").exists()


def test_without_a_terminal_it_never_waits_for_input(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "planner.cli",
            "run",
            str(EXAMPLES / "surface-mlp.yaml"),
            "--targets",
            "aws:c7i.xlarge",
            "--out",
            str(tmp_path / "run"),
            "--poll-seconds",
            "0.1",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={
            **{k: v for k, v in os.environ.items() if k not in UNREACHABLE},
            **{k: v for k, v in UNREACHABLE.items() if v is not None},
        },
    )
    assert (
        "Proceed?" not in proc.stderr and "aws:c7i.xlarge: pending" in proc.stderr
    )  # it went on to the (unreachable) AWS


def test_yes_skips_the_question_on_a_terminal(tmp_path):
    code, err = _on_a_terminal(
        b"",
        "run",
        str(EXAMPLES / "surface-mlp.yaml"),
        "--targets",
        "aws:c7i.xlarge",
        "-y",
        "--out",
        str(tmp_path / "run"),
        "--poll-seconds",
        "0.1",
    )
    assert "Proceed?" not in err and "aws:c7i.xlarge: pending" in err
    assert (
        "would launch 1 instance(s)" in err
    )  # -y skips the question, not what it launches and may bill


def test_an_aws_profile_that_does_not_exist_is_bad_input_not_a_bug(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AWS_")},
        "AWS_PROFILE": "no-such-profile",
        "AWS_CONFIG_FILE": str(tmp_path / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials"),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "planner.cli",
            "run",
            str(EXAMPLES / "surface-mlp.yaml"),
            "--targets",
            "aws:c7i.xlarge",
            "-y",
            "--out",
            str(tmp_path / "run"),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 2 and "internal error" not in proc.stderr
    assert (
        "(no-such-profile) could not be found" in proc.stderr
        and "to fix: set AWS_PROFILE" in proc.stderr
    )


def test_a_scripts_refused_flags_are_refused_before_the_launch_is_said_or_a_dry_run_measures(
    tmp_path,
):
    """A training script given a spec's flag (--threads, --processes) is refused first, naming the flag and the
    fix: before the launch preview, the "Proceed?" question or a dry run's measurement (issue 41: the workload is
    opened, and its flags checked, before anything else)."""
    script = tmp_path / "train.py"
    script.write_text("print('never run')\n")
    for flag, value in (("--threads", "2"), ("--processes", "2")):
        r = planner(
            "run",
            script,
            "--targets",
            "auto",
            "--dry-run",
            "--total-steps",
            "100",
            flag,
            value,
            env=NO_AWS,
        )
        assert r.code == 2, r.err
        assert flag in r.err and "not for a training script" in r.err
        assert "auto: measures here first" not in r.err and "dry run" not in r.err


def test_a_scripts_fallback_next_without_this_machine_is_refused_alike_by_a_dry_run_and_a_run(
    tmp_path,
):
    """A script's --fallback next ranks the next-best instances by its measurement here: without local among the
    targets, a dry run refuses it as the run does (a new user's dry run promised the fallback, then the run refused
    it after saying it was running the script), before anything is said or measured."""
    script = tmp_path / "train.py"
    script.write_text("print('never run')\n")
    for dry in (["--dry-run"], ["-y"]):
        r = planner(
            "run",
            script,
            "--targets",
            "aws:g5.xlarge",
            "--fallback",
            "next",
            "--total-steps",
            "100",
            *dry,
            env=NO_AWS,
        )
        assert r.code == 2, r.err
        assert "--fallback next" in r.err and "add local to --targets" in r.err
        assert "would launch" not in r.err and "Running" not in r.err


def test_a_dry_run_with_fallback_next_names_each_types_next_best_in_order(tmp_path):
    """--fallback next's alternatives are listed before anything launches (the renting guide's 'Not yet'): each
    type's next-best of its kind in the plan ranked now, in the lines and in --json."""
    r = planner(
        "run",
        EXAMPLES / "small-cnn.yaml",
        "--targets",
        "local,aws:g5.xlarge",
        "--fallback",
        "next",
        "--dry-run",
        "--json",
        env=NO_AWS,
    )
    assert r.code == 0, r.err
    (line,) = [x for x in r.err.splitlines() if x.startswith("  aws:g5.xlarge: with no capacity")]
    nexts = json.loads(r.out)["launch"]["instances"][0]["fallback_next"]
    assert 1 <= len(nexts) <= 3 and "aws:g5.xlarge" not in nexts
    assert all(n.startswith(("aws:g", "aws:p")) for n in nexts)  # a GPU for a GPU
    assert ", ".join(nexts) in line and "within the budget and its vCPU quota" in line
