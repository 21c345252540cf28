"""The account-level stack (infra/planner-stack.yaml): render, deploy, status, delete.

The reaper Lambda's code is infra/reaper.py itself — one implementation — inlined into the
template's `Code.ZipFile` when the template is rendered (CloudFormation writes it to index.py, so the
handler is `index.lambda_handler`). The template is plain YAML (long-form intrinsic functions), so
rendering is load, set one field, dump as JSON; `planner infra template` prints the result for
deploying without the planner.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infra.aws import client
from infra.reaper import STACK_NAME
from planner.errors import InputError, PlannerError

TEMPLATE = Path(__file__).resolve().parent / "planner-stack.yaml"
REAPER = Path(__file__).resolve().parent / "reaper.py"
ZIPFILE_LIMIT = 4096  # CloudFormation's limit for inline Lambda code
DEFAULT_STACK_NAME = STACK_NAME


class InfraError(PlannerError):
    title = "infra"


def load_template() -> dict[str, Any]:
    import yaml

    return yaml.safe_load(TEMPLATE.read_text())


def render_template() -> str:
    template = load_template()
    code = REAPER.read_text()
    if len(code) > ZIPFILE_LIMIT:
        raise InfraError(
            f"infra/reaper.py is {len(code)} characters, over CloudFormation's {ZIPFILE_LIMIT} for inline code"
        )
    template["Resources"]["ReaperFunction"]["Properties"]["Code"]["ZipFile"] = code
    return json.dumps(template, indent=2)


def user_policy() -> dict[str, Any]:
    """The planner-user policy document (PlannerUserPolicy in the template)."""
    return load_template()["Resources"]["PlannerUserPolicy"]["Properties"]["PolicyDocument"]


def _cfn(session: Any, region: str):
    return client(session, "cloudformation", region)


def default_vpc(session: Any, region: str) -> str:
    vpcs = client(session, "ec2", region).describe_vpcs(
        Filters=[{"Name": "isDefault", "Values": ["true"]}]
    )["Vpcs"]
    if not vpcs:
        raise InputError(f"no default VPC in {region}", hint="pass --vpc VPC_ID")
    return vpcs[0]["VpcId"]


def _existing(session: Any, region: str, name: str) -> dict[str, Any]:
    """The stack just created or updated (it exists: describe_stacks cannot answer None here)."""
    found = stack(session, region, name)
    if found is None:
        raise RuntimeError(f"stack {name} in {region} vanished right after it was deployed")
    return found


def stack(session: Any, region: str, name: str) -> dict[str, Any] | None:
    from botocore.exceptions import ClientError

    try:
        return _cfn(session, region).describe_stacks(StackName=name)["Stacks"][0]
    except ClientError as exc:
        if "does not exist" in str(exc):
            return None
        raise


def outputs(found: dict[str, Any] | None) -> dict[str, str]:
    return {o["OutputKey"]: o["OutputValue"] for o in (found or {}).get("Outputs", [])}


def deploy(
    session: Any,
    region: str,
    name: str = DEFAULT_STACK_NAME,
    vpc_id: str | None = None,
    schedule: str | None = None,
    wait: bool = True,
) -> dict[str, Any]:
    """Create the stack, or update it when it exists. Returns the stack description."""
    from botocore.exceptions import ClientError

    cfn = _cfn(session, region)
    params = [{"ParameterKey": "VpcId", "ParameterValue": vpc_id or default_vpc(session, region)}]
    if schedule:
        params.append({"ParameterKey": "ReaperSchedule", "ParameterValue": schedule})
    body = render_template()
    kwargs = dict(
        StackName=name,
        TemplateBody=body,
        Parameters=params,
        Capabilities=["CAPABILITY_NAMED_IAM"],
        Tags=[{"Key": "planner:managed", "Value": "true"}],
    )
    if stack(session, region, name) is None:
        cfn.create_stack(**kwargs)
        waiter = "stack_create_complete"
    else:
        try:
            cfn.update_stack(**kwargs)
        except ClientError as exc:
            if "No updates are to be performed" in str(exc):
                return _existing(session, region, name)
            raise
        waiter = "stack_update_complete"
    if wait:
        cfn.get_waiter(waiter).wait(StackName=name, WaiterConfig={"Delay": 5, "MaxAttempts": 120})
    return _existing(session, region, name)


def delete(session: Any, region: str, name: str = DEFAULT_STACK_NAME, wait: bool = True) -> bool:
    """Delete the stack (the results bucket is retained: it may hold results). False if none."""
    if stack(session, region, name) is None:
        return False
    cfn = _cfn(session, region)
    cfn.delete_stack(StackName=name)
    if wait:
        cfn.get_waiter("stack_delete_complete").wait(
            StackName=name, WaiterConfig={"Delay": 5, "MaxAttempts": 120}
        )
    return True
