"""EC2 vCPU quotas read before a launch (infra/quotas.py): a launch over one is refused before anything starts,
naming the quota, its value, what runs in it, what the launch needs and the request that raises it; a quota that
cannot be read is a warning and the launch goes on. moto has no EC2 quotas: AWS's answer is injected at botocore's
boundary (`_make_api_call`), in process here and through tests/aws/faults.py in a `planner run` subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import botocore.client
import pytest
from botocore.exceptions import ClientError

from infra.quotas import check_quotas, quota_group
from planner.service import AwsOptions, PlannerService
from tests.aws.helpers import ec2, live_instances, x86_ami
from tests.conftest import EXAMPLES, ROOT


def answer_quotas(monkeypatch, values: dict[str, float]) -> list[str]:
    """GetServiceQuota answers AWS would give (quota code -> vCPUs); every other call goes to moto. Returns the log of
    quota codes asked."""
    real = botocore.client.BaseClient._make_api_call
    asked: list[str] = []

    def call(self, operation, params):
        if operation == "GetServiceQuota":
            asked.append(params["QuotaCode"])
            return {
                "Quota": {"QuotaCode": params["QuotaCode"], "Value": values[params["QuotaCode"]]}
            }
        return real(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", call)
    return asked


def test_instance_families_count_against_their_groups_quota():
    assert [
        quota_group(t)
        for t in (
            "g5.xlarge",
            "g4dn.12xlarge",
            "p4d.24xlarge",
            "c7i.xlarge",
            "m7i.large",
            "inf2.xlarge",
        )
    ] == ["g", "g", "p", "standard", "standard", None]


def test_a_new_accounts_zero_g_quota_refuses_the_launch_before_it_starts_and_names_the_raise_request(
    aws_session, monkeypatch
):
    asked = answer_quotas(monkeypatch, {"L-DB2E81BA": 0.0, "L-1216C47A": 640.0})
    preview = PlannerService(aws_session=aws_session).launch_preview(
        ["g5.xlarge", "c7i.xlarge"], AwsOptions()
    )
    assert sorted(asked) == [
        "L-1216C47A",
        "L-DB2E81BA",
    ]  # one read a quota the launch counts against
    refusal = preview.quota_refusal()
    assert refusal is not None and refusal.exit_code == 2
    said = refusal.render()
    assert (
        'the vCPU quota "Running On-Demand G and VT instances" in us-east-1 is 0 with 0 in use'
        in said
    )
    assert "g5.xlarge needs 4" in said and "VcpuLimitExceeded" in said
    assert (
        "aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-DB2E81BA "
        "--desired-value 4 --region us-east-1"
    ) in said
    assert any(
        'quota "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances": 640 vCPUs, 0 in use, this launch 4'
        in line
        for line in preview.lines()
    )


def test_instances_running_now_count_against_the_quota_spot_apart(aws_session, monkeypatch):
    client = aws_session.client("ec2")
    client.run_instances(
        ImageId=x86_ami(client), InstanceType="g4dn.xlarge", MinCount=1, MaxCount=1
    )  # 4 vCPUs, on-demand
    answer_quotas(monkeypatch, {"L-DB2E81BA": 8.0, "L-3819A6DF": 8.0})
    service = PlannerService(aws_session=aws_session)
    over = service.launch_preview(["g5.2xlarge"], AwsOptions())  # 8 more on-demand: 4 + 8 > 8
    assert over.quota_refusal() is not None and "with 4 in use" in over.quota_refusal().render()  # type: ignore[union-attr]
    assert service.launch_preview(["g5.xlarge"], AwsOptions()).quota_refusal() is None  # 4 + 4 fits
    spot = service.launch_preview(
        ["g5.2xlarge"], AwsOptions(purchase="spot")
    )  # the spot quota has none in use
    assert spot.quota_refusal() is None and "All G and VT Spot Instance Requests" in " ".join(
        spot.lines()
    )


def test_a_quota_that_cannot_be_read_warns_and_the_launch_goes_on(aws_session):
    checks = check_quotas(
        aws_session, "us-east-1", {"g5.xlarge": 4}, "on-demand"
    )  # moto: no EC2 quotas
    assert len(checks) == 1 and not checks[0].over and checks[0].limit is None
    assert (
        checks[0].problem
        and "not read" in checks[0].line()
        and "VcpuLimitExceeded" in checks[0].line()
    )
    preview = PlannerService(aws_session=aws_session).launch_preview(["g5.xlarge"], AwsOptions())
    assert preview.quota_refusal() is None


def test_a_quota_denied_to_the_identity_names_the_permission_that_reads_it(
    aws_session, monkeypatch
):
    """No permission for Service Quotas: the warning names servicequotas:GetServiceQuota and the policy that has
    it (a new user read only "access denied (AccessDeniedException)")."""
    real = botocore.client.BaseClient._make_api_call

    def call(self, operation, params):
        if operation == "GetServiceQuota":
            raise ClientError(
                {"Error": {"Code": "AccessDeniedException", "Message": "no"}}, operation
            )
        return real(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", call)
    (check,) = check_quotas(aws_session, "us-east-1", {"g5.xlarge": 4}, "on-demand")
    assert check.limit is None and "access denied" in check.problem
    assert (
        "servicequotas:GetServiceQuota" in check.line() and "planner infra policy" in check.line()
    )


@pytest.mark.parametrize("dry_run", [False, True])
def test_planner_run_over_a_quota_launches_nothing_and_says_what_to_ask_for(
    endpoint, env, tmp_path, dry_run
):
    faults = [
        {"op": "GetServiceQuota", "answer": {"Quota": {"QuotaCode": "L-DB2E81BA", "Value": 0.0}}}
    ]
    cmd = [
        sys.executable,
        "-m",
        "tests.aws.faults",
        "run",
        str(EXAMPLES / "surface-mlp.yaml"),
        "--targets",
        "aws:g4dn.xlarge",
        "--ami",
        x86_ami(ec2(endpoint)),
        "--out",
        str(tmp_path / "run"),
        "-y",
        *(["--dry-run", "--json"] if dry_run else []),
    ]
    r = subprocess.run(
        cmd,
        cwd=ROOT,
        env={**env, "PLANNER_FAULTS": json.dumps(faults)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in r.stderr
    assert "L-DB2E81BA" in r.stderr and "Running On-Demand G and VT instances" in r.stderr
    if dry_run:
        assert r.returncode == 0 and "a run would be refused: refusing to launch" in r.stderr
        quota = json.loads(r.stdout)["launch"]["quotas"][0]
        assert (
            quota["over"]
            and quota["vcpus"] == 0
            and quota["needed"] == 4
            and quota["code"] == "L-DB2E81BA"
        )
    else:
        assert r.returncode == 2 and "refusing to launch: the vCPU quota" in r.stderr
        assert not (tmp_path / "run").exists()  # refused before a journal, a bucket or an instance
    assert live_instances(ec2(endpoint)) == []


def test_autos_picks_over_a_quota_are_dropped_with_a_notice_and_the_rest_benchmarked(
    aws_session, monkeypatch
):
    """`auto` chooses its instances once the run is under way (no front previews them): a pick over its quota is not
    launched, the run says why and goes on with the others."""
    from pricing.catalog import load_snapshot

    answer_quotas(monkeypatch, {"L-DB2E81BA": 0.0, "L-1216C47A": 640.0})
    said: list[tuple[str, str]] = []
    kept = PlannerService(
        aws_session=aws_session
    )._runs.within_quotas(  # a step of `auto`'s run: its part
        ["g5.xlarge", "c7i.xlarge"],
        AwsOptions(),
        load_snapshot(),
        lambda label, text: said.append((label, text)),
    )
    assert kept == ["c7i.xlarge"]
    assert (
        said[0][0] == "aws-g5.xlarge"
        and "auto chose aws:g5.xlarge but did not benchmark it" in said[0][1]
    )
    assert "--quota-code L-DB2E81BA" in said[0][1]
