"""One AWS client factory and one error explainer, for every module that talks to AWS.

boto3 is injectable: every entry point takes an optional `boto3.Session` (None: standard
configuration — profile, AWS_REGION, AWS_ENDPOINT_URL — so moto's server mode and real AWS look
alike). Clients retry throttling and transient errors in botocore's standard mode before anything
is reported; what is left is explained in one message that says what to do.
"""

from __future__ import annotations

from typing import Any

from planner.errors import InputError, PlannerError


class AwsError(PlannerError):
    title = "AWS"


PROFILE_HINT = (
    "set AWS_PROFILE (or `planner config`'s profile) to a profile in ~/.aws/config, or unset it"
)


def session_or_default(session: Any = None):
    """The given boto3 session, or one from the standard configuration; InputError when that names a profile
    ~/.aws/config lacks (the user's setting, not a fault of AWS's)."""
    if session is not None:
        return session
    import boto3
    from botocore.exceptions import ProfileNotFound

    try:
        return boto3.Session()
    except ProfileNotFound as exc:
        raise InputError(str(exc), hint=PROFILE_HINT) from None


def client(session: Any, service: str, region: str, attempts: int = 5):
    """A client with standard retries (throttling is retried before it is reported; `attempts` in all: a look that
    only warns when it fails takes fewer). S3 signs with SigV4: presigned URLs then carry X-Amz-Expires and work in
    every region."""
    from botocore.config import Config

    extra = {"signature_version": "s3v4"} if service == "s3" else {}
    return session_or_default(session).client(
        service,
        region_name=region,
        config=Config(retries={"mode": "standard", "max_attempts": attempts}, **extra),
    )


PERMISSIONS = {
    "GetProducts": "pricing:GetProducts",
    "DescribeSpotPriceHistory": "ec2:DescribeSpotPriceHistory",
    "DescribeInstanceTypes": "ec2:DescribeInstanceTypes",
    "DescribeInstances": "ec2:DescribeInstances",
    "TerminateInstances": "ec2:TerminateInstances",
    "RunInstances": "ec2:RunInstances",
    "PutObject": "s3:PutObject",
    "GetObject": "s3:GetObject",
    "HeadObject": "s3:GetObject",
    "CreateStack": "cloudformation:CreateStack",
    "DescribeStacks": "cloudformation:DescribeStacks",
    "HeadBucket": "s3:ListBucket",
    "CreateBucket": "s3:CreateBucket",
    "PutPublicAccessBlock": "s3:PutBucketPublicAccessBlock",
    "PutBucketEncryption": "s3:PutEncryptionConfiguration",
    "PutBucketLifecycleConfiguration": "s3:PutLifecycleConfiguration",
    "GetCallerIdentity": "sts:GetCallerIdentity",
    "DescribeVpcs": "ec2:DescribeVpcs",
    "DescribeSubnets": "ec2:DescribeSubnets",
    "DescribeSecurityGroups": "ec2:DescribeSecurityGroups",
    "CreateSecurityGroup": "ec2:CreateSecurityGroup",
    "GetParameter": "ssm:GetParameter",
    "DescribeImages": "ec2:DescribeImages",
    "GetServiceQuota": "servicequotas:GetServiceQuota",
}
CREDENTIAL_CODES = (
    "ExpiredToken",
    "ExpiredTokenException",
    "InvalidClientTokenId",
    "SignatureDoesNotMatch",
    "AuthFailure",
    "UnrecognizedClientException",
    "InvalidAccessKeyId",
)


ACCESS_DENIED_CODES = (
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "Forbidden",
    "403",
)


def error_code(exc: Exception) -> str:
    """AWS's error code of a botocore ClientError ('' for any other exception)."""
    response = getattr(exc, "response", None)
    return str(response.get("Error", {}).get("Code", "")) if isinstance(response, dict) else ""


def explain_aws_error(
    exc: Exception, doing: str, cls: type[AwsError] = AwsError, meanwhile: str = ""
) -> AwsError:
    """A boto3/botocore failure as one message that says what to do. `meanwhile` is appended to
    the hint ("; the bundled snapshot is used meanwhile")."""
    import os

    from botocore.exceptions import (
        ClientError,
        ConnectionError,
        NoCredentialsError,
        NoRegionError,
        PartialCredentialsError,
        ProfileNotFound,
    )

    doing = f"{doing}: " if doing else ""  # "": the problem alone
    if isinstance(exc, PlannerError):
        return cls(f"{doing}{exc.message}", hint=exc.hint)
    if isinstance(exc, ProfileNotFound):
        return cls(f"{doing}{exc}", hint=PROFILE_HINT)
    if isinstance(exc, (NoCredentialsError, PartialCredentialsError)):
        what = (
            "no AWS credentials found"
            if isinstance(exc, NoCredentialsError)
            else f"incomplete AWS credentials ({exc})"
        )
        return cls(
            f"{doing}{what}",
            hint="run `aws configure` (or set AWS_PROFILE / AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
            + meanwhile,
        )
    if isinstance(exc, NoRegionError):
        return cls(f"{doing}no AWS region configured", hint="pass --region or set AWS_REGION")
    if isinstance(exc, ConnectionError):  # refused, timed out, DNS, TLS: after botocore's retries
        endpoint = os.environ.get("AWS_ENDPOINT_URL")
        where = (
            f"AWS_ENDPOINT_URL is {endpoint}"
            if endpoint
            else "check the network, a proxy or a firewall"
        )
        return cls(f"{doing}cannot reach AWS ({type(exc).__name__}: {exc})", hint=where + meanwhile)
    if isinstance(exc, ClientError):
        code = error_code(exc)
        op = getattr(exc, "operation_name", "")
        if code in ACCESS_DENIED_CODES:
            return cls(
                f"{doing}access denied ({code})",
                hint=f"grant {PERMISSIONS.get(op, op)} to your AWS identity (`planner infra policy` prints a "
                f"policy that has everything the planner needs)" + meanwhile,
            )
        if code in CREDENTIAL_CODES:
            return cls(
                f"{doing}AWS refused the credentials ({code})",
                hint="refresh them: `aws sso login`, `aws configure`, or new keys in AWS_ACCESS_KEY_ID"
                + meanwhile,
            )
        if code in (
            "Throttling",
            "ThrottlingException",
            "RequestLimitExceeded",
            "TooManyRequestsException",
        ):
            return cls(
                f"{doing}AWS throttled the requests ({code}) after retries",
                hint="try again in a minute" + meanwhile,
            )
        return cls(
            f"{doing}AWS answered {code}: {exc.response.get('Error', {}).get('Message', '')}"
        )
    return cls(f"{doing}{type(exc).__name__}: {exc}")


def credentials_problem(session: Any = None) -> AwsError | None:
    """What stops boto3 from signing a request here, found without a call to AWS (the environment, the profile's
    files, SSO's cache, an instance role): no credentials, or incomplete ones; None when it has some (AWS may still
    refuse them: that is found at the first call). InputError for a profile ~/.aws/config lacks."""
    from botocore.exceptions import BotoCoreError, NoCredentialsError

    try:
        found = session_or_default(session).get_credentials()
    except BotoCoreError as exc:
        return explain_aws_error(exc, "")
    return None if found is not None else explain_aws_error(NoCredentialsError(), "")


def failure_text(exc: Exception, doing: str) -> str:
    """`explain_aws_error` as one line for a target's failed result: what went wrong; to fix: what to do."""
    error = explain_aws_error(exc, doing)
    return error.message + (f"; to fix: {error.hint}" if error.hint else "")


# EC2's vCPU quotas by family group and purchase (AWS Service Quotas, Amazon EC2; the same codes in every region);
# infra/quotas.py reads them before a launch
QUOTA_GROUPS = {"standard": "Standard (A, C, D, H, I, M, R, T, Z)", "g": "G and VT", "p": "P"}
QUOTA_CODES = {
    ("standard", "on-demand"): "L-1216C47A",
    ("g", "on-demand"): "L-DB2E81BA",
    ("p", "on-demand"): "L-417A185B",
    ("standard", "spot"): "L-34B43A08",
    ("g", "spot"): "L-3819A6DF",
    ("p", "spot"): "L-7212CCBC",
}


def quota_group(instance_type: str) -> str | None:
    """The vCPU quota group of an instance type: "standard", "g" (G and VT), "p"; None for a family with a quota of its
    own (F, Inf, Trn, DL, X, U, HPC...), which is not checked."""
    family = instance_type.split(".")[0].lower()
    if family.startswith(("inf", "trn", "dl", "hpc", "u-", "x")):
        return None
    if family.startswith(("g", "vt")):
        return "g"
    if family.startswith("p"):
        return "p"
    return "standard" if family.startswith(tuple("acdhimrtz")) else None


def group_quota_name(group: str, purchase: str) -> str:
    kind = QUOTA_GROUPS[group]
    return (
        f"Running On-Demand {kind} instances"
        if purchase == "on-demand"
        else f"All {kind} Spot Instance Requests"
    )


def quota_name(instance_type: str, purchase: str) -> str:
    """The EC2 vCPU quota a launch of `instance_type` counts against."""
    return group_quota_name(quota_group(instance_type) or "standard", purchase)


def launch_error(
    exc: Exception,
    instance_type: str,
    region: str,
    purchase: str,
    every_zone: bool = False,
    fallback: str | None = None,
) -> str:
    """What a failed launch of `instance_type` means and what to do, in one paragraph. `every_zone`: the launch
    was tried in each zone of the region; `fallback`: the --fallback the launch had (its advice is not repeated)."""

    code = error_code(exc)
    if code == "InsufficientInstanceCapacity" or (
        purchase == "spot" and (code == "SpotMaxPriceTooLow" or code.startswith("InsufficientSpot"))
    ):
        what = "spot capacity" if purchase == "spot" else "capacity"
        ways = [] if every_zone else ["another zone (--subnet)"]
        if purchase == "spot" and fallback != "on-demand":
            ways.append("--fallback on-demand (launched on-demand when spot has none)")
        if fallback != "next":
            ways.append("--fallback next (the plan's next-best instance instead)")
        ways.append("another --region")
        if purchase != "spot":
            ways.append("--purchase spot (a pool of its own)")
        return (
            f"AWS has no {what} for {instance_type} in {region} right now ({code}): try "
            + ", ".join(ways[:-1])
            + f" or {ways[-1]}"
        )
    if code in ("VcpuLimitExceeded", "InstanceLimitExceeded", "MaxSpotInstanceCountExceeded"):
        name = quota_name(instance_type, purchase)
        quota = QUOTA_CODES[(quota_group(instance_type) or "standard", purchase)]
        return (
            f'your vCPU quota "{name}" in {region} is too low for {instance_type} ({code}); new accounts '
            f"start at 0 for G and P. Ask for more: aws service-quotas request-service-quota-increase "
            f"--service-code ec2 --quota-code {quota} --desired-value VCPUS --region {region} (or the "
            f"Service Quotas console: Amazon EC2 > {name})"
        )
    if code == "UnauthorizedOperation":
        return (
            f"not allowed to launch instances ({code}): your identity needs ec2:RunInstances and ec2:CreateTags "
            f"(`planner infra policy` prints a policy that has them; spot also needs the spot-instances-request resource)"
        )
    # the Deep Learning AMI's public SSM parameter (runner.aws.AMI_PARAMETER)
    if code == "ParameterNotFound":
        return (
            f"the latest Deep Learning AMI could not be looked up in {region} ({code}: its public SSM parameter is "
            f"not there): give an AMI with torch yourself, --ami ami-..., or try another --ami-type or region"
        )
    return failure_text(exc, f"launch of {instance_type}")
