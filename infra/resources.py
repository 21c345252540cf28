"""The account resources a remote run needs, found or made once: the infra stack's outputs, the
results bucket and the no-ingress security group. Design notes: docs/reference/modules.md
(infra/resources.py)."""

from __future__ import annotations

import os
from typing import Any

from infra.aws import client
from infra.reaper import SECURITY_GROUP_NAME, STACK_NAME, TAG_MANAGED
from infra.stack import outputs, stack
from planner.errors import InputError

RETENTION_DAYS = 7


def stack_outputs(session: Any, region: str) -> dict[str, str]:
    """The infra stack's outputs; {} when it is not deployed (or not ours to read)."""
    from botocore.exceptions import ClientError

    try:
        return outputs(stack(session, region, os.environ.get("PLANNER_STACK_NAME", STACK_NAME)))
    except ClientError:
        return {}  # the planner makes what it needs


def ensure_bucket(session: Any, region: str) -> str:
    """The planner's results bucket in `region`, created private, encrypted and expiring when absent."""
    from botocore.exceptions import ClientError

    s3 = client(session, "s3", region)
    account = client(session, "sts", region).get_caller_identity()["Account"]
    name = f"cloud-planner-{account}-{region}"
    try:
        s3.head_bucket(Bucket=name)
        return name
    except ClientError:
        pass  # absent (or not listable): creating it says which, with the permission it lacks
    kwargs: dict[str, Any] = {"Bucket": name}
    if region != "us-east-1":
        kwargs["CreateBucketConfiguration"] = {"LocationConstraint": region}
    s3.create_bucket(**kwargs)
    s3.put_public_access_block(
        Bucket=name,
        PublicAccessBlockConfiguration={
            "BlockPublicAcls": True,
            "IgnorePublicAcls": True,
            "BlockPublicPolicy": True,
            "RestrictPublicBuckets": True,
        },
    )
    s3.put_bucket_encryption(
        Bucket=name,
        ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
        },
    )
    s3.put_bucket_lifecycle_configuration(
        Bucket=name,
        LifecycleConfiguration={
            "Rules": [
                {
                    "ID": "expire-bench-runs",
                    "Status": "Enabled",
                    "Filter": {"Prefix": "runs/"},
                    "Expiration": {"Days": RETENTION_DAYS},
                }
            ]
        },
    )
    return name


def vpc_id(ec2: Any, region: str, subnet: str | None) -> str:
    if subnet:
        return ec2.describe_subnets(SubnetIds=[subnet])["Subnets"][0]["VpcId"]
    vpcs = ec2.describe_vpcs(Filters=[{"Name": "isDefault", "Values": ["true"]}])["Vpcs"]
    if not vpcs:
        raise InputError(f"no default VPC in {region}", hint="pass --subnet SUBNET_ID")
    return vpcs[0]["VpcId"]


def ensure_security_group(ec2: Any, region: str, subnet: str | None) -> str:
    """The no-ingress group for bench instances in the VPC of `subnet` (or the default VPC)."""
    vpc = vpc_id(ec2, region, subnet)
    found = ec2.describe_security_groups(
        Filters=[
            {"Name": "group-name", "Values": [SECURITY_GROUP_NAME]},
            {"Name": "vpc-id", "Values": [vpc]},
        ]
    )["SecurityGroups"]
    if found:
        group = found[0]
        if group.get("IpPermissions"):
            raise InputError(
                f"security group {group['GroupId']} ({SECURITY_GROUP_NAME}) has inbound rules",
                hint="the planner only launches into a group with no inbound rules: remove them",
            )
        return group["GroupId"]
    created = ec2.create_security_group(
        GroupName=SECURITY_GROUP_NAME,
        VpcId=vpc,
        Description="cloud-planner bench instances: no inbound access, outbound for S3 only",
        TagSpecifications=[
            {"ResourceType": "security-group", "Tags": [{"Key": TAG_MANAGED, "Value": "true"}]}
        ],
    )
    return created["GroupId"]
