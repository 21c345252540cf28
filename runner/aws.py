"""AwsTarget: the bench on a rented EC2 instance that cannot outlive its purpose. Design notes:
docs/reference/modules.md (runner/aws.py)."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from infra.aws import (
    AwsError,
    client,
    error_code,
    failure_text,
    launch_error,
    quota_name,
    session_or_default,
)
from infra.reaper import LIVE_STATES, TAG_EXPIRES, TAG_MANAGED, TAG_RUN
from infra.resources import ensure_bucket, ensure_security_group, stack_outputs
from planner.errors import InputError
from pricing.billing import instance_cost
from runner.bench.result import BenchResult
from runner.bundle import (
    RESULT_MAX_BYTES,
    UserFiles,
    bench_bundle,
    job_for_instance,
    render_bootstrap,
    user_code,
)
from runner.target import FINISHED, TargetStatus

__all__ = [
    "AwsRun",
    "AwsSettings",
    "AwsTarget",
    "check_settings",
    "quota_name",
    "render_bootstrap",
    "worst_case_bench_cost",
]

DEFAULT_AMI_TYPE = "oss-nvidia-driver-gpu-pytorch-2.9-ubuntu-24.04"
AMI_PARAMETER = "/aws/service/deeplearning/ami/{arch}/{ami_type}/latest/ami-id"
# boot time + shutdown, past the dead-man deadline, before the reaper acts
EXPIRY_GRACE_MINUTES = 10
PRESIGN_MAX_SECONDS = 7 * 24 * 3600  # S3's limit for a SigV4 presigned URL
LOG_EXCERPT_LINES = 12  # of the instance's log, from its start and from its end
GONE_STATES = ("shutting-down", "terminated")


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
    fallback: str | None = (
        None  # "on-demand": a spot launch no zone has capacity (or price) for is launched on-demand;
    )
    # "next": a launch no zone has capacity for launches the plan's next-best instance of its kind instead


def check_settings(settings: AwsSettings) -> None:
    """Refuse what cannot be honoured, before anything is launched."""
    if settings.fallback is not None and settings.fallback not in FALLBACKS:
        raise InputError(f"--fallback {settings.fallback}: must be one of {' | '.join(FALLBACKS)}")
    if settings.fallback == "on-demand" and settings.purchase != "spot":
        raise InputError(
            "--fallback on-demand: the launch is on-demand already",
            hint="give it with --purchase spot",
        )
    if settings.max_bench_minutes * 60 > PRESIGN_MAX_SECONDS:
        raise InputError(
            f"--max-bench-minutes {settings.max_bench_minutes:g}: an instance reads and writes only through "
            f"presigned S3 URLs that must last until its deadline, and S3 allows them at most 7 days "
            f"({PRESIGN_MAX_SECONDS // 60} minutes)",
            hint=f"give --max-bench-minutes {PRESIGN_MAX_SECONDS // 60} or less",
        )


def worst_case_bench_cost(usd_per_hour: float, settings: AwsSettings) -> float:
    """The most one bench instance can bill: alive until the dead-man deadline plus the grace the
    reaper allows, with its root volume."""
    return instance_cost(
        usd_per_hour,
        (settings.max_bench_minutes + EXPIRY_GRACE_MINUTES) * 60,
        settings.root_volume_gb,
    )


def _minimal_result_problems(label: str, data: Any) -> list[str]:
    if not isinstance(data, dict):
        return ["must be a JSON object (one bench result)"]
    return [
        f"{key}: missing (every result has it)" for key in ("status", "device") if key not in data
    ]


class AwsRun:
    """What the targets of one run share: session, clients, bucket, security group, bundle, deadline,
    and which instances a terminate reached."""

    def __init__(
        self,
        settings: AwsSettings,
        run_id: str,
        session: Any = None,
        now: dt.datetime | None = None,
        check_result: Callable[[str, Any], list[str]] | None = None,
    ):
        """`check_result(label, data)`: what stops an uploaded result from being planned with, one line
        each (the planner's journal checks, planner.journal.result_problems); None: a JSON object with
        a status and a device."""
        self.settings, self.run_id = settings, run_id
        self.check_result = check_result or _minimal_result_problems
        self.session = session_or_default(session)
        self.ec2 = client(self.session, "ec2", settings.region)
        self.s3 = client(self.session, "s3", settings.region)
        self.started = now or utcnow()
        self.deadline = self.started + dt.timedelta(minutes=settings.max_bench_minutes)
        self.expires_at = self.deadline + dt.timedelta(minutes=EXPIRY_GRACE_MINUTES)
        self.bucket: str | None = settings.bucket
        self.security_group: str | None = None
        self.prefix = f"runs/{run_id}"
        self.user_files: UserFiles = []
        self.prepared = False
        # why the run could not be prepared (every target fails with it)
        self.failure: AwsError | None = None
        self.launch_attempted = False  # a run_instances call was made: the backstop must look
        self.terminated: set[str] = set()  # instances a terminate call succeeded for
        # the instance types the run's targets launch (--fallback next takes no other's)
        self.claimed: set[str] = set()
        # USD of --bench-budget the run's worst case leaves (--fallback next spends it)
        self.budget_room = float("inf")
        self.vcpus: dict[
            str, int
        ] = {}  # --fallback next: each alternative's vCPUs, its quota read before it launches

    def ship(self, job: dict[str, Any]) -> dict[str, Any]:
        """The job as the instance reads it; a custom model's code goes into the bundle (InputError
        when its folder is too big)."""
        self.user_files = user_code(job["spec"]["model"])
        return job_for_instance(job, self.user_files)

    # ------------------------------------------------------------------ per-run resources

    def prepare(self) -> None:
        """Bucket, security group and bundle, once per run. InputError for bad input; AwsError (kept,
        and raised again for every later target) when AWS cannot be used."""
        if self.prepared:
            return
        if self.failure is not None:
            raise self.failure
        doing = "looking up the infra stack"
        try:
            stack = stack_outputs(self.session, self.settings.region)
            doing = "finding the results bucket"
            self.bucket = (
                self.bucket
                or stack.get("ResultsBucket")
                or ensure_bucket(self.session, self.settings.region)
            )
            doing = "finding the no-ingress security group"
            self.security_group = stack.get("SecurityGroupId") or ensure_security_group(
                self.ec2, self.settings.region, self.settings.subnet
            )
            key = f"{self.prefix}/bundle.zip"
            doing = f"uploading the bench bundle to s3://{self.bucket}/{key}"
            self.s3.put_object(Bucket=self.bucket, Key=key, Body=bench_bundle(self.user_files))
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - every AWS target fails with this; the local ones go on
            message = failure_text(exc, doing)
            self.failure = AwsError(message)
            raise self.failure from None
        self.prepared = True

    def zone_subnets(self) -> list[tuple[str, str]]:
        """(zone, subnet) of each availability zone of the security group's VPC (its default subnet there, else its
        first), for a launch to try another zone when EC2 has no capacity where it placed it."""
        vpc = self.ec2.describe_security_groups(GroupIds=[self.security_group])["SecurityGroups"][
            0
        ]["VpcId"]
        subnets = self.ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc]}])[
            "Subnets"
        ]
        by_zone: dict[str, dict[str, Any]] = {}
        for subnet in sorted(subnets, key=lambda x: (not x.get("DefaultForAz"), x["SubnetId"])):
            by_zone.setdefault(subnet["AvailabilityZone"], subnet)
        return [(zone, by_zone[zone]["SubnetId"]) for zone in sorted(by_zone)]

    def ami_for(self, arch: str) -> tuple[str, str]:
        """(image id, root device name); the image's architecture must match the instance's."""
        image_id = self.settings.ami
        if image_id is None:
            name = AMI_PARAMETER.format(
                arch="arm64" if arch == "arm64" else "x86_64", ami_type=self.settings.ami_type
            )
            image_id = client(self.session, "ssm", self.settings.region).get_parameter(Name=name)[
                "Parameter"
            ]["Value"]
        image = self.ec2.describe_images(ImageIds=[image_id])["Images"][0]
        if image.get("Architecture") != arch:
            raise InputError(
                f"--ami {image_id} is {image.get('Architecture')}, but the instance type is {arch}",
                hint="give an AMI of the instance's architecture, or leave --ami out",
            )
        return image_id, image.get("RootDeviceName", "/dev/sda1")

    def presign(self, key: str, method: str) -> str:
        """A URL for exactly `key` that expires at the run's deadline: an instance (or anyone who
        reads its user-data) can use it until then, and never after."""
        seconds = int((self.deadline - utcnow()).total_seconds())
        if seconds < 1:
            raise AwsError(
                "the run's deadline passed before the instance was launched",
                hint="raise --max-bench-minutes",
            )
        return self.s3.generate_presigned_url(
            method,
            Params={"Bucket": self.bucket, "Key": key},
            ExpiresIn=min(seconds, PRESIGN_MAX_SECONDS),
        )

    def tags(self, label: str) -> list[dict[str, str]]:
        return [
            {"Key": TAG_MANAGED, "Value": "true"},
            {"Key": TAG_RUN, "Value": self.run_id},
            {"Key": TAG_EXPIRES, "Value": iso(self.expires_at)},
            {"Key": "Name", "Value": f"cloud-planner {label}"},
        ]

    def terminate_run(self) -> list[str]:
        """Terminate every instance carrying this run's tag: the last line of defence in `finally`."""
        if not self.launch_attempted:
            return []  # nothing can carry the tag: no call to AWS (which may be out of reach)
        ids = self.live_instances()
        if ids:
            self.ec2.terminate_instances(InstanceIds=ids)
            self.terminated.update(ids)
        return ids

    def live_instances(self, *filters: dict[str, Any]) -> list[str]:
        """The ids of this run's instances that bill or could, narrowed by `filters` (describe_instances')."""
        return [
            i["InstanceId"]
            for r in self.ec2.describe_instances(
                Filters=[
                    {"Name": f"tag:{TAG_RUN}", "Values": [self.run_id]},
                    *filters,
                    {"Name": "instance-state-name", "Values": LIVE_STATES},
                ]
            )["Reservations"]
            for i in r["Instances"]
        ]


# A launch EC2 refuses for where it would place it, not for what it is: another zone may have it
CAPACITY_CODES = ("InsufficientInstanceCapacity", "InsufficientCapacity", "Unsupported")
# A spot launch EC2 refuses in every zone alike (its price): only the fallback may help
SPOT_CODES = ("SpotMaxPriceTooLow", "InsufficientSpotInstanceCapacity")
FALLBACKS = ("on-demand", "next")
# EC2's state reason for a spot instance it took back (the two-minute notice came first, if the instance saw it)
SPOT_RECLAIM_CODES = ("Server.SpotInstanceTermination",)


@dataclass
class AwsTarget:
    """One instance of a run (runner/target.py's protocol)."""

    exclusive = False  # instances run in parallel: booting overlaps with everything else
    run: AwsRun
    instance_type: str
    job: dict[str, Any]  # as the instance reads it (AwsRun.ship)
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
    # run_instances was called: an instance may exist even without an answer
    launch_requested: bool = False
    # USD per hour on-demand, when a spot launch may fall back to it
    fallback_price: float | None = None
    # (zone, EC2's answer) of each launch after a capacity error
    tries: list[tuple[str, str]] = field(default_factory=list)
    # said once by the session (a launch in another zone)
    notices: list[str] = field(default_factory=list)
    attempt: int = 1  # 2: relaunched on-demand after a spot interruption (--fallback on-demand)
    # why the spot instance ended early (its notice, or EC2's reclaim), '' when it did not
    interruption: str = ""
    relaunched_after: str = ""  # the interruption an on-demand relaunch (attempt 2) replaced
    spent_before: float = 0.0  # USD the instances of earlier attempts billed
    # --fallback next: (type, USD/h, arch), best first
    alternatives: list[tuple[str, float, str]] = field(default_factory=list)
    # the types --fallback next left for want of capacity, in order
    replaced: list[str] = field(default_factory=list)
    _result: BenchResult | None = field(default=None, repr=False)

    @property
    def keys(self) -> dict[str, str]:
        base = f"{self.run.prefix}/{self.label}" + (
            f"/attempt-{self.attempt}" if self.attempt > 1 else ""
        )
        return {
            "bundle": f"{self.run.prefix}/bundle.zip",
            "job": f"{base}/job.json",
            "result": f"{base}/result.json",
            "log": f"{base}/log.txt",
        }

    @property
    def poll_seconds(self) -> float:
        return self.run.settings.poll_seconds

    @property
    def deadline(self) -> dt.datetime:
        return self.run.deadline

    @property
    def purchase(self) -> str:
        """How this launch buys its instance: the run's option, on-demand once an interrupted spot bench fell back."""
        return "on-demand" if self.attempt > 1 else self.run.settings.purchase

    def start(self) -> None:
        """Launch the instance (every zone, then the fallback the run allows); a launch that fails is this target's
        result (`error`, state "failed"), never a crash."""
        try:
            self.run.prepare()
        except AwsError as exc:
            self.error, self.state = exc.message, "failed"
            return
        while True:
            failure = self._start_once()
            if failure is None or not self._next_instead(failure):
                return

    def _next_instead(self, failure: Exception) -> bool:
        """--fallback next: after a launch no zone had capacity (or a spot price) for, the plan's next-best instance of
        the same kind in its place, said and kept; False when there is none to try (the failure stands)."""
        code = error_code(failure)
        if self.run.settings.fallback != "next" or code not in CAPACITY_CODES + SPOT_CODES:
            return False
        own = worst_case_bench_cost(self.price_per_hour, self.run.settings)
        free = [
            a
            for a in self.alternatives
            if a[0] not in self.run.claimed  # not another target's, within the budget
            and worst_case_bench_cost(a[1], self.run.settings) - own <= self.run.budget_room
        ]
        chosen = next((a for a in free if self._within_quota(a[0])), None)
        if chosen is None:
            return False
        self.alternatives = [a for a in self.alternatives if a is not chosen]
        self.run.claimed.add(chosen[0])
        self.run.budget_room -= max(0.0, worst_case_bench_cost(chosen[1], self.run.settings) - own)
        was, tried = self.instance_type, self.tries_text() or code
        self.replaced.append(was)
        self.instance_type, self.price_per_hour, self.arch = chosen
        self.notices.append(
            f"no capacity for {was} ({tried}): launching {self.instance_type} instead, the plan's "
            "next-best (--fallback next)"
        )
        self.tries, self.error, self.state = [], None, "pending"
        return True

    def _within_quota(self, instance_type: str) -> bool:
        """Whether --fallback next may launch `instance_type`: its vCPU quota read first (with what runs now, this
        run's own instances among them); one it would exceed is skipped, said. A quota that cannot be read does not
        stop it (EC2 refuses it by name if it must)."""
        from infra.quotas import check_quotas

        vcpus = self.run.vcpus.get(instance_type)
        if vcpus is None:
            return True
        over = [
            q
            for q in check_quotas(
                self.run.session, self.run.settings.region, {instance_type: vcpus}, self.purchase
            )
            if q.over
        ]
        if over:
            self.notices.append(
                f"--fallback next skipped {instance_type}: {over[0].over_text()} "
                f"(ask for more: {over[0].raise_request()})"
            )
        return not over

    def _start_once(self) -> Exception | None:
        """One launch of `instance_type` (every zone of the region); the exception that failed it, None when launched."""
        s = self.run.settings
        try:
            image_id, root_device = self.run.ami_for(self.arch)
            self.run.s3.put_object(
                Bucket=self.run.bucket, Key=self.keys["job"], Body=json.dumps(self.job).encode()
            )
            urls = {
                k: self.run.presign(v, "get_object" if k in ("bundle", "job") else "put_object")
                for k, v in self.keys.items()
            }
            deadman = max(2, int(s.max_bench_minutes))
            if self.attempt > 1:  # a relaunch halts by the run's deadline too
                deadman = max(
                    2, min(deadman, math.ceil((self.run.deadline - utcnow()).total_seconds() / 60))
                )
            user_data = render_bootstrap(
                self.run.run_id,
                self.label,
                urls,
                deadman,
                max(60, int(deadman * 60 - 180)),
                spot=self.purchase == "spot",
            )
            params: dict[str, Any] = dict(
                ImageId=image_id,
                InstanceType=self.instance_type,
                MinCount=1,
                MaxCount=1,
                UserData=user_data,
                InstanceInitiatedShutdownBehavior="terminate",
                MetadataOptions={
                    "HttpTokens": "required",
                    "HttpEndpoint": "enabled",
                    "HttpPutResponseHopLimit": 1,
                },
                BlockDeviceMappings=[
                    {
                        "DeviceName": root_device,
                        "Ebs": {
                            "VolumeSize": s.root_volume_gb,
                            "VolumeType": "gp3",
                            "Encrypted": True,
                            "DeleteOnTermination": True,
                        },
                    }
                ],
                TagSpecifications=[
                    {"ResourceType": "instance", "Tags": self.run.tags(self.label)},
                    {"ResourceType": "volume", "Tags": self.run.tags(self.label)},
                ],
            )
            if s.subnet:
                params["NetworkInterfaces"] = [
                    {
                        "DeviceIndex": 0,
                        "SubnetId": s.subnet,
                        "Groups": [self.run.security_group],
                        "AssociatePublicIpAddress": True,
                    }
                ]
            else:
                params["SecurityGroupIds"] = [self.run.security_group]
            if self.purchase == "spot":
                params["InstanceMarketOptions"] = {
                    "MarketType": "spot",
                    "SpotOptions": {
                        "SpotInstanceType": "one-time",
                        "InstanceInterruptionBehavior": "terminate",
                    },
                }
            self.run.launch_attempted = self.launch_requested = True
            response = self._launch(params)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - a failed launch is this target's result, not a crash
            tried = f" (tried every zone of {s.region}: {self.tries_text()})" if self.tries else ""
            self.error, self.state = (
                launch_error(
                    exc,
                    self.instance_type,
                    s.region,
                    self.purchase,
                    every_zone=bool(self.tries),
                    fallback=s.fallback,
                )
                + tried,
                "failed",
            )
            if self.relaunched_after:
                self.error = f"{self.relaunched_after}; its on-demand relaunch failed: {self.error}"
            if self.replaced:
                self.error += (
                    f" (after --fallback next left {', '.join(self.replaced)} for want of capacity)"
                )
            return exc
        self.instance_id = response["Instances"][0]["InstanceId"]
        self.launched_at, self.state = utcnow(), "booting"
        return None

    def _launch(self, params: dict[str, Any]) -> dict[str, Any]:
        """run_instances across zones (_launch_in_zones); a spot launch that fails for capacity or price everywhere is
        launched on-demand when --fallback on-demand allows it (its price then the on-demand one), said and kept in
        `tries` as the zones are."""
        from botocore.exceptions import ClientError

        s = self.run.settings
        try:
            return self._launch_in_zones(params)
        except ClientError as exc:
            code = error_code(exc)
            if (
                s.fallback != "on-demand"
                or self.purchase != "spot"
                or code not in CAPACITY_CODES + SPOT_CODES
            ):
                raise
            if not self.tries:
                self.tries.append(("spot", code))
        on_demand = {k: v for k, v in params.items() if k != "InstanceMarketOptions"}
        before = len(self.tries)
        response = self._launch_in_zones(on_demand, "on-demand, ")
        self.notices.insert(
            0, f"launched on-demand (--fallback on-demand) after spot: {self.tries_text(before)}"
        )
        if self.fallback_price is not None:
            self.price_per_hour = self.fallback_price
        return response

    def _launch_in_zones(self, params: dict[str, Any], how: str = "") -> dict[str, Any]:
        """run_instances; when EC2 has no capacity for the type where it placed it (or the zone does not offer the
        type), again in each other zone of the security group's VPC (one subnet a zone), until one launches. Each try
        and its reason is in `tries` and said (`notices`); when every zone failed, the error names them all. A subnet
        pinned by --subnet is not left."""
        from botocore.exceptions import ClientError

        try:
            return self.run.ec2.run_instances(**params)
        except ClientError as exc:
            code = error_code(exc)
            if code not in CAPACITY_CODES or self.run.settings.subnet:
                raise
            first = exc
            self.tries.append((f"{how}EC2's choice of zone", code))
        for zone, subnet in self.run.zone_subnets():
            tried = {k: v for k, v in params.items() if k != "SecurityGroupIds"}
            tried["NetworkInterfaces"] = [
                {
                    "DeviceIndex": 0,
                    "SubnetId": subnet,
                    "Groups": [self.run.security_group],
                    "AssociatePublicIpAddress": True,
                }
            ]
            try:
                response = self.run.ec2.run_instances(**tried)
            except ClientError as exc:
                code = error_code(exc)
                if code not in CAPACITY_CODES:
                    raise
                self.tries.append((f"{how}{zone}", code))
                continue
            self.notices.append(f"launched in {zone} after {self.tries_text()}")
            self.tries.append((f"{how}{zone}", "launched"))
            return response
        raise ClientError(
            {
                "Error": {
                    "Code": first.response["Error"]["Code"],
                    "Message": f"every zone tried ({self.tries_text()})",
                }
            },
            "RunInstances",
        )

    def tries_text(self, count: int | None = None) -> str:
        """The launch's tries so far (the first `count`): 'us-east-1a: InsufficientInstanceCapacity; ...'."""
        return "; ".join(f"{zone}: {code}" for zone, code in self.tries[:count])

    # ------------------------------------------------------------------ progress

    def _has(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.run.s3.head_object(Bucket=self.run.bucket, Key=self.keys[key])
            return True
        except ClientError as exc:
            # S3 answers a HEAD of a missing key with 403 to whoever may not list the bucket
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound", "403"):
                return False
            raise  # not an answer: the session tries again

    def poll(self) -> TargetStatus:
        """pending | booting | running | done | failed | terminated"""
        if self.state not in FINISHED and self.instance_id is not None:
            self._refresh_state()
            if self.state in ("done", "failed") and self._relaunch_wanted():
                self._relaunch()
        return TargetStatus(self.state)

    def _relaunch_wanted(self) -> bool:
        """A spot bench interrupted (its notice, or EC2's reclaim) without steps enough to time is launched again
        on-demand, once, when --fallback on-demand allows it. A partial result that holds enough steps is kept."""
        if self.attempt > 1 or self.purchase != "spot" or self.run.settings.fallback != "on-demand":
            return False
        if self.state == "done":
            result = self.collect()
            if not result.interruption or result.status == "ok":
                return False
            self.interruption = self.interruption or result.interruption
        return bool(self.interruption)

    def _relaunch(self) -> None:
        """The on-demand launch after a spot interruption: the spot instance's bill kept, its own keys (the partial
        result stays where it is), said and kept in `tries` as the zones are."""
        old = self.instance_id
        self.spent_before += self.cost_so_far()
        self.tries.append(("spot", self.interruption))
        self.notices.append(f"{self.interruption}: relaunched on-demand (--fallback on-demand)")
        try:
            # it halts by itself; every second until then bills
            if old is not None and old not in self.run.terminated:
                self.run.ec2.terminate_instances(InstanceIds=[old])
                self.run.terminated.add(old)
        except Exception:  # noqa: BLE001 - the run's backstop terminates it with the rest
            pass
        self.relaunched_after, self.interruption = (
            self.interruption,
            "",
        )  # the relaunch's own run was not interrupted
        self.attempt, self.instance_id, self.launched_at, self.ended_at = 2, None, None, None
        self.state, self.state_reason, self.log_tail, self._result = "pending", "", "", None
        if self.fallback_price is not None:
            self.price_per_hour = self.fallback_price
        self.start()

    def _refresh_state(self) -> None:
        has_result = self._has("result")
        if has_result and self._has("log"):  # the bootstrap uploads its log right after the result
            self.state = "done"
            return
        reservations = self.run.ec2.describe_instances(InstanceIds=[self.instance_id])[
            "Reservations"
        ]
        instance = reservations[0]["Instances"][0]
        name = instance["State"]["Name"]
        if name in ("pending", "running"):
            self.state = "booting" if name == "pending" else "running"
        elif name in ("shutting-down", "terminated", "stopping", "stopped"):
            reason = instance.get("StateReason") or {}
            if reason.get("Code") in SPOT_RECLAIM_CODES and not self.terminated_by_us:
                self.interruption = (
                    self.interruption or f"EC2 reclaimed the spot instance ({reason['Code']})"
                )
            if has_result or self._has("result"):  # uploaded just before it halted
                self.state = "done"
            else:
                self.state_reason = reason.get("Message", "")
                self.ended_at = self.ended_at or utcnow()
                self.state = "terminated" if self.terminated_by_us else "failed"

    def collect(self) -> BenchResult:
        if self._result is not None:
            return self._result
        if self.state == "done":
            self._result = self._read_result()
            if self._result.status != "ok" and self._result.interruption:  # too few steps to time
                self._result.message = (
                    f"a spot reclaim cut the bench short: {self._result.message}"
                    + (
                        ""
                        if self.run.settings.fallback == "on-demand"
                        else "; --fallback on-demand relaunches an interrupted spot bench on-demand"
                    )
                )
            return self._result
        if self.error:
            message = self.error
        else:
            self.log_tail = self._log_excerpt()
            if self.terminated_by_us:
                message = f"no result from {self.label}: stopped by the planner"
            elif self.interruption:
                message = f"no result from {self.label}: {self.interruption}" + (
                    ""
                    if self.run.settings.fallback == "on-demand"
                    else "; --fallback on-demand relaunches an interrupted spot bench on-demand"
                )
            else:
                why = (
                    "terminated from outside (a spot interruption, or someone else)"
                    if not self.log_tail
                    else "the instance ended without a result"
                )
                message = f"no result from {self.label}: {why}" + (
                    f" ({self.state_reason})" if self.state_reason else ""
                )
            if self.log_tail:
                message += f"\n--- the instance's log ---\n{self.log_tail}"
        return self._failed(message)

    def _failed(self, message: str) -> BenchResult:
        return BenchResult(
            status="error",
            device="cuda" if self.job.get("device") == "cuda" else "cpu",
            workload=self.job["spec"]["name"] if "spec" in self.job else self.job.get("script", ""),
            message=message,
            interruption=self.interruption,
        )

    def _read_result(self) -> BenchResult:
        """The uploaded result, read bounded; a truncated or malformed one is a failed result with
        the instance's log. S3 errors raise (the session tries again)."""
        body = self.run.s3.get_object(Bucket=self.run.bucket, Key=self.keys["result"])["Body"].read(
            RESULT_MAX_BYTES + 1
        )
        try:
            data = json.loads(body)
            problem = next(iter(self.run.check_result(self.label, data)), None)
        except ValueError as exc:
            problem = f"not JSON ({exc})"
        if problem is None and len(body) <= RESULT_MAX_BYTES:
            result = BenchResult.from_dict(data)
            if self.interruption and not result.interruption:  # reclaimed right after its upload
                result.interruption = self.interruption
            return result
        size = (
            f"more than {RESULT_MAX_BYTES} bytes"
            if len(body) > RESULT_MAX_BYTES
            else f"{len(body)} bytes"
        )
        log = self._log_excerpt()
        return self._failed(
            f"the result {self.label} uploaded is unreadable: {problem} ({size}); the upload was cut "
            f"short, or the bench was killed while writing it"
            + (
                f"\n--- the instance's log ---\n{log}"
                if log
                else " (and the instance uploaded no log)"
            )
        )

    def _log_excerpt(self) -> str:
        """The first and the last LOG_EXCERPT_LINES lines of the instance's log ('' when there is none)."""
        try:
            if not self._has("log"):
                return ""
            body = self.run.s3.get_object(Bucket=self.run.bucket, Key=self.keys["log"])[
                "Body"
            ].read(RESULT_MAX_BYTES)
        except Exception as exc:  # noqa: BLE001 - the log only explains; its absence must not hide the result
            return f"(the instance's log could not be read: {type(exc).__name__})"
        lines = body.decode(errors="replace").strip().splitlines()
        if len(lines) <= 2 * LOG_EXCERPT_LINES:
            return "\n".join(lines)
        skipped = len(lines) - 2 * LOG_EXCERPT_LINES
        return "\n".join(
            [*lines[:LOG_EXCERPT_LINES], f"... ({skipped} lines) ...", *lines[-LOG_EXCERPT_LINES:]]
        )

    # ------------------------------------------------------------------ ending

    def _find_lost_instance(self) -> None:
        """The instance of a launch whose answer never arrived (a signal or a lost connection during
        run_instances), found by the tags it was launched with."""
        if self.instance_id is None and self.launch_requested:
            found = self.run.live_instances(
                {"Name": "tag:Name", "Values": [f"cloud-planner {self.label}"]}
            )
            self.instance_id = found[0] if found else None
            self.launch_requested = bool(found)  # looked: nothing of this launch is running

    def terminate(self) -> None:
        """Terminate the instance (idempotent; raises when AWS refuses or cannot be reached, and the
        session tries again). A finished one is terminated too: it would halt by itself, but every
        second until then is billed."""
        self._find_lost_instance()
        if self.instance_id is None or self.instance_id in self.run.terminated:
            return
        if self.state not in ("done", "failed"):
            self.terminated_by_us, self.state = True, "terminated"
        self.run.ec2.terminate_instances(InstanceIds=[self.instance_id])
        self.run.terminated.add(self.instance_id)
        self.ended_at = self.ended_at or utcnow()

    def abandon(self, reason: str) -> None:
        self.error = reason  # before terminating, which may raise
        self.terminate()

    def expire(self) -> None:
        """The run's deadline passed without a result: terminate; collect() says why."""
        minutes = self.run.settings.max_bench_minutes
        self.abandon(
            f"no result from {self.label} within {minutes:g} minutes (--max-bench-minutes); the planner "
            f"stopped waiting and terminated it"
        )

    def leftover(self) -> dict[str, Any] | None:
        """The instance, when no terminate reached it and AWS does not say it is gone."""
        try:
            self._find_lost_instance()
        except Exception:  # noqa: BLE001 - an instance that may exist but cannot be found is still named below
            pass
        # else: the launch's answer was lost
        if not (self.launch_requested and self.instance_id is None):
            if self.instance_id is None or self.instance_id in self.run.terminated:
                return None
            try:
                found = self.run.ec2.describe_instances(InstanceIds=[self.instance_id])[
                    "Reservations"
                ]
                if found and found[0]["Instances"][0]["State"]["Name"] in GONE_STATES:
                    return None
            except Exception:  # noqa: BLE001 - unknown counts as running: better named than forgotten
                pass
        return {
            "label": self.label,
            "instance_id": self.instance_id or "(unknown: the launch's answer was lost)",
            "instance_type": self.instance_type,
            "region": self.run.settings.region,
            "run_id": self.run.run_id,
            "expires_at": iso(self.run.expires_at),
        }

    def cost_so_far(self, now: dt.datetime | None = None) -> float:
        if self.launched_at is None:
            return self.spent_before
        end = self.ended_at or now or utcnow()
        return self.spent_before + instance_cost(
            self.price_per_hour,
            (end - self.launched_at).total_seconds(),
            self.run.settings.root_volume_gb,
        )
