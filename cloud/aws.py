"""One AWS client factory and one error explainer, for every module that talks to AWS.

boto3 is injectable: every entry point takes an optional `boto3.Session` (None: standard
configuration — profile, AWS_REGION, AWS_ENDPOINT_URL — so moto's server mode and real AWS look
alike). Clients retry throttling and transient errors in botocore's standard mode before anything
is reported; what is left is explained in one message that says what to do.
"""

from __future__ import annotations

from typing import Any

from planner.errors import PlannerError


class AwsError(PlannerError):
    title = "AWS"


def session_or_default(session: Any = None):
    """The given boto3 session, or one from the standard configuration."""
    if session is not None:
        return session
    import boto3

    return boto3.Session()


def client(session: Any, service: str, region: str):
    """A client with standard retries (throttling is retried before it is reported). S3 signs with
    SigV4: presigned URLs then carry X-Amz-Expires and work in every region."""
    from botocore.config import Config

    extra = {"signature_version": "s3v4"} if service == "s3" else {}
    return session_or_default(session).client(service, region_name=region,
                                              config=Config(retries={"mode": "standard", "max_attempts": 5}, **extra))


PERMISSIONS = {"GetProducts": "pricing:GetProducts", "DescribeSpotPriceHistory": "ec2:DescribeSpotPriceHistory",
               "DescribeInstanceTypes": "ec2:DescribeInstanceTypes", "DescribeInstances": "ec2:DescribeInstances",
               "TerminateInstances": "ec2:TerminateInstances", "RunInstances": "ec2:RunInstances",
               "PutObject": "s3:PutObject", "GetObject": "s3:GetObject", "CreateStack": "cloudformation:CreateStack"}


def explain_aws_error(exc: Exception, doing: str, cls: type[AwsError] = AwsError, meanwhile: str = "") -> AwsError:
    """A boto3/botocore failure as one message that says what to do. `meanwhile` is appended to
    the hint ("; the bundled snapshot is used meanwhile")."""
    from botocore.exceptions import (
        ClientError, EndpointConnectionError, NoCredentialsError, NoRegionError, ProfileNotFound,
    )

    if isinstance(exc, ProfileNotFound):
        return cls(f"{doing}: {exc}", hint="set AWS_PROFILE to a profile in ~/.aws/config, or unset it")
    if isinstance(exc, NoCredentialsError):
        return cls(f"{doing}: no AWS credentials found",
                   hint="run `aws configure` (or set AWS_PROFILE / AWS_ACCESS_KEY_ID)" + meanwhile)
    if isinstance(exc, NoRegionError):
        return cls(f"{doing}: no AWS region configured", hint="pass --region or set AWS_REGION")
    if isinstance(exc, EndpointConnectionError):
        return cls(f"{doing}: cannot reach AWS ({exc})", hint="check the network" + meanwhile)
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "")
        op = getattr(exc, "operation_name", "")
        if code in ("AccessDenied", "AccessDeniedException", "UnauthorizedOperation"):
            return cls(f"{doing}: access denied ({code})", hint=f"grant {PERMISSIONS.get(op, op)} to your AWS identity" + meanwhile)
        if code in ("Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequestsException"):
            return cls(f"{doing}: AWS throttled the requests ({code}) after retries", hint="try again in a minute" + meanwhile)
        return cls(f"{doing}: AWS answered {code}: {exc.response.get('Error', {}).get('Message', '')}")
    return cls(f"{doing}: {type(exc).__name__}: {exc}")
