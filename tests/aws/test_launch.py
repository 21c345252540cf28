"""Launch, collect and clean up against moto in-process: the guards, launch errors, the budget cap,
collection time-out, outside termination, a crashed bench's log, and the reaper."""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import parse_qs, urlparse

import boto3
import botocore.client
import pytest
from botocore.exceptions import ClientError

from infra.reaper import reap
from planner.errors import InputError
from planner.service import AwsOptions, preflight
from pricing.catalog import load_snapshot
from runner.aws import AwsRun, AwsSettings, AwsTarget, quota_name
from runner.session import BenchSession
from tests.aws.helpers import FAKE_ENV, live_instances, x86_ami

JOB = {"spec": {"name": "tiny"}, "device": "auto"}


@pytest.fixture
def aws(aws_session):
    return aws_session.client("ec2")


def new_run(ec2, run_id="run-1", minutes=5.0, **kw) -> AwsRun:
    kw.setdefault("poll_seconds", 0.05)
    run = AwsRun(AwsSettings(ami=x86_ami(ec2), max_bench_minutes=minutes, **kw), run_id)
    run.prepare()
    return run


def test_launch_carries_every_guard(aws):
    run = new_run(aws)
    t = AwsTarget(run, "g5.xlarge", JOB, "aws-g5.xlarge", 1.006)
    t.start()
    assert t.error is None and t.instance_id
    inst = aws.describe_instances(InstanceIds=[t.instance_id])["Reservations"][0]["Instances"][0]
    attr = aws.describe_instance_attribute(
        InstanceId=t.instance_id, Attribute="instanceInitiatedShutdownBehavior"
    )
    assert attr["InstanceInitiatedShutdownBehavior"]["Value"] == "terminate"
    assert inst["MetadataOptions"]["HttpTokens"] == "required"  # IMDSv2 only
    assert "IamInstanceProfile" not in inst  # no role, no credentials on the instance
    tags = {x["Key"]: x["Value"] for x in inst["Tags"]}
    assert tags["planner:managed"] == "true" and tags["planner:run-id"] == "run-1" and tags["Name"]
    expires = dt.datetime.fromisoformat(tags["planner:expires-at"].replace("Z", "+00:00"))
    assert run.deadline < expires <= run.deadline + dt.timedelta(minutes=10)
    # the security group has no inbound rule, and is reused by the next run
    (group,) = aws.describe_security_groups(
        GroupIds=[g["GroupId"] for g in inst["SecurityGroups"]]
    )["SecurityGroups"]
    assert group["IpPermissions"] == []
    assert new_run(aws, "run-2").security_group == group["GroupId"]
    # encrypted root volume, deleted with the instance
    (mapping,) = inst["BlockDeviceMappings"]
    volume = aws.describe_volumes(VolumeIds=[mapping["Ebs"]["VolumeId"]])["Volumes"][0]
    assert volume["Encrypted"] is True
    assert mapping["Ebs"]["DeleteOnTermination"] is True


def test_user_data_starts_with_the_dead_man_timer_and_uses_scoped_expiring_urls(aws):
    import base64

    run = new_run(aws, minutes=7)
    t = AwsTarget(run, "c7i.xlarge", JOB, "aws-c7i.xlarge", 0.1785)
    t.start()
    raw = aws.describe_instance_attribute(InstanceId=t.instance_id, Attribute="userData")[
        "UserData"
    ]["Value"]
    script = base64.b64decode(raw).decode()
    commands = [line for line in script.splitlines() if line.strip() and not line.startswith("#")]
    assert commands[0] == "shutdown -h +7"
    assert len(script.encode()) < 16 * 1024
    urls = {
        name: next(
            line.split("'")[1] for line in script.splitlines() if line.startswith(f"{name}_URL=")
        )
        for name in ("BUNDLE", "JOB", "RESULT", "LOG")
    }
    assert urlparse(urls["RESULT"]).path.endswith("/runs/run-1/aws-c7i.xlarge/result.json")
    assert urlparse(urls["BUNDLE"]).path.endswith("/runs/run-1/bundle.zip")
    for url in urls.values():
        expires = int(parse_qs(urlparse(url).query)["X-Amz-Expires"][0])
        assert expires <= 7 * 60 + 300 + 5  # valid until the deadline, not longer
    s3 = boto3.client("s3", region_name="us-east-1")
    assert (
        json.loads(
            s3.get_object(Bucket=run.bucket, Key="runs/run-1/aws-c7i.xlarge/job.json")[
                "Body"
            ].read()
        )
        == JOB
    )


def test_the_bucket_the_planner_creates_is_private_encrypted_and_expires(aws):
    run = new_run(aws)
    s3 = boto3.client("s3", region_name="us-east-1")
    block = s3.get_public_access_block(Bucket=run.bucket)["PublicAccessBlockConfiguration"]
    assert all(block.values())
    enc = s3.get_bucket_encryption(Bucket=run.bucket)["ServerSideEncryptionConfiguration"]["Rules"][
        0
    ]
    assert enc["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    (rule,) = s3.get_bucket_lifecycle_configuration(Bucket=run.bucket)["Rules"]
    assert rule["Expiration"]["Days"] == 7


def test_ami_of_the_wrong_architecture_is_refused(aws):
    run = new_run(aws)
    t = AwsTarget(run, "c7g.xlarge", JOB, "aws-c7g.xlarge", 0.145, arch="arm64")
    with pytest.raises(InputError, match="x86_64, but the instance type is arm64"):
        t.start()
    assert live_instances(aws) == []


def inject(monkeypatch, operation: str, code: str, message: str = "injected"):
    real = botocore.client.BaseClient._make_api_call

    def fake(self, op, params):
        if op == operation:
            raise ClientError({"Error": {"Code": code, "Message": message}}, op)
        return real(self, op, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", fake)


@pytest.mark.parametrize(
    "code, instance_type, expected",
    [
        ("InsufficientInstanceCapacity", "g5.xlarge", "no capacity for g5.xlarge"),
        ("VcpuLimitExceeded", "g5.xlarge", '"Running On-Demand G and VT instances"'),
        ("VcpuLimitExceeded", "p4d.24xlarge", '"Running On-Demand P instances"'),
        ("VcpuLimitExceeded", "g5.xlarge", "--quota-code L-DB2E81BA --desired-value VCPUS"),
        ("InstanceLimitExceeded", "c7i.xlarge", "Standard (A, C, D, H, I, M, R, T, Z)"),
        ("UnauthorizedOperation", "c7i.xlarge", "ec2:RunInstances"),
    ],
)
def test_launch_errors_are_results_and_other_targets_go_on(
    aws, monkeypatch, code, instance_type, expected
):
    run = new_run(aws)
    inject(monkeypatch, "RunInstances", code)
    failing = AwsTarget(run, instance_type, JOB, f"aws-{instance_type}", 1.0)
    failing.start()
    assert failing.state == "failed" and expected in failing.error
    result = failing.collect()
    assert result.status == "error" and expected in result.message
    monkeypatch.undo()
    for k, v in FAKE_ENV.items():
        monkeypatch.setenv(k, v)
    other = AwsTarget(run, "c7i.xlarge", JOB, "aws-c7i.xlarge", 0.1785)
    other.start()
    assert other.state == "booting"
    run.terminate_run()


def test_quota_names():
    assert quota_name("g6e.xlarge", "spot") == "All G and VT Spot Instance Requests"
    assert (
        quota_name("m7i.large", "on-demand")
        == "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances"
    )


def test_budget_cap_refuses_before_any_launch(aws):
    options = AwsOptions(max_bench_minutes=20, bench_budget=1.00)
    with pytest.raises(InputError, match="refusing to launch: the worst-case bench cost is"):
        preflight(["p4d.24xlarge"], options, load_snapshot())
    assert live_instances(aws) == []
    prices, arches, worst = preflight(["c7i.xlarge", "g4dn.xlarge"], AwsOptions(), load_snapshot())
    assert prices == {"c7i.xlarge": 0.1785, "g4dn.xlarge": 0.526} and worst < 2.0


def test_too_many_instances_refused(aws):
    with pytest.raises(InputError, match="--max-instances 1"):
        preflight(["c7i.xlarge", "g4dn.xlarge"], AwsOptions(max_instances=1), load_snapshot())


def test_an_instance_that_never_reports_is_terminated_at_the_deadline(aws):
    run = new_run(aws, minutes=0.02)  # 1.2 s ...
    run.deadline = dt.datetime.now(dt.timezone.utc) + dt.timedelta(
        seconds=1.2
    )  # ... from now: moto took its time to prepare
    t = AwsTarget(run, "c7i.xlarge", JOB, "aws-c7i.xlarge", 0.1785)
    results = BenchSession([t], backstops=[run.terminate_run]).run()
    assert "no result from aws-c7i.xlarge within 0.02 minutes" in results["aws-c7i.xlarge"].message
    assert live_instances(aws, "run-1") == []


def test_an_instance_terminated_from_outside_is_reported_as_such(aws):
    run = new_run(aws)
    t = AwsTarget(
        run,
        "g4dn.xlarge",
        JOB,
        "aws-g4dn.xlarge",
        0.526,
    )
    t.start()
    aws.terminate_instances(InstanceIds=[t.instance_id])  # a spot interruption
    assert t.poll().state == "failed"
    assert "terminated from outside" in t.collect().message


def test_a_crashed_bench_surfaces_the_instance_log(aws):
    run = new_run(aws)
    t = AwsTarget(run, "c7i.xlarge", JOB, "aws-c7i.xlarge", 0.1785)
    t.start()
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.put_object(
        Bucket=run.bucket,
        Key=t.keys["log"],
        Body=b"[planner] running the bench\nTraceback ...\nRuntimeError: boom\n",
    )
    aws.terminate_instances(
        InstanceIds=[t.instance_id]
    )  # the bootstrap halts after uploading its log
    assert t.poll().state == "failed"
    message = t.collect().message
    assert "ended without a result" in message and "RuntimeError: boom" in message


def test_a_result_is_collected_and_journaled_once(aws):
    run = new_run(aws)
    t = AwsTarget(run, "c7i.xlarge", JOB, "aws-c7i.xlarge", 0.1785)
    t.start()
    s3 = boto3.client("s3", region_name="us-east-1")
    result = {
        "status": "ok",
        "device": "cpu",
        "step_seconds": 0.01,
        "step_seconds_ci_low": 0.009,
        "step_seconds_ci_high": 0.011,
    }
    s3.put_object(Bucket=run.bucket, Key=t.keys["result"], Body=json.dumps(result).encode())
    s3.put_object(
        Bucket=run.bucket, Key=t.keys["log"], Body=b"[planner] bench exited with status 0\n"
    )  # right after it
    seen = []
    results = BenchSession(
        [t], on_result=lambda label, r: seen.append(label), backstops=[run.terminate_run]
    ).run()
    assert seen == ["aws-c7i.xlarge"] and results["aws-c7i.xlarge"].step_seconds == 0.01
    assert live_instances(aws, "run-1") == []  # terminated as soon as its result was in
    assert t.cost_so_far() > 0


def test_reaper_takes_exactly_the_expired_planner_instances(aws):
    ami = x86_ami(aws)
    now = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc)

    def launch(tags):
        spec = (
            [
                {
                    "ResourceType": "instance",
                    "Tags": [{"Key": k, "Value": v} for k, v in tags.items()],
                }
            ]
            if tags
            else []
        )
        return aws.run_instances(
            ImageId=ami, InstanceType="t3.micro", MinCount=1, MaxCount=1, TagSpecifications=spec
        )["Instances"][0]["InstanceId"]

    expired = launch(
        {
            "planner:managed": "true",
            "planner:run-id": "a",
            "planner:expires-at": "2026-11-21T11:59:00Z",
        }
    )
    fresh = launch(
        {
            "planner:managed": "true",
            "planner:run-id": "b",
            "planner:expires-at": "2026-11-21T12:30:00Z",
        }
    )
    untagged = launch({})
    foreign = launch(
        {"planner:expires-at": "2020-01-01T00:00:00Z"}
    )  # not planner:managed: never touched
    assert [i["InstanceId"] for i in reap(aws, now=now, dry_run=True)] == [expired]
    assert {i["InstanceId"] for i in live_instances(aws)} == {expired, fresh, untagged, foreign}
    assert [i["InstanceId"] for i in reap(aws, now=now)] == [expired]
    assert {i["InstanceId"] for i in live_instances(aws)} == {fresh, untagged, foreign}
    assert [i["InstanceId"] for i in reap(aws, now=now, run_id="b")] == [fresh]
    assert {i["InstanceId"] for i in live_instances(aws)} == {untagged, foreign}
