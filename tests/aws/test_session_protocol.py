"""One session loop over one target protocol: a local bench and an EC2 instance (moto) in the same
BenchSession, each result journaled as it arrives, nothing left running."""

from __future__ import annotations

import json

import boto3

from planner.service import PlannerService
from planner.service.bench import BenchOptions, make_job
from planner.workload.spec import parse_spec
from runner.aws import AwsRun, AwsSettings, AwsTarget
from runner.local import LocalTarget
from runner.session import BenchSession
from runner.target import FINISHED, Target, TargetStatus
from tests.aws.helpers import live_instances, x86_ami
from tests.conftest import TINY_MLP


def test_a_local_bench_and_an_instance_run_through_the_same_protocol(aws_session, tmp_path):
    ec2 = aws_session.client("ec2")
    spec = parse_spec(TINY_MLP)
    job = make_job(
        spec, BenchOptions(device="cpu", seconds=1), PlannerService().workloads.footprint(spec)
    ).runner_job()
    run = AwsRun(AwsSettings(ami=x86_ami(ec2), max_bench_minutes=5, poll_seconds=0.05), "run-proto")
    local = LocalTarget(job, tmp_path / "work", "local-cpu")
    remote = AwsTarget(run, "c7i.xlarge", job, "aws-c7i.xlarge", 0.1785)
    for t in (local, remote):  # both satisfy the protocol the session is written against
        assert isinstance(t.exclusive, bool) and t.poll_seconds > 0 and callable(t.expire)
    s3 = boto3.client("s3", region_name="us-east-1")
    states: list[tuple[str, str]] = []
    journal: list[str] = []

    def on_state(label: str, state: str, _elapsed: float, _cost: float) -> None:
        states.append((label, state))
        if label == remote.label and state in (
            "booting",
            "running",
        ):  # launched: the instance "uploads" its result and log
            result = {
                "status": "ok",
                "device": "cpu",
                "step_seconds": 0.02,
                "step_seconds_ci_low": 0.019,
                "step_seconds_ci_high": 0.021,
            }
            s3.put_object(
                Bucket=run.bucket, Key=remote.keys["result"], Body=json.dumps(result).encode()
            )
            s3.put_object(
                Bucket=run.bucket,
                Key=remote.keys["log"],
                Body=b"[planner] bench exited with status 0\n",
            )

    targets: list[Target] = [local, remote]
    results = BenchSession(
        targets,
        on_state=on_state,
        on_result=lambda label, r: journal.append(label),
        backstops=[run.terminate_run],
    ).run()
    assert sorted(journal) == ["aws-c7i.xlarge", "local-cpu"]  # each journaled once
    assert results["local-cpu"].status == "ok" and results["local-cpu"].step_seconds > 0
    assert results["aws-c7i.xlarge"].step_seconds == 0.02
    # the instance launched before the local bench ran: its boot overlaps
    launched = next(
        i for i, (label, state) in enumerate(states) if label == remote.label and state != "pending"
    )
    assert launched < states.index(("local-cpu", "running"))
    assert isinstance(local.poll(), TargetStatus) and isinstance(remote.poll(), TargetStatus)
    assert {local.poll().state, remote.poll().state} <= FINISHED
    assert live_instances(ec2, "run-proto") == []
