"""End to end against moto's server mode: `planner run` in a subprocess launches instances, a test
thread plays each instance by running its real user-data (real curl, real bench on CPU, a shutdown
stub that terminates the instance through moto), and afterwards nothing is left running. Also: no
one plays (collection time-out), a crashing bench, SIGINT / SIGTERM mid-run, and SIGKILL + reap.
(The fault table of issue 15 is tests/aws/test_faults_server.py; that the local bench dies with a
SIGKILLed planner is tests/runner/test_session_lifeline.py.)"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from tests.aws.helpers import (
    ec2,
    live_instances,
    played_run,
    run_id,
    start_planner,
    wait_for_instances,
)
from tests.conftest import ROOT


def test_planner_collects_results_from_played_instances_and_leaves_nothing_running(
    endpoint, env, tmp_path
):
    proc, stdout, stderr, out, player = played_run(
        endpoint,
        env,
        tmp_path,
        "local,aws:c7i.xlarge,aws:g4dn.xlarge",
        "--json",
        "--max-bench-minutes",
        "5",
        timeout=420,
    )
    assert proc.returncode == 0, stderr
    doc = json.loads(stdout)
    by_target = {o["target"]: o for o in doc["options"] if o["source"] == "measured"}
    assert set(by_target) == {"local", "aws:c7i.xlarge", "aws:g4dn.xlarge"}
    assert (
        len(doc["options"]) > 30
    )  # every instance not measured, predicted, as `planner plan` gives it (issue 40)
    for target in ("aws:c7i.xlarge", "aws:g4dn.xlarge"):
        option = by_target[target]
        assert (
            option["source"] == "measured"
            and option["step_seconds"] > 0
            and option["train_seconds"] > 0
        )
        assert option["price_per_hour"] > 0 and option["cost_usd"] > 0
    assert doc["recommendation"]["target"]
    assert doc["bench_cost_usd"] > 0
    assert len(player.played) == 2
    # every result was journaled
    assert {p.stem for p in (out / "results").glob("*.json")} == {
        "local-cpu",
        "aws-c7i.xlarge",
        "aws-g4dn.xlarge",
    }
    assert live_instances(ec2(endpoint), run_id(out)) == []
    assert "aws:g4dn.xlarge: booting" in stderr or "aws:g4dn.xlarge: running" in stderr


def test_without_anyone_playing_each_target_ends_with_no_result_and_nothing_running(
    endpoint, env, tmp_path
):
    proc, out = start_planner(
        env, tmp_path, "aws:c7i.xlarge,aws:g4dn.xlarge", "--max-bench-minutes", "0.1"
    )
    stdout, stderr = proc.communicate(timeout=120)
    for label in ("aws-c7i.xlarge", "aws-g4dn.xlarge"):
        assert f"no result from {label} within 0.1 minutes" in stderr
    assert (
        proc.returncode == 3
    )  # incomplete: nothing measured, the plan predicted from the work alone
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_a_crashing_bench_is_reported_with_its_log(endpoint, env, tmp_path):
    crash = (
        "#!/bin/bash\ncase \"$*\" in *'import torch'*) exit 0 ;; *zipfile*) exec "
        + sys.executable
        + ' "$@" ;; esac\n'
        "echo 'Traceback (most recent call last):'; echo 'RuntimeError: CUDA error: an illegal memory access'; exit 1\n"
    )
    proc, stdout, stderr, out, player = played_run(
        endpoint,
        env,
        tmp_path,
        "aws:c7i.xlarge",
        "--max-bench-minutes",
        "3",
        timeout=180,
        python_stub=crash,
    )
    assert (
        "ended without a result" in stderr
        and "RuntimeError: CUDA error: an illegal memory access" in stderr
    )
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_spot_interruption_is_reported(endpoint, env, tmp_path):
    proc, stdout, stderr, out, player = played_run(
        endpoint,
        env,
        tmp_path,
        "aws:c7i.xlarge",
        "--purchase",
        "spot",
        "--max-bench-minutes",
        "3",
        timeout=180,
        terminate_instead=True,
    )
    assert "terminated from outside" in stderr
    assert live_instances(ec2(endpoint), run_id(out)) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_mid_run_terminates_every_instance(endpoint, env, tmp_path, sig):
    proc, out = start_planner(
        env, tmp_path, "aws:c7i.xlarge,aws:g4dn.xlarge", "--max-bench-minutes", "5"
    )
    wait_for_instances(endpoint, out, 2)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert "Traceback" not in stderr
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_sigkill_leaves_expiry_tags_that_the_reaper_honours(endpoint, env, tmp_path):
    proc, out = start_planner(env, tmp_path, "aws:c7i.xlarge", "--max-bench-minutes", "5")
    (instance,) = wait_for_instances(endpoint, out, 1)
    proc.kill()  # SIGKILL: no finally, no handler
    proc.wait(30)
    tags = {t["Key"]: t["Value"] for t in instance["Tags"]}
    assert tags["planner:managed"] == "true" and tags["planner:expires-at"].endswith("Z")
    assert (
        len(live_instances(ec2(endpoint), run_id(out))) == 1
    )  # still there: only the guards can help now

    def reap(*args):
        return subprocess.run(
            [sys.executable, "-m", "planner.cli", "reap", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    r = reap()  # not expired yet: the reaper leaves it
    assert r.returncode == 0 and len(live_instances(ec2(endpoint), run_id(out))) == 1
    r = reap("--at", tags["planner:expires-at"], "--dry-run")
    assert "would terminate " + instance["InstanceId"] in r.stdout
    assert f"run {run_id(out)} expired {tags['planner:expires-at']}" in r.stdout  # its tags, read
    r = reap("--at", tags["planner:expires-at"])
    assert "terminated " + instance["InstanceId"] in r.stdout
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_ls_lists_managed_instances(endpoint, env, tmp_path):
    proc, out = start_planner(env, tmp_path, "aws:c7i.xlarge", "--max-bench-minutes", "5")
    wait_for_instances(endpoint, out, 1)
    r = subprocess.run(
        [sys.executable, "-m", "planner.cli", "ls", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    proc.terminate()
    proc.communicate(timeout=60)
    rows = [row for row in json.loads(r.stdout)["instances"] if row["run_id"] == run_id(out)]
    assert (
        len(rows) == 1
        and rows[0]["instance_type"] == "c7i.xlarge"
        and rows[0]["cost_so_far_usd"] > 0
    )
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_budget_cap_launches_nothing(endpoint, env, tmp_path):
    proc, out = start_planner(env, tmp_path, "aws:p4d.24xlarge", "--bench-budget", "1")
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "refusing to launch" in stderr
    assert not out.exists()
    assert all("p4d" not in i["InstanceType"] for i in live_instances(ec2(endpoint)))


def test_targets_auto_benchmarks_fewer_than_the_catalog_and_explains(endpoint, env, tmp_path):
    from pricing.catalog import filter_instances, load_snapshot

    # this machine at $1,000/h: renting may win, so auto has instances worth a paid benchmark (when training
    # here wins clearly it benchmarks none: tests/cli/test_run_plan.py)
    proc, stdout, stderr, out, player = played_run(
        endpoint,
        env,
        tmp_path,
        "auto",
        "--json",
        "--max-bench-minutes",
        "5",
        "--local-price",
        "1000",
        timeout=420,
    )
    assert proc.returncode == 0, stderr
    doc = json.loads(stdout)
    chosen = [c for c in doc["auto"] if c["benchmark"]]
    catalog_size = len(filter_instances(load_snapshot(), region="us-east-1"))
    assert 1 <= len(chosen) < catalog_size
    assert all(c["reason"] for c in doc["auto"])
    assert f"auto: benchmarking {len(chosen)} of" in stderr
    measured = {o["target"] for o in doc["options"] if o["source"] == "measured"}
    assert measured == {"local", *(c["target"] for c in chosen)}
    assert live_instances(ec2(endpoint), run_id(out)) == []


def test_processes_run_the_instances_bench_data_parallel_under_torchrun(endpoint, env, tmp_path):
    """`planner run --processes 2` on an AWS target: the instance's bench (played here, on this CPU,
    so gloo stands in for NCCL) runs under torchrun with DistributedDataParallel, and the result
    that comes back through S3 says so."""
    proc, stdout, stderr, out, player = played_run(
        endpoint,
        env,
        tmp_path,
        "aws:g5.12xlarge",
        "--processes",
        "2",
        "--json",
        "--max-bench-minutes",
        "5",
        timeout=420,
    )
    assert proc.returncode == 0, stderr
    result = json.loads((out / "results" / "aws-g5.12xlarge.json").read_text())
    result = result.get("result", result)
    assert result["status"] == "ok" and result["processes"] == 2 and result["backend"] == "gloo", (
        result
    )
    assert result["step_seconds_no_sync"] > 0 and 0 <= result["allreduce_share"] < 1
    option = next(o for o in json.loads(stdout)["options"] if o["target"] == "aws:g5.12xlarge")
    assert option["source"] == "measured" and option["step_seconds"] > 0
    assert live_instances(ec2(endpoint), run_id(out)) == []
