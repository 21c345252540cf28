"""infra/planner-stack.yaml: lint-clean, deploys into moto and creates what it says; the reaper
Lambda's handler (infra/reaper.py) against moto; the user policy accepted by IAM."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess

import pytest

from infra import reaper
from infra import stack as infra
from tests.aws.helpers import FAKE_ENV, live_instances, x86_ami
from tests.cli.helpers import planner
from tests.conftest import ROOT


def cfn_lint(path) -> subprocess.CompletedProcess:
    exe = shutil.which("cfn-lint") or str(ROOT / ".venv" / "bin" / "cfn-lint")
    return subprocess.run([exe, str(path)], capture_output=True, text=True, timeout=300)


def test_template_is_cfn_lint_clean():
    r = cfn_lint(ROOT / "infra" / "planner-stack.yaml")
    assert r.returncode == 0, r.stdout + r.stderr


def test_rendered_template_carries_the_reaper_and_is_lint_clean(tmp_path):
    rendered = infra.render_template()
    code = json.loads(rendered)["Resources"]["ReaperFunction"]["Properties"]["Code"]["ZipFile"]
    assert code == (ROOT / "infra" / "reaper.py").read_text()  # the one implementation, not a copy
    path = tmp_path / "rendered.json"
    path.write_text(rendered)
    r = cfn_lint(path)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.fixture
def aws(aws_session):
    return aws_session


def test_stack_deploys_into_moto_and_creates_what_it_says(aws):
    found = infra.deploy(aws, "us-east-1")
    assert found["StackStatus"] == "CREATE_COMPLETE"
    out = infra.outputs(found)
    assert set(out) == {
        "ResultsBucket",
        "SecurityGroupId",
        "ReaperFunctionArn",
        "ReaperScheduleRuleArn",
        "PlannerUserPolicyArn",
    }

    s3 = aws.client("s3")
    # (moto's CloudFormation skips AWS::S3::BucketPolicy with a warning: the TLS-only bucket policy
    # is checked by cfn-lint above, not here)
    assert out["ResultsBucket"] == "cloud-planner-123456789012-us-east-1"
    assert s3.get_bucket_encryption(Bucket=out["ResultsBucket"])[
        "ServerSideEncryptionConfiguration"
    ]["Rules"]
    ec2 = aws.client("ec2")
    (group,) = ec2.describe_security_groups(GroupIds=[out["SecurityGroupId"]])["SecurityGroups"]
    assert group["IpPermissions"] == []  # no inbound rule
    fn = aws.client("lambda").get_function(FunctionName=out["ReaperFunctionArn"])["Configuration"]
    assert fn["Handler"] == "index.lambda_handler" and fn["Runtime"] == "python3.12"
    rules = aws.client("events").list_rules()["Rules"]
    assert any(r["ScheduleExpression"] == "rate(10 minutes)" for r in rules)
    policy = aws.client("iam").get_policy(PolicyArn=out["PlannerUserPolicyArn"])["Policy"]
    assert policy["Arn"] == out["PlannerUserPolicyArn"]

    # the planner picks the stack's bucket and security group up
    from runner.aws import AwsRun, AwsSettings

    run = AwsRun(AwsSettings(ami=x86_ami(ec2)), "r1", session=aws)
    run.prepare()
    assert (run.bucket, run.security_group) == (out["ResultsBucket"], out["SecurityGroupId"])

    assert infra.delete(aws, "us-east-1") is True
    assert infra.stack(aws, "us-east-1", "cloud-planner") is None
    assert infra.delete(aws, "us-east-1") is False


def test_reaper_handler_terminates_exactly_the_expired_planner_instances(aws, monkeypatch):
    ec2 = aws.client("ec2")
    ami = x86_ami(ec2)
    past = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=1)).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )
    future = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )

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
        return ec2.run_instances(
            ImageId=ami, InstanceType="t3.micro", MinCount=1, MaxCount=1, TagSpecifications=spec
        )["Instances"][0]["InstanceId"]

    expired = launch({"planner:managed": "true", "planner:expires-at": past})
    alive = launch({"planner:managed": "true", "planner:expires-at": future})
    untagged = launch({})
    assert reaper.lambda_handler({}, None) == {"terminated": [expired]}
    assert {i["InstanceId"] for i in live_instances(ec2)} == {alive, untagged}


def _substituted(node):
    """Resolve the template's Fn::Sub pseudo parameters as CloudFormation would in us-east-1."""
    if isinstance(node, dict):
        if set(node) == {"Fn::Sub"}:
            return (
                node["Fn::Sub"]
                .replace("${AWS::Partition}", "aws")
                .replace("${AWS::Region}", "us-east-1")
                .replace("${AWS::AccountId}", "123456789012")
            )
        return {k: _substituted(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_substituted(v) for v in node]
    return node


def test_policy_documents_are_accepted_by_iam(aws):
    # moto validates the documents' syntax and structure only, not what they allow
    iam = aws.client("iam")
    document = json.dumps(infra.user_policy())
    arn = iam.create_policy(PolicyName="cloud-planner-user", PolicyDocument=document)["Policy"][
        "Arn"
    ]
    assert arn.endswith(":policy/cloud-planner-user")
    role = infra.load_template()["Resources"]["ReaperRole"]["Properties"]
    reaper_doc = _substituted(role["Policies"][0]["PolicyDocument"])
    iam.create_policy(PolicyName="cloud-planner-reaper", PolicyDocument=json.dumps(reaper_doc))
    iam.create_role(
        RoleName="reaper", AssumeRolePolicyDocument=json.dumps(role["AssumeRolePolicyDocument"])
    )
    (terminate,) = [
        st for st in reaper_doc["Statement"] if st["Action"] == "ec2:TerminateInstances"
    ]
    assert terminate["Condition"] == {"StringEquals": {"aws:ResourceTag/planner:managed": "true"}}
    actions = {
        a
        for s in infra.user_policy()["Statement"]
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    }
    assert {
        "ec2:RunInstances",
        "ec2:TerminateInstances",
        "pricing:GetProducts",
        "s3:PutObject",
    } <= actions


def test_cli_infra_status_without_a_stack_in_moto_server(tmp_path):
    from moto.server import ThreadedMotoServer

    from tests.aws.helpers import free_port

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        env = {**FAKE_ENV, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
        r = planner("infra", "status", env=env)
        assert r.code == 1 and "not deployed" in r.err
        r = planner("infra", "deploy", env=env)
        assert r.code == 0, r.err
        assert "CREATE_COMPLETE" in r.out and "ResultsBucket" in r.out
        r = planner("infra", "status", env=env)  # read back: its status and outputs
        assert r.code == 0 and "CREATE_COMPLETE" in r.out and "ResultsBucket" in r.out
        r = planner("infra", "delete", env=env)
        assert r.code == 0 and "deleted" in r.err
        r = planner("infra", "delete", env=env)
        assert r.code == 0 and "does not exist" in r.err
    finally:
        server.stop()


def test_the_user_policy_checks_the_guards_iam_can_and_covers_spot():
    statements = {s["Sid"]: s for s in infra.user_policy()["Statement"]}
    launch = statements["LaunchOnlyGuardedPlannerInstances"]["Condition"]
    assert launch["StringEquals"] == {
        "aws:RequestTag/planner:managed": "true",
        "ec2:MetadataHttpTokens": "required",
    }
    assert launch["Null"] == {"ec2:InstanceProfile": "true"}  # no role on the instance
    assert statements["LaunchOnlyEncryptedVolumes"]["Condition"] == {
        "Bool": {"ec2:Encrypted": "true"}
    }
    # every resource a planner launch touches, on-demand or spot (InstanceMarketOptions makes a spot request)
    run_resources = {
        r.split(":")[-1].split("/")[0]
        for s in statements.values()
        if s["Action"] == "ec2:RunInstances"
        for r in ([s["Resource"]] if isinstance(s["Resource"], str) else s["Resource"])
    }
    assert run_resources == {
        "instance",
        "volume",
        "image",
        "subnet",
        "network-interface",
        "security-group",
        "spot-instances-request",
    }
    spot_role = statements["SpotServiceLinkedRoleOnce"]
    assert spot_role["Action"] == "iam:CreateServiceLinkedRole"
    assert spot_role["Condition"] == {"StringEquals": {"iam:AWSServiceName": "spot.amazonaws.com"}}
    actions = {
        a
        for s in statements.values()
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    }
    assert "iam:PassRole" not in actions  # no role can be attached to an instance
    assert (
        "ec2:DescribeInstanceAttribute" not in actions
    )  # planner users need not read user-data (its URLs)
