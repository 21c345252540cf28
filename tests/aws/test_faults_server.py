"""Issue 15's fault table, a test a row, against moto's server mode. `planner run` runs in a
subprocess; faults are injected at its AWS boundary (tests/aws/faults.py wraps botocore's
`_make_api_call` in that process), or are real signals and a real kill; a thread plays the
instances (tests/aws/helpers.py: the real user-data, with a stub bench that writes a result at once
where the bench itself is not the point). Each test asserts what is left running (nothing, or the
named instance with a reap command that works) and which results were kept.

    row                                               test
    one DescribeInstances / TerminateInstances error   test_a_describe_and_a_terminate_error_are_retried
    TerminateInstances keeps failing                  test_an_instance_no_terminate_reaches_is_named_with_its_reap_command
    second Ctrl-C while terminate is slow             test_a_second_ctrl_c_while_terminating_is_deferred
    SIGHUP                                            test_sighup_is_handled_like_sigterm_and_keeps_the_results
    SIGTERM to `planner tui` during a run             test_sigterm_to_the_tui_ends_its_run_through_the_same_cleanup
    a truncated result.json                           test_a_truncated_result_is_a_failed_result_with_the_instance_log
    no credentials / AWS out of reach                 test_without_aws_the_local_target_is_still_measured_and_planned
    bundle upload denied                              test_a_denied_bundle_upload_fails_the_aws_targets_not_the_run
    SIGKILL of the planner                            test_server_mode.py::test_sigkill_the_local_bench_dies_with_...
    a custom model on the instance                    test_a_custom_model_ships_in_the_bundle_and_runs_on_the_instance
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest

from tests.aws.helpers import (
    FAKE_ENV,
    FAKE_RESULT,
    Player,
    ec2,
    free_port,
    journaled,
    live_instances,
    play_instance,
    played_run,
    result_stub,
    run_id,
    start_planner,
    wait_for_instances,
    x86_ami,
)
from tests.conftest import ROOT
from tests.tui.helpers import started

QUICK = ("--json", "--max-bench-minutes", "3")


def no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


def wait_until(condition, timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.1)


def measured(doc: dict) -> set[str]:
    return {
        o["target"] for o in doc["options"] if o["source"] == "measured" and o.get("step_seconds")
    }


def test_a_describe_and_a_terminate_error_are_retried(endpoint, env, tmp_path):
    faults = [
        {
            "op": "DescribeInstances",
            "code": "RequestLimitExceeded",
            "times": 1,
            "after": 1,
        },  # after the quota check's
        {"op": "TerminateInstances", "code": "InternalError", "times": 1},
    ]
    proc, stdout, stderr, out, _ = played_run(
        endpoint,
        env,
        tmp_path,
        "aws:c7i.xlarge,aws:g4dn.xlarge",
        *QUICK,
        faults=faults,
        python_stub=result_stub(FAKE_RESULT),
    )
    assert proc.returncode == 0, stderr
    no_traceback(stderr)
    assert "RequestLimitExceeded" in stderr and "trying again in" in stderr  # told, then retried
    assert "could not terminate it" in stderr
    doc = json.loads(stdout)
    assert (
        measured(doc) == {"aws:c7i.xlarge", "aws:g4dn.xlarge"} and doc["recommendation"]["target"]
    )
    assert doc["unterminated_instances"] == [] and doc["failed_targets"] == []
    assert set(journaled(out)) == {"aws-c7i.xlarge", "aws-g4dn.xlarge"}
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_an_instance_no_terminate_reaches_is_named_with_its_reap_command(endpoint, env, tmp_path):
    # TerminateInstances always fails, and the played instance does not halt by itself
    proc, stdout, stderr, out, _ = played_run(
        endpoint,
        env,
        tmp_path,
        "aws:c7i.xlarge",
        *QUICK,
        halts=False,
        faults=[{"op": "TerminateInstances", "code": "UnauthorizedOperation"}],
        python_stub=result_stub(FAKE_RESULT),
    )
    assert proc.returncode == 3, stderr  # incomplete: something is still billing
    no_traceback(stderr)
    doc = json.loads(stdout)
    assert (
        measured(doc) == {"aws:c7i.xlarge"} and journaled(out)["aws-c7i.xlarge"]["status"] == "ok"
    )  # kept
    rid = run_id(out)
    (instance,) = live_instances(ec2(endpoint), rid)
    (left,) = doc["unterminated_instances"]
    tags = {t["Key"]: t["Value"] for t in instance["Tags"]}
    assert left["instance_id"] == instance["InstanceId"] and left["region"] == "us-east-1"
    assert left["expires_at"] == tags["planner:expires-at"]
    assert left["reap_command"] == f"planner reap --region us-east-1 --run-id {rid}"
    assert f"NOT TERMINATED: {instance['InstanceId']}" in stderr and left["reap_command"] in stderr
    reap = subprocess.run(
        [sys.executable, "-m", "planner.cli", *left["reap_command"].split()[1:]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )  # the command it names does what it says
    assert reap.returncode == 0, reap.stderr
    assert live_instances(ec2(endpoint), rid) == []


def test_a_second_ctrl_c_while_terminating_is_deferred(endpoint, env, tmp_path):
    log = tmp_path / "aws-calls.log"
    proc, out = start_planner(
        env,
        tmp_path,
        "aws:c7i.xlarge",
        "--max-bench-minutes",
        "3",
        fault_log=log,
        faults=[{"op": "TerminateInstances", "delay": 3}],
    )
    wait_for_instances(endpoint, out, 1)
    proc.send_signal(signal.SIGINT)
    wait_until(
        lambda: log.exists() and "TerminateInstances" in log.read_text(),
        what="the planner began terminating",
    )
    proc.send_signal(signal.SIGINT)  # while TerminateInstances is under way
    _stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    no_traceback(stderr)
    assert "SIGINT deferred: terminating 1 instance, please wait" in stderr
    # stopped before any result: said so, and no pointer to a plan that cannot be made
    assert (
        "stopped before any result, so there is nothing to plan yet" in stderr
        and "planner plan" not in stderr
    )
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_sighup_is_handled_like_sigterm_and_keeps_the_results(endpoint, env, tmp_path):
    player = Player(
        endpoint, tmp_path / "instances", python_stub=result_stub(FAKE_RESULT), only={"c7i.xlarge"}
    )
    player.start()
    try:
        proc, out = start_planner(
            env, tmp_path, "aws:c7i.xlarge,aws:g4dn.xlarge", "--max-bench-minutes", "3"
        )
        wait_until(
            lambda: "aws-c7i.xlarge" in journaled(out) if (out / "results").exists() else False,
            what="the played instance's result was journaled",
        )
        proc.send_signal(signal.SIGHUP)  # the terminal closed; the g4dn instance is still running
        _stdout, stderr = proc.communicate(timeout=60)
    finally:
        player.stop.set()
    assert proc.returncode == 128 + signal.SIGHUP
    no_traceback(stderr)
    assert f"interrupted (SIGHUP): the results measured so far are in {out}" in stderr
    assert (
        set(journaled(out)) == {"aws-c7i.xlarge"}
        and journaled(out)["aws-c7i.xlarge"]["status"] == "ok"
    )
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_sigterm_to_the_tui_ends_its_run_through_the_same_cleanup(endpoint, tmp_path, monkeypatch):
    from planner.tui.app import PlannerApp
    from planner.tui.dialogs import ConfirmLaunch
    from tests.aws.helpers import SPEC

    for key, value in {
        **FAKE_ENV,
        "AWS_ENDPOINT_URL": endpoint,
        "PLANNER_CACHE_DIR": str(tmp_path / "cache"),
    }.items():
        monkeypatch.setenv(key, value)
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    client = ec2(endpoint)
    app = PlannerApp(str(spec), runs_dir=tmp_path / "run", bench_seconds=1, ami=x86_ami(client))

    async def until(condition, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline
            await asyncio.sleep(0.2)

    async def scenario() -> None:
        async with started(app, (120, 40)) as pilot:
            await until(lambda: app.spec is not None)
            app.targets = ["aws:c7i.xlarge"]
            await pilot.press("r")  # a run that rents asks first
            await until(lambda: isinstance(app.screen, ConfirmLaunch))
            await pilot.press("y")
            await until(lambda: (tmp_path / "run" / "run.json").exists())
            rid = json.loads((tmp_path / "run" / "run.json").read_text())["run_id"]
            await until(
                lambda: any(i["State"]["Name"] == "running" for i in live_instances(client, rid))
            )
            os.kill(
                os.getpid(), signal.SIGTERM
            )  # the run works in a thread: only the app can route this
            await until(lambda: app.return_code is not None)
            assert app.return_code == 128 + signal.SIGTERM
            assert live_instances(client, rid) == []

    asyncio.run(scenario())


def test_a_truncated_result_is_a_failed_result_with_the_instance_log(endpoint, env, tmp_path):
    proc, stdout, stderr, out, _ = played_run(
        endpoint,
        env,
        tmp_path,
        "aws:c7i.xlarge",
        *QUICK,
        python_stub=result_stub('{"status": "ok", "device": "cp'),
    )
    assert (
        proc.returncode == 3
    )  # incomplete: the target failed; the plan predicts every instance, and no crash
    no_traceback(stderr)
    result = journaled(out)["aws-c7i.xlarge"]
    assert result["status"] == "error" and "unreadable: not JSON" in result["message"]
    assert "bootstrap started on" in result["message"]  # the log, from its first line
    assert "stub bench: writing its result" in result["message"]
    assert json.loads(stdout)["failed_targets"] == ["aws-c7i.xlarge"]
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_without_credentials_instances_named_are_refused_before_anything_runs(
    endpoint, env, tmp_path
):
    """Found without a call to AWS: refused as bad input (exit 2), nothing measured, journaled or launched."""
    env = {
        k: v
        for k, v in env.items()
        if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE")
    }
    env.update(
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "absent"),
        AWS_CONFIG_FILE=str(tmp_path / "absent"),
    )
    proc, out = start_planner(env, tmp_path, "local,aws:c6i.xlarge", *QUICK, ami="ami-12345678")
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 2, stderr
    no_traceback(stderr)
    assert (
        "--targets aws:c6i.xlarge: no AWS credentials found" in stderr
        and "to fix: run `aws configure`" in stderr
    )
    assert (
        not Path(out).exists()
        and "no AWS credentials found" in json.loads(stdout)["error"]["message"]
    )  # --json


@pytest.mark.parametrize("case", ["no credentials", "out of reach"])
def test_without_aws_auto_still_measures_here_and_plans(endpoint, env, tmp_path, case):
    """`auto`: AWS is optional. Without credentials (said before anything is measured) the instances it chose are
    not benchmarked and the plan is of every instance, predicted, as estimate gives it (a plan of `local` alone
    would call it "the only option"); out of reach, they fail as targets; here is measured either way."""
    if case == "no credentials":
        env = {
            k: v
            for k, v in env.items()
            if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE")
        }
        env.update(
            AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "absent"),
            AWS_CONFIG_FILE=str(tmp_path / "absent"),
        )
    else:
        env = {
            **env,
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}",
        }  # nothing listens there
    proc, out = start_planner(
        env, tmp_path, "auto", *QUICK, "--local-price", "1000", ami="ami-12345678"
    )
    stdout, stderr = proc.communicate(
        timeout=180
    )  # --local-price: renting may win, auto has instances to try
    no_traceback(stderr)
    doc = json.loads(stdout)
    assert measured(doc) == {"local"}
    assert doc["auto"] and all(c["reason"] for c in doc["auto"]) and "auto: benchmarking" in stderr
    chosen = [c["target"] for c in doc["auto"] if c["benchmark"]]
    assert chosen  # the premise: it chose some to benchmark
    failed = [r for r in journaled(out).values() if r["status"] == "error"]
    if case == "no credentials":
        assert proc.returncode == 0 and not failed  # nothing was tried
        said = [
            w["text"]
            for w in doc["warnings"]
            if "benchmarked none: no AWS credentials" in w["text"]
        ]
        assert len(said) == 1 and all(t[4:] in said[0] for t in chosen)
        early = "auto: no AWS credentials found; to fix: run `aws configure`"
        assert stderr.count(early) == 1 and stderr.index(early) < stderr.index(
            "auto: benchmarking"
        )  # before measuring
        assert {o["source"] for o in doc["options"]} == {
            "measured",
            "predicted",
        }  # every instance, as estimate plans it
        assert (
            doc["recommendation"]["target"] == doc["options"][0]["target"]
        )  # the plan's own rank 1, not "only option"
    else:
        assert proc.returncode == 3, (
            stderr
        )  # incomplete: planned from what was measured and predicted
        assert failed and all("cannot reach AWS" in r["message"] for r in failed)
        assert (
            doc["recommendation"]["target"] == doc["options"][0]["target"]
        )  # the plan's rank 1 (here at $1000/h: rent)
    assert doc["unterminated_instances"] == [] and live_instances(ec2(endpoint), run_id(out)) == []


def test_a_denied_bundle_upload_fails_the_aws_targets_not_the_run(endpoint, env, tmp_path):
    log = tmp_path / "aws-calls.log"
    proc, out = start_planner(
        env,
        tmp_path,
        "local,aws:c7i.xlarge",
        *QUICK,
        fault_log=log,
        faults=[{"op": "PutObject", "code": "AccessDenied"}],
    )
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 3, stderr
    no_traceback(stderr)
    doc = json.loads(stdout)
    assert measured(doc) == {"local"} and set(journaled(out)) == {"local-cpu", "aws-c7i.xlarge"}
    message = journaled(out)["aws-c7i.xlarge"]["message"]
    assert (
        "uploading the bench bundle to s3://" in message
        and "access denied (AccessDenied)" in message
    )
    assert "grant s3:PutObject" in message
    assert "RunInstances" not in log.read_text()  # nothing was launched
    assert live_instances(ec2(endpoint), run_id(out)) == []


CUSTOM_MODEL = """import torch.nn as nn


def build(input_shape, outputs):
    return nn.Sequential(nn.Linear(input_shape[0], 8), nn.ReLU(), nn.Linear(8, outputs))
"""
CUSTOM_SPEC = (
    "name: e2e-custom\nmodel: {kind: custom, factory: 'tinynet:build', input_shape: [4], outputs: 1, "
    "path: models}\ndata: {samples: 1024}\ntrain: {batch_size: 128, epochs: 20}\n"
)


def test_a_custom_model_ships_in_the_bundle_and_runs_on_the_instance(endpoint, env, tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "tinynet.py").write_text(CUSTOM_MODEL)
    proc, out = start_planner(env, tmp_path, "aws:c7i.xlarge", *QUICK, spec=CUSTOM_SPEC)
    (instance,) = wait_for_instances(endpoint, out, 1)
    s3 = boto3.client(
        "s3",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    bucket = "cloud-planner-123456789012-us-east-1"
    job = json.loads(
        s3.get_object(Bucket=bucket, Key=f"runs/{run_id(out)}/aws-c7i.xlarge/job.json")[
            "Body"
        ].read()
    )
    assert job["spec"]["model"]["path"] == "user"  # the bundle's folder, not this machine's path
    models.rename(tmp_path / "moved")  # the instance cannot fall back on this machine's copy
    played = play_instance(
        endpoint, instance["InstanceId"], tmp_path / "instance"
    )  # the real bench
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr + played.stderr
    doc = json.loads(stdout)
    assert measured(doc) == {"aws:c7i.xlarge"}
    assert journaled(out)["aws-c7i.xlarge"]["status"] == "ok"
    assert live_instances(ec2(endpoint), run_id(out)) == []
