"""AwsTarget: the bench on a rented EC2 instance that cannot outlive its purpose.

Per run (`AwsRun.prepare`): the results bucket (given, from the infra stack, or created private +
encrypted + public-access-blocked + 7-day lifecycle), a security group with no inbound rules
(created once, tagged, reused), and the bench bundle (a zip of runner/bench) uploaded once.

Per target (`AwsTarget.start`): the job JSON is uploaded; presigned URLs scoped to the exact keys
(GET bundle/job, PUT result/log) expire at the run's deadline; `run_instances` carries every guard:
InstanceInitiatedShutdownBehavior=terminate, IMDSv2 required, the no-ingress security group, an
encrypted root volume deleted on termination, tags planner:managed / planner:run-id /
planner:expires-at / Name, no instance profile; user-data is runner/bootstrap.sh whose first
command is the dead-man `shutdown -h +N`. Launch errors become a failed target with a message
that says what to do, never a crash; the other targets go on.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloud.aws import client, session_or_default
from cloud.reaper import SECURITY_GROUP_NAME, STACK_NAME, TAG_EXPIRES, TAG_MANAGED, TAG_RUN
from planner.errors import InputError
from pricing.billing import instance_cost
from runner.bench.result import BenchResult
from runner.target import TargetStatus

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
BOOTSTRAP = Path(__file__).resolve().parent / "bootstrap.sh"
DEFAULT_AMI_TYPE = "oss-nvidia-driver-gpu-pytorch-2.9-ubuntu-24.04"
AMI_PARAMETER = "/aws/service/deeplearning/ami/{arch}/{ami_type}/latest/ami-id"
EXPIRY_GRACE_MINUTES = 10  # boot time + shutdown, past the dead-man deadline, before the reaper acts
USER_DATA_LIMIT = 16 * 1024


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def iso(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class AwsSettings:
    region: str = "us-east-1"
    purchase: str = "on-demand"
    ami: str | None = None
    ami_type: str = DEFAULT_AMI_TYPE
    subnet: str | None = None
    bucket: str | None = None
    max_bench_minutes: float = 20.0
    root_volume_gb: int = 100
    poll_seconds: float = 5.0  # how often the session asks AWS for progress


def _code(exc: Exception) -> str:
    return getattr(exc, "response", {}).get("Error", {}).get("Code", "") if hasattr(exc, "response") else ""


def quota_name(instance_type: str, purchase: str) -> str:
    """The EC2 vCPU quota a launch of `instance_type` counts against."""
    kind = {"g": "G and VT", "p": "P"}.get(instance_type[0], "Standard (A, C, D, H, I, M, R, T, Z)")
    return f"Running On-Demand {kind} instances" if purchase == "on-demand" else f"All {kind} Spot Instance Requests"


def launch_error(exc: Exception, instance_type: str, settings: AwsSettings) -> str:
    """What a failed launch means and what to do, in one paragraph."""
    from botocore.exceptions import NoCredentialsError, NoRegionError

    if isinstance(exc, NoCredentialsError):
        return "no AWS credentials found: run `aws configure` or set AWS_PROFILE / AWS_ACCESS_KEY_ID"
    if isinstance(exc, NoRegionError):
        return "no AWS region configured: pass --region or set AWS_REGION"
    code = _code(exc)
    message = getattr(exc, "response", {}).get("Error", {}).get("Message", str(exc)) if hasattr(exc, "response") else str(exc)
    if code == "InsufficientInstanceCapacity":
        return (f"AWS has no capacity for {instance_type} in {settings.region} right now: try another subnet/zone "
                f"(--subnet), another region, a similar instance type, or --purchase spot")
    if code in ("VcpuLimitExceeded", "InstanceLimitExceeded", "MaxSpotInstanceCountExceeded"):
        return (f"your vCPU quota \"{quota_name(instance_type, settings.purchase)}\" in {settings.region} is too low "
                f"for {instance_type} ({code}); ask for an increase in the Service Quotas console "
                f"(Amazon EC2 > {quota_name(instance_type, settings.purchase)}); new accounts start at 0 for G and P")
    if code == "UnauthorizedOperation":
        return f"not allowed to launch instances ({code}): your identity needs ec2:RunInstances and ec2:CreateTags (see README, AWS set-up)"
    if code == "SpotMaxPriceTooLow" or code.startswith("InsufficientSpot"):
        return f"no spot capacity for {instance_type} ({code}): try --purchase on-demand or another region"
    return f"launch of {instance_type} failed: {code or type(exc).__name__}: {message}"


def worst_case_bench_cost(usd_per_hour: float, settings: AwsSettings) -> float:
    """The most one bench instance can bill: alive until the dead-man deadline plus the grace the
    reaper allows, with its root volume."""
    return instance_cost(usd_per_hour, (settings.max_bench_minutes + EXPIRY_GRACE_MINUTES) * 60, settings.root_volume_gb)


def bench_bundle() -> bytes:
    """runner/bench as a zip (runner/__init__.py + runner/bench/*.py): all the instance needs."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(PACKAGE_ROOT / "runner" / "__init__.py", "runner/__init__.py")
        for path in sorted((PACKAGE_ROOT / "runner" / "bench").glob("*.py")):
            zf.write(path, f"runner/bench/{path.name}")
    return buf.getvalue()


def render_bootstrap(run_id: str, label: str, urls: dict[str, str], deadman_minutes: int, bench_timeout: int) -> str:
    text = BOOTSTRAP.read_text()
    values = {"__RUN_ID__": run_id, "__LABEL__": label, "__BUNDLE_URL__": urls["bundle"], "__JOB_URL__": urls["job"],
              "__RESULT_URL__": urls["result"], "__LOG_URL__": urls["log"], "__DEADMAN_MINUTES__": str(deadman_minutes),
              "__BENCH_TIMEOUT__": str(bench_timeout)}
    for key, value in values.items():
        if "'" in value:
            raise ValueError(f"unexpected quote in {key}")
        text = text.replace(key, value)
    if len(text.encode()) > USER_DATA_LIMIT:
        raise ValueError(f"user-data is {len(text.encode())} bytes, over EC2's 16 KB limit")
    return text


class AwsRun:
    """What the targets of one run share: session, clients, bucket, security group, bundle, deadline."""

    def __init__(self, settings: AwsSettings, run_id: str, session: Any = None, now: dt.datetime | None = None):
        self.settings, self.run_id = settings, run_id
        self.session = session_or_default(session)
        self.ec2 = client(self.session, "ec2", settings.region)
        self.s3 = client(self.session, "s3", settings.region)
        self.started = now or utcnow()
        self.deadline = self.started + dt.timedelta(minutes=settings.max_bench_minutes)
        self.expires_at = self.deadline + dt.timedelta(minutes=EXPIRY_GRACE_MINUTES)
        self.bucket: str | None = settings.bucket
        self.security_group: str | None = None
        self.prefix = f"runs/{run_id}"
        self.prepared = False

    # ------------------------------------------------------------------ per-run resources

    def prepare(self) -> None:
        """Bucket, security group and bundle, once per run (the first target's start calls it)."""
        if self.prepared:
            return
        stack = self._stack_outputs()
        self.bucket = self.bucket or stack.get("ResultsBucket") or self._ensure_bucket()
        self.security_group = stack.get("SecurityGroupId") or self._ensure_security_group()
        self.s3.put_object(Bucket=self.bucket, Key=f"{self.prefix}/bundle.zip", Body=bench_bundle())
        self.prepared = True

    def _stack_outputs(self) -> dict[str, str]:
        import os

        from botocore.exceptions import ClientError

        try:
            name = os.environ.get("PLANNER_STACK_NAME", STACK_NAME)
            stacks = client(self.session, "cloudformation", self.settings.region).describe_stacks(StackName=name)["Stacks"]
        except ClientError:
            return {}  # no stack deployed: the planner makes what it needs
        return {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}

    def _ensure_bucket(self) -> str:
        from botocore.exceptions import ClientError

        account = client(self.session, "sts", self.settings.region).get_caller_identity()["Account"]
        name = f"cloud-planner-{account}-{self.settings.region}"
        try:
            self.s3.head_bucket(Bucket=name)
            return name
        except ClientError:
            pass
        kwargs: dict[str, Any] = {"Bucket": name}
        if self.settings.region != "us-east-1":
            kwargs["CreateBucketConfiguration"] = {"LocationConstraint": self.settings.region}
        self.s3.create_bucket(**kwargs)
        self.s3.put_public_access_block(Bucket=name, PublicAccessBlockConfiguration={
            "BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": True, "RestrictPublicBuckets": True})
        self.s3.put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]})
        self.s3.put_bucket_lifecycle_configuration(Bucket=name, LifecycleConfiguration={"Rules": [
            {"ID": "expire-bench-runs", "Status": "Enabled", "Filter": {"Prefix": "runs/"}, "Expiration": {"Days": 7}}]})
        return name

    def _vpc_id(self) -> str:
        if self.settings.subnet:
            return self.ec2.describe_subnets(SubnetIds=[self.settings.subnet])["Subnets"][0]["VpcId"]
        vpcs = self.ec2.describe_vpcs(Filters=[{"Name": "isDefault", "Values": ["true"]}])["Vpcs"]
        if not vpcs:
            raise InputError(f"no default VPC in {self.settings.region}", hint="pass --subnet SUBNET_ID")
        return vpcs[0]["VpcId"]

    def _ensure_security_group(self) -> str:
        vpc = self._vpc_id()
        found = self.ec2.describe_security_groups(Filters=[
            {"Name": "group-name", "Values": [SECURITY_GROUP_NAME]}, {"Name": "vpc-id", "Values": [vpc]}])["SecurityGroups"]
        if found:
            group = found[0]
            if group.get("IpPermissions"):
                raise InputError(f"security group {group['GroupId']} ({SECURITY_GROUP_NAME}) has inbound rules",
                                 hint="the planner only launches into a group with no inbound rules: remove them")
            return group["GroupId"]
        created = self.ec2.create_security_group(
            GroupName=SECURITY_GROUP_NAME, VpcId=vpc,
            Description="cloud-planner bench instances: no inbound access, outbound for S3 only",
            TagSpecifications=[{"ResourceType": "security-group", "Tags": [{"Key": TAG_MANAGED, "Value": "true"}]}])
        return created["GroupId"]

    def ami_for(self, arch: str) -> tuple[str, str]:
        """(image id, root device name); the image's architecture must match the instance's."""
        image_id = self.settings.ami
        if image_id is None:
            name = AMI_PARAMETER.format(arch="arm64" if arch == "arm64" else "x86_64", ami_type=self.settings.ami_type)
            image_id = client(self.session, "ssm", self.settings.region).get_parameter(Name=name)["Parameter"]["Value"]
        image = self.ec2.describe_images(ImageIds=[image_id])["Images"][0]
        if image.get("Architecture") != arch:
            raise InputError(f"--ami {image_id} is {image.get('Architecture')}, but the instance type is {arch}",
                             hint="give an AMI of the instance's architecture, or leave --ami out")
        return image_id, image.get("RootDeviceName", "/dev/sda1")

    def presign(self, key: str, method: str) -> str:
        seconds = max(60, int((self.deadline - utcnow()).total_seconds()) + 300)
        return self.s3.generate_presigned_url(method, Params={"Bucket": self.bucket, "Key": key}, ExpiresIn=seconds)

    def tags(self, label: str) -> list[dict[str, str]]:
        return [{"Key": TAG_MANAGED, "Value": "true"}, {"Key": TAG_RUN, "Value": self.run_id},
                {"Key": TAG_EXPIRES, "Value": iso(self.expires_at)}, {"Key": "Name", "Value": f"cloud-planner {label}"}]

    def terminate_run(self) -> list[str]:
        """Terminate every instance carrying this run's tag: the last line of defence in `finally`."""
        ids = [i["InstanceId"] for r in self.ec2.describe_instances(Filters=[
            {"Name": f"tag:{TAG_RUN}", "Values": [self.run_id]},
            {"Name": "instance-state-name", "Values": ["pending", "running", "stopping", "stopped"]}])["Reservations"]
            for i in r["Instances"]]
        if ids:
            self.ec2.terminate_instances(InstanceIds=ids)
        return ids


@dataclass
class AwsTarget:
    """One instance of a run (runner/target.py's protocol)."""

    exclusive = False  # instances run in parallel: booting overlaps with everything else
    run: AwsRun
    instance_type: str
    job: dict[str, Any]
    label: str
    price_per_hour: float
    arch: str = "x86_64"
    instance_id: str | None = None
    error: str | None = None
    launched_at: dt.datetime | None = None
    ended_at: dt.datetime | None = None
    terminated_by_us: bool = False
    state: str = "pending"
    state_reason: str = ""
    log_tail: str = ""
    _result: BenchResult | None = field(default=None, repr=False)

    @property
    def keys(self) -> dict[str, str]:
        base = f"{self.run.prefix}/{self.label}"
        return {"bundle": f"{self.run.prefix}/bundle.zip", "job": f"{base}/job.json",
                "result": f"{base}/result.json", "log": f"{base}/log.txt"}

    @property
    def poll_seconds(self) -> float:
        return self.run.settings.poll_seconds

    @property
    def deadline(self) -> dt.datetime:
        return self.run.deadline

    def start(self) -> None:
        s = self.run.settings
        self.run.prepare()
        try:
            image_id, root_device = self.run.ami_for(self.arch)
            self.run.s3.put_object(Bucket=self.run.bucket, Key=self.keys["job"], Body=json.dumps(self.job).encode())
            urls = {k: self.run.presign(v, "get_object" if k in ("bundle", "job") else "put_object") for k, v in self.keys.items()}
            deadman = max(2, int(s.max_bench_minutes))
            user_data = render_bootstrap(self.run.run_id, self.label, urls, deadman, max(60, int(deadman * 60 - 180)))
            params: dict[str, Any] = dict(
                ImageId=image_id, InstanceType=self.instance_type, MinCount=1, MaxCount=1, UserData=user_data,
                InstanceInitiatedShutdownBehavior="terminate",
                MetadataOptions={"HttpTokens": "required", "HttpEndpoint": "enabled", "HttpPutResponseHopLimit": 1},
                BlockDeviceMappings=[{"DeviceName": root_device, "Ebs": {
                    "VolumeSize": s.root_volume_gb, "VolumeType": "gp3", "Encrypted": True, "DeleteOnTermination": True}}],
                TagSpecifications=[{"ResourceType": "instance", "Tags": self.run.tags(self.label)},
                                   {"ResourceType": "volume", "Tags": self.run.tags(self.label)}],
            )
            if s.subnet:
                params["NetworkInterfaces"] = [{"DeviceIndex": 0, "SubnetId": s.subnet, "Groups": [self.run.security_group],
                                                "AssociatePublicIpAddress": True}]
            else:
                params["SecurityGroupIds"] = [self.run.security_group]
            if s.purchase == "spot":
                params["InstanceMarketOptions"] = {"MarketType": "spot", "SpotOptions": {
                    "SpotInstanceType": "one-time", "InstanceInterruptionBehavior": "terminate"}}
            response = self.run.ec2.run_instances(**params)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - a failed launch is this target's result, not a crash
            self.error, self.state = launch_error(exc, self.instance_type, s), "failed"
            return
        self.instance_id = response["Instances"][0]["InstanceId"]
        self.launched_at, self.state = utcnow(), "booting"

    # ------------------------------------------------------------------ progress

    def _has(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.run.s3.head_object(Bucket=self.run.bucket, Key=self.keys[key])
            return True
        except ClientError:
            return False

    def poll(self) -> TargetStatus:
        """pending | booting | running | done | failed | terminated"""
        return TargetStatus(self._poll_state())

    def _poll_state(self) -> str:
        if self.state in ("done", "failed", "terminated") or self.instance_id is None:
            return self.state
        if self._has("result"):
            self.state = "done"
            return self.state
        reservations = self.run.ec2.describe_instances(InstanceIds=[self.instance_id])["Reservations"]
        instance = reservations[0]["Instances"][0]
        name = instance["State"]["Name"]
        if name == "pending":
            self.state = "booting"
        elif name == "running":
            self.state = "running"
        elif name in ("shutting-down", "terminated", "stopping", "stopped"):
            if self._has("result"):  # uploaded just before it halted
                self.state = "done"
            else:
                self.state_reason = (instance.get("StateReason") or {}).get("Message", "")
                self.ended_at = self.ended_at or utcnow()
                self.state = "terminated" if self.terminated_by_us else "failed"
        return self.state

    def collect(self) -> BenchResult:
        if self._result is not None:
            return self._result
        if self.state == "done":
            body = self.run.s3.get_object(Bucket=self.run.bucket, Key=self.keys["result"])["Body"].read()
            self._result = BenchResult.from_dict(json.loads(body))
            return self._result
        if self.error:
            message = self.error
        else:
            self.log_tail = self._log_tail()
            if self.terminated_by_us:
                message = f"no result from {self.label}: stopped by the planner"
            else:
                why = "terminated from outside (a spot interruption, or someone else)" if not self.log_tail else "the instance ended without a result"
                message = f"no result from {self.label}: {why}" + (f" ({self.state_reason})" if self.state_reason else "")
            if self.log_tail:
                message += f"\n--- last lines of the instance's log ---\n{self.log_tail}"
        return BenchResult(status="error", device="cuda" if self.job.get("device") == "cuda" else "cpu",
                           workload=self.job["spec"]["name"], message=message)

    def _log_tail(self, lines: int = 20) -> str:
        if not self._has("log"):
            return ""
        body = self.run.s3.get_object(Bucket=self.run.bucket, Key=self.keys["log"])["Body"].read().decode(errors="replace")
        return "\n".join(body.strip().splitlines()[-lines:])

    def terminate(self) -> None:
        """Terminate the instance (idempotent). A finished one is terminated too: it would halt by
        itself, but every second until then is billed."""
        if self.instance_id is None or self.state == "terminated":
            return
        if self.state not in ("done", "failed"):
            self.terminated_by_us, self.state = True, "terminated"
        self.run.ec2.terminate_instances(InstanceIds=[self.instance_id])
        self.ended_at = self.ended_at or utcnow()

    def expire(self) -> None:
        """The run's deadline passed without a result: terminate; collect() says why."""
        self.terminate()
        minutes = self.run.settings.max_bench_minutes
        self.error = f"no result from {self.label} within {minutes:g} minutes (--max-bench-minutes); terminated"

    def cost_so_far(self, now: dt.datetime | None = None) -> float:
        if self.launched_at is None:
            return 0.0
        end = self.ended_at or now or utcnow()
        return instance_cost(self.price_per_hour, (end - self.launched_at).total_seconds(), self.run.settings.root_volume_gb)
